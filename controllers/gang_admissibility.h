#pragma once

#include <map>
#include <optional>
#include <string>

#include "admission/queue_forest.h"
#include "controllers/object_list.h"

// Whether a gang may be admitted through the queue it names, whatever the engine would
// decide: the queue takes jobs (its part of the tree holds), it is a leaf, and it admits
// the gang's namespace. Admission refuses what it can see when an object is written; this
// is the check for everything else (a queue changed later, a namespace relabelled, objects
// written while the webhook was down), so that no such gang is ever admitted. Such a gang
// waits with the reason Inadmissible and says which queue and why.
namespace troupe::controllers {

inline constexpr std::string_view kPendingInadmissible = "Inadmissible";

class GangAdmissibility {
 public:
  GangAdmissibility(const ObjectList& queues, const ObjectList& namespaces);

  // Why a gang of namespace `ns` naming `queue` may not be admitted; nullopt when it may,
  // or when no such queue exists (then it waits with QueueNotFound).
  std::optional<std::string> whyNot(const std::string& queue, const std::string& ns) const;
  // Whether some queue admits only some namespaces: only then can a gang naming a usable
  // leaf queue be inadmissible.
  bool restrictsNamespaces() const { return restricts_namespaces_; }
  const admission::QueueForest& forest() const { return forest_; }

 private:
  admission::QueueForest forest_;
  std::map<std::string, std::map<std::string, std::string>> namespace_labels_;
  bool restricts_namespaces_ = false;
};

}  // namespace troupe::controllers
