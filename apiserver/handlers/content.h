#pragma once

#include <string>
#include <vector>

// Accept-header negotiation: which representation a client asked for.
namespace troupe::apiserver {

enum class Representation {
  Object,                      // plain JSON
  Table,                       // meta.k8s.io Table
  PartialObjectMetadata,       // metadata only (single object or list)
  AggregatedDiscoveryV2,       // apidiscovery.k8s.io/v2 APIGroupDiscoveryList
  AggregatedDiscoveryV2Beta1,  // apidiscovery.k8s.io/v2beta1
  Unacceptable,                // only media types this server cannot produce
};

struct MediaRange {
  std::string type;  // "application/json", "*/*", ...
  std::string as, g, v;
  double q = 1.0;
};

std::vector<MediaRange> parseAccept(const std::string& accept);

// What a request body is written in, from its Content-Type (parameters and case ignored).
// No Content-Type is JSON, as on the real server.
enum class BodyFormat { Json, Yaml, Protobuf, Unsupported };
BodyFormat bodyFormatOf(const std::string& content_type);

// The first acceptable representation in the client's order of preference.
// `discovery`: whether aggregated discovery forms are on offer (GET /api, /apis).
Representation negotiate(const std::string& accept, bool discovery);

}  // namespace troupe::apiserver
