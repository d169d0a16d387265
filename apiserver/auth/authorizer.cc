#include "apiserver/auth/authorizer.h"

namespace troupe::apiserver::auth {

bool allowed(const Identity& identity, const Attributes& a) {
  if (identity.admin) return true;
  if (identity.rbac) return false;
  bool read = a.verb == "get" || a.verb == "list" || a.verb == "watch";
  if (a.group == "troupe.dev") {
    if (a.resource == "trainingjobs" || a.resource == "podgroups") return a.ns == identity.ns;
    if (a.resource == "queues" || a.resource == "gputypes") return read;
    return false;
  }
  if (a.group.empty() && a.resource == "namespaces" && a.subresource.empty())
    return a.verb == "get" && a.name == identity.ns;
  // A team reads its own pods and their logs (kubectl get pods, kubectl logs), no others.
  if (a.group.empty() && a.resource == "pods" && a.ns == identity.ns) {
    if (a.subresource.empty()) return read;
    if (a.subresource == "log") return a.verb == "get";
  }
  return false;
}

Decision Authorizer::authorize(const Identity& identity, const Attributes& attributes) {
  Decision decision = identity.rbac ? rbac_.authorize(identity, attributes)
                                    : Decision{allowed(identity, attributes), ""};
  if (log_) log_->record(identity, attributes, decision);
  return decision;
}

std::string forbiddenMessage(const Identity& identity, const Attributes& a) {
  std::string qualified = a.group.empty() ? a.resource : a.resource + "." + a.group;
  std::string resource = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  std::string subject = a.name.empty() ? qualified : qualified + " \"" + a.name + "\"";
  std::string scope = a.ns.empty() ? "at the cluster scope" : "in the namespace \"" + a.ns + "\"";
  return subject + " is forbidden: User \"" + identity.user + "\" cannot " + a.verb +
         " resource \"" + resource + "\" in API group \"" + a.group + "\" " + scope;
}

}  // namespace troupe::apiserver::auth
