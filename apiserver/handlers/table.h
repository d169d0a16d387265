#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "apiserver/registry/resource_kind.h"
#include "common/clock.h"

// Server-side printing: meta.k8s.io/v1 Table with the kind's columns (a CRD's
// additionalPrinterColumns; built-in kinds have columns like the real printers'), and
// the PartialObjectMetadata forms that metadata-only clients ask for.
namespace troupe::apiserver {

nlohmann::json tableColumns(const ResourceKind& kind);
nlohmann::json tableRow(const ResourceKind& kind, const nlohmann::json& object, Time now,
                        bool include_object);
// `items` are full objects; `list_meta` becomes the Table's metadata.
nlohmann::json makeTable(const ResourceKind& kind, const std::vector<nlohmann::json>& items,
                         nlohmann::json list_meta, Time now, bool include_object,
                         bool with_columns = true);
nlohmann::json partialObjectMetadata(const nlohmann::json& object);

// kubectl's short age ("0s", "101s", "5m3s", "3h", "12d").
std::string humanDuration(Duration d);
// A small JSONPath: ".a.b", ".a[0]", ".a[*].b", ".a[?(@.type==\"Ready\")].status".
std::vector<nlohmann::json> evalJsonPath(const nlohmann::json& object, const std::string& path);

}  // namespace troupe::apiserver
