#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

// The requests a kube-apiserver has served, read from its `/metrics` (the counter
// `apiserver_request_total`): what a scheduler's pods cost a real API server, counted where
// the server saw them, as the request log does for `troupe serve`.
namespace troupe::bench {

// Requests by "<VERB> <resource>[/<subresource>]" ("POST pods/binding"), summed over the
// counter's other labels (group, version, scope, code, ...), from a Prometheus text
// exposition. Lines of other metrics are skipped.
std::map<std::string, int64_t> apiserverRequestCounts(std::string_view metrics_text);

// The writes (POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION) of `after` less those of
// `before`, keeping the keys that grew.
std::map<std::string, int64_t> writesBetween(const std::map<std::string, int64_t>& before,
                                             const std::map<std::string, int64_t>& after);

}  // namespace troupe::bench
