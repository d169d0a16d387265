#pragma once

#include <string>

#include "apiserver/handlers/content.h"
#include "apiserver/http/http_message.h"
#include "apiserver/registry/resource_registry.h"
#include "common/clock.h"

// A resource request after routing: kubernetes' RequestInfo.
namespace troupe::apiserver {

class ObjectService;
class WatchTicker;

struct RestRequest {
  const http::Request& http;
  ResourceKind kind;
  std::string ns;
  std::string name;         // empty for collections
  std::string subresource;  // "", "status", "scale", "binding", "eviction", "log"
  std::string verb;         // get list watch create update patch delete deletecollection
  std::string user;
  Representation representation = Representation::Object;
};

struct ApiContext {
  ObjectService& objects;
  ResourceRegistry& registry;
  const TimeSource& clock;
  WatchTicker& ticker;
};

}  // namespace troupe::apiserver
