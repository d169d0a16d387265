// docs/api.md is what users read to know the reason, condition and phase names: it must name
// every one the code writes.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "api/phases.h"
#include "api/well_known.h"
#include "queueing/decisions.h"

namespace {

std::string apiDoc() {
  std::ifstream in(std::string(TROUPE_SOURCE_DIR) + "/docs/api.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("docs/api.md names every pending reason, condition type and phase the code writes",
          "[controllers][docs]") {
  const std::string doc = apiDoc();
  REQUIRE_FALSE(doc.empty());
  for (auto reason : troupe::queueing::kPendingReasons) {
    const std::string name = troupe::queueing::pendingReasonName(reason);
    INFO("pending reason " << name << " is not in docs/api.md");
    CHECK(doc.find("`" + name + "`") != std::string::npos);
  }
  for (auto type : troupe::api::kConditionTypes) {
    const std::string name(type);
    INFO("condition type " << name << " is not in docs/api.md");
    CHECK(doc.find("`" + name + "`") != std::string::npos);
  }
  auto checkPhases = [&](const char* kind, const auto& phases) {
    for (auto phase : phases) {
      const std::string name(phase);
      INFO(kind << " phase " << name << " is not in docs/api.md");
      CHECK(doc.find("`" + name + "`") != std::string::npos);
    }
  };
  checkPhases("TrainingJob", troupe::api::kTrainingJobPhases);
  checkPhases("PodGroup", troupe::api::kPodGroupPhases);
}
