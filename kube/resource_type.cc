#include "kube/resource_type.h"

namespace troupe::kube {

std::string ResourceType::apiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string ResourceType::qualifiedName() const {
  return group.empty() ? resource : resource + "." + group;
}

std::string ResourceType::collectionPath(const std::string& ns) const {
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) path += "/namespaces/" + ns;
  return path + "/" + resource;
}

std::string ResourceType::objectPath(const std::string& ns, const std::string& name,
                                     const std::string& subresource) const {
  std::string path = collectionPath(ns) + "/" + name;
  if (!subresource.empty()) path += "/" + subresource;
  return path;
}

}  // namespace troupe::kube
