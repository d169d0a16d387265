#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

// The shared table of admission cases (test/admission/cases.yaml, whose header says what each
// field means), read for the tests that run it through every enforcer.
namespace troupe::admission::testing {

struct AdmissionCase {
  std::string name;
  // A create: the object. A change: `objects` are created first and the first is changed by
  // `patch` (a merge patch) or resized to `scale` replicas.
  std::optional<nlohmann::json> object;
  std::vector<nlohmann::json> objects;
  std::optional<nlohmann::json> patch;
  std::optional<int> scale;
  int want = 201;
  std::string by;                   // "", crd, pod or webhook
  std::vector<std::string> causes;  // "field: message"

  bool refused() const { return want >= 400; }
  bool isChange() const { return !object.has_value(); }
  // The first object as the change leaves it (the patch merged, or spec.replicas set).
  nlohmann::json changed() const;
};

struct CaseTable {
  std::vector<nlohmann::json> setup;
  std::vector<AdmissionCase> cases;
};

// Reads cases.yaml; throws on a malformed table.
CaseTable loadCaseTable();

// "trainingjobs" for a TrainingJob, as kubectl and the API name a kind's resource.
std::string resourceOf(const nlohmann::json& object);
// The causes a list of field errors makes: "field: message".
std::vector<std::string> causeTexts(const std::vector<std::string>& fields,
                                    const std::vector<std::string>& messages);

}  // namespace troupe::admission::testing
