#pragma once

#include <cstddef>
#include <string>

#include "common/metrics_registry.h"

// The embedded API server's own metrics, under kube-apiserver's names where it has one, so
// that dashboards written for a real API server read these too:
//   apiserver_request_total{verb,group,resource,subresource,code}   requests answered
//   apiserver_request_duration_seconds{verb,group,resource,subresource}
//       from the request's arrival at the handler to its answer (for a watch: to the
//       start of its stream)
//   apiserver_registered_watchers   watches open on the object store (kubectl's, other
//       clients', and the in-process operator's and kubelets')
//   troupe_store_commits_total, troupe_store_writes_total   group commits and the writes
//       they carried
//   troupe_store_commit_duration_seconds   one commit: its transaction and its fsync
namespace troupe::apiserver {

// What a request was, as the metrics label it. `verb` is kube-apiserver's: GET, LIST,
// WATCH, POST, PUT, PATCH, DELETE, DELETECOLLECTION; the rest are empty for a path outside
// the resources (discovery, /healthz, /metrics, the dashboard).
struct RequestLabels {
  std::string verb;
  std::string group;
  std::string resource;
  std::string subresource;
};

class ApiServerMetrics {
 public:
  // Defines the families on `registry`, which must outlive this object.
  explicit ApiServerMetrics(MetricsRegistry& registry);

  void requestAnswered(const RequestLabels& labels, int code, double seconds);
  void committed(std::size_t writes, double seconds);
  void setWatchers(std::size_t watchers);

 private:
  MetricsRegistry& registry_;
};

}  // namespace troupe::apiserver
