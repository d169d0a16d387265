#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "api/field_error.h"
#include "api/status.h"

namespace troupe::api {
namespace {

std::string fixture(const std::string& name) {
  // Recorded from a real kube-apiserver v1.28.7 (see testdata/k8s/README.md).
  std::ifstream in(std::string(TROUPE_SOURCE_DIR) + "/test/api/testdata/k8s/" + name);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

const StatusTarget kTrainingJobs{"troupe.dev", "trainingjobs", "TrainingJob", ""};

StatusTarget job(std::string name) {
  StatusTarget t = kTrainingJobs;
  t.name = std::move(name);
  return t;
}

TEST_CASE("Status bodies match what a real kube-apiserver sent, byte for byte", "[api][status]") {
  const std::string skipped =
      "some validation rules were not checked because the object was invalid; correct the "
      "existing errors to complete validation";
  struct Case {
    std::string name;
    std::string fixture;
    nlohmann::ordered_json status;
  };
  std::vector<Case> cases = {
      {"schema violations list every cause in order", "err-422-schema.json",
       invalidStatus(
           job("bad-job"),
           {invalid("spec.replicas", 0,
                    "spec.replicas in body should be greater than or equal to 1"),
            typeInvalid("spec.template", "string",
                        "spec.template in body must be of type object: \"string\""),
            invalid("spec.gpusPerReplica", -1,
                    "spec.gpusPerReplica in body should be greater than or equal to 0"),
            typeInvalid("spec.minReplicas", "string",
                        "spec.minReplicas in body must be of type integer: \"string\""),
            invalid("spec.queue", "", "spec.queue in body should be at least 1 chars long"),
            invalid("<nil>", "null", skipped)})},
      {"a CEL rule failure is one cause on the object holding the rule", "err-422-cel.json",
       invalidStatus(job("bad-cel"),
                     {invalid("spec", "object", "minReplicas must be <= replicas")})},
      {"missing required fields", "err-422-required.json",
       invalidStatus(job("bad-required"), {required("spec.queue"), required("spec.replicas"),
                                           invalid("<nil>", "null", skipped)})},
      {"an unsupported enum value lists the supported ones", "err-422-status.json",
       invalidStatus(
           job("llama-a"),
           {notSupported("phase", "Exploding", {"Pending", "Running", "Succeeded", "Failed"})})},
      {"not found names the qualified resource", "err-404-not-found.json",
       notFoundStatus(job("does-not-exist"))},
      {"already exists", "err-409-already-exists.json", alreadyExistsStatus(job("llama-a"))},
      {"a stale resourceVersion is a conflict", "err-409-conflict.json",
       conflictStatus(job("llama-a"))},
      {"a lease conflict in another group", "err-409-lease-conflict.json",
       conflictStatus({"coordination.k8s.io", "leases", "Lease", "troupe-operator-leader"})},
      {"a truncated JSON body", "err-400-bad-json.json",
       unrecognizedBodyStatus("TrainingJob", "unexpected end of JSON input",
                              "{\"apiVersion\":\"troupe.dev/v1alpha1\",\"kind\":")},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) { CHECK(statusBody(tc.status) == fixture(tc.fixture)); }
  }
}

TEST_CASE("an Error becomes the Status its code calls for", "[api][status]") {
  auto body = statusFromError(
      invalid("spec.minReplicas", 10, "must be less than or equal to spec.replicas"), job("x"));
  CHECK(body["code"] == 422);
  CHECK(body["message"] ==
        "TrainingJob.troupe.dev \"x\" is invalid: spec.minReplicas: Invalid value: 10: must be "
        "less than or equal to spec.replicas");
  CHECK(body["details"]["causes"][0]["reason"] == "FieldValueInvalid");

  auto gone = statusFromError(Error{ErrorCode::Gone, "", "too old resource version: 1 (5)"}, {});
  CHECK(gone["code"] == 410);
  CHECK(gone["reason"] == "Expired");
  CHECK_FALSE(gone.contains("details"));

  auto mixed = statusFromErrors({required("spec.queue"), Error{ErrorCode::NotFound, "", "missing"}},
                                job("y"));
  CHECK(mixed["code"] == 422);
  CHECK(mixed["details"]["causes"].size() == 1);
}

TEST_CASE("field error values print as Go prints them", "[api][status]") {
  CHECK(renderValue(1.5) == "1.5");
  CHECK(renderValue(1e21) == "1e+21");
  CHECK(renderValue(0.00001) == "1e-05");
  CHECK(renderValue(true) == "true");
  CHECK(renderValue("a\"b\n") == "\"a\\\"b\\n\"");
  CHECK(renderValue(nullptr) == "\"null\"");
  CHECK(fieldErrorType(tooMany("spec.x", 5, 3)) == FieldErrorType::TooMany);
  CHECK(tooMany("spec.x", 5, 3).message == "Too many: 5: must have at most 3 items");
  CHECK(tooLong("spec.x", 8).message == "Too long: may not be longer than 8");
}

}  // namespace
}  // namespace troupe::api
