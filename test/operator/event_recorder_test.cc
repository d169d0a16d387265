// The event recorder against the real `troupe serve`: events queued without waiting reach
// the API, in full; past its capacity new events are dropped and counted, never blocking
// the caller; stopping writes what is still queued.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "kube/event_recorder.h"
#include "kube/kubeconfig.h"
#include "kube/resource_type.h"
#include "kube/rest_kube_client.h"
#include "test/support/serve_client.h"
#include "test/support/serve_process.h"

using namespace troupe;
using namespace troupe::testing;
using Json = nlohmann::json;

namespace {

Json event(const std::string& name) {
  return Json{{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"involvedObject", {{"kind", "PodGroup"}, {"name", "g"}, {"namespace", "default"}}},
              {"reason", "Admitted"},
              {"message", "admitted " + name},
              {"type", "Normal"}};
}

std::set<std::string> eventNames(kube::KubeClient& client) {
  auto list = client.list(kube::resources::kEvents, "default", {});
  REQUIRE(list);
  std::set<std::string> names;
  for (const auto& item : (*list)["items"])
    names.insert(item["metadata"]["name"].get<std::string>());
  return names;
}

}  // namespace

TEST_CASE("the event recorder writes every queued event and drops only past its capacity",
          "[operator][events]") {
  ServeProcess serve;
  REQUIRE(serve.start());
  auto client = clientFor(serve);

  SECTION("every event queued within the capacity is written, once") {
    kube::EventRecorder recorder(*client, "troupe-test", 4, 1000);
    for (int i = 0; i < 60; ++i) recorder.record(event("e-" + std::to_string(i)));
    recorder.flush();
    CHECK(recorder.dropped() == 0);
    auto names = eventNames(*client);
    CHECK(names.size() == 60);
    CHECK(names.contains("e-0"));
    CHECK(names.contains("e-59"));
  }

  SECTION("past the capacity new events are dropped and counted; stop writes the rest") {
    // One writer and room for 5: of a burst of 40 recorded at once, at most the 5 queued
    // plus what the writer took meanwhile can land; record() never waits for the API.
    kube::EventRecorder recorder(*client, "troupe-test", 1, 5);
    for (int i = 0; i < 40; ++i) recorder.record(event("burst-" + std::to_string(i)));
    recorder.stop();
    const auto written = eventNames(*client).size();
    CHECK(recorder.dropped() >= 30);
    CHECK(written + static_cast<std::size_t>(recorder.dropped()) == 40);
    recorder.record(event("after-stop"));
    CHECK_FALSE(eventNames(*client).contains("after-stop"));
  }
}
