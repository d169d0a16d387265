#pragma once

#include <string_view>
#include <vector>

namespace troupe::api {

// The CustomResourceDefinitions in crds/, compiled into the binary so that `troupe serve`
// can install them and `troupe validate` can check against them without the source tree.
struct CrdManifest {
  std::string_view kind;  // "TrainingJob"
  std::string_view file;  // "trainingjobs.troupe.dev.yaml"
  std::string_view yaml;  // the file's text
};

const std::vector<CrdManifest>& crdManifests();
// The manifest for `kind`, or nullptr.
const CrdManifest* findCrdManifest(std::string_view kind);

}  // namespace troupe::api
