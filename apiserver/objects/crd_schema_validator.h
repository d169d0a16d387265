#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "apiserver/objects/api_status.h"
#include "apiserver/registry/resource_kind.h"

namespace troupe::openapi {
class Schema;
}

// Custom resources against their CRD's structural schema, as kube-apiserver treats them on
// every write: unknown fields pruned, defaults filled, then validated (CEL rules included),
// each failure a Status cause with its field path. Compiled schemas are cached per kind
// and recompiled when the CRD's schema changes.
namespace troupe::apiserver {

class CrdSchemaValidator {
 public:
  // Prunes and defaults `object` in place; returns the violations (empty: valid). `old`,
  // the stored object on an update, is what transition rules (oldSelf) compare with.
  std::vector<Cause> check(const ResourceKind& kind, nlohmann::json& object,
                           const nlohmann::json* old = nullptr);

 private:
  struct Compiled {
    // The schema it was compiled from, kept so its address cannot be reused by another.
    std::shared_ptr<const nlohmann::json> source;
    std::shared_ptr<const openapi::Schema> schema;  // null if the schema does not compile
  };
  std::shared_ptr<const openapi::Schema> schemaFor(const ResourceKind& kind);

  std::mutex mu_;
  std::map<std::string, Compiled> compiled_;  // by "<storage name>/<version>"
};

// Why a CRD's schemas cannot be served (kube-apiserver's wording), as causes.
std::vector<Cause> checkCrdSchemas(const nlohmann::json& crd);

}  // namespace troupe::apiserver
