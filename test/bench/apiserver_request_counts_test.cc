#include <catch2/catch.hpp>

#include "bench/api/apiserver_request_counts.h"

// The writes a pod cost, read from kube-apiserver's /metrics as the real one writes them.
namespace troupe::bench {
namespace {

// Lines as kube-apiserver 1.28 exposes them (labels in its order), two codes of one write.
constexpr const char* kBefore =
    R"(# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 10
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 3
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 4
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 10
)";
constexpr const char* kAfter =
    R"(apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 110
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 9
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 4
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 7
)";

TEST_CASE("the API server's writes between two readings, by verb and resource",
          "[bench][apiserver-metrics]") {
  const auto before = apiserverRequestCounts(kBefore);
  const auto after = apiserverRequestCounts(kAfter);
  // Codes summed: 110 + 2 bindings; other metrics' lines skipped.
  CHECK(after.at("POST pods/binding") == 112);
  CHECK(before.at("POST pods/binding") == 10);
  CHECK(before.size() == 3);
  const auto writes = writesBetween(before, after);
  // Reads (LIST) and writes that did not grow (events) left out; a new key counts from 0.
  CHECK(writes ==
        std::map<std::string, int64_t>{{"POST pods/binding", 102}, {"PATCH pods/status", 7}});
}

}  // namespace
}  // namespace troupe::bench
