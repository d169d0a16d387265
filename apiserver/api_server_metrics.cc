#include "apiserver/api_server_metrics.h"

namespace troupe::apiserver {

ApiServerMetrics::ApiServerMetrics(MetricsRegistry& registry) : registry_(registry) {
  registry_.defineCounter("apiserver_request_total",
                          "Requests answered by the embedded API server, by verb, group, "
                          "resource, subresource and HTTP status code.");
  registry_.defineHistogram(
      "apiserver_request_duration_seconds",
      "Time from a request's arrival at the handler to its answer (a watch: to its stream's "
      "start), by verb, group, resource and subresource.",
      {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60});
  registry_.defineGauge("apiserver_registered_watchers",
                        "Watches open on the object store, in-process clients' included.");
  registry_.defineCounter("troupe_store_commits_total",
                          "Write transactions (group commits) the object store made durable.");
  registry_.defineCounter("troupe_store_writes_total",
                          "Object writes the store's commits carried.");
  registry_.defineHistogram("troupe_store_commit_duration_seconds",
                            "Time one group commit took: its transaction and its fsync.",
                            {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1});
  // Present from the start, so a scrape before the first commit sees zeros, not nothing.
  registry_.add("troupe_store_commits_total", {}, 0);
  registry_.add("troupe_store_writes_total", {}, 0);
  registry_.set("apiserver_registered_watchers", {}, 0);
}

void ApiServerMetrics::requestAnswered(const RequestLabels& labels, int code, double seconds) {
  MetricLabels series{{"group", labels.group},
                      {"resource", labels.resource},
                      {"subresource", labels.subresource},
                      {"verb", labels.verb}};
  registry_.observe("apiserver_request_duration_seconds", series, seconds);
  series.emplace("code", std::to_string(code));
  registry_.add("apiserver_request_total", series);
}

void ApiServerMetrics::committed(std::size_t writes, double seconds) {
  registry_.add("troupe_store_commits_total", {});
  registry_.add("troupe_store_writes_total", {}, static_cast<double>(writes));
  registry_.observe("troupe_store_commit_duration_seconds", {}, seconds);
}

void ApiServerMetrics::setWatchers(std::size_t watchers) {
  registry_.set("apiserver_registered_watchers", {}, static_cast<double>(watchers));
}

}  // namespace troupe::apiserver
