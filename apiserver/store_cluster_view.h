#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "admission/cluster_view.h"
#include "apiserver/objects/object_service.h"
#include "apiserver/storage/object_store.h"

// What troupe serve's admission reads of the cluster: the Queues and namespaces in its
// store, decoded once and kept until one of them is written (it observes every write), so
// that admitting a job reads no row.
namespace troupe::apiserver {

class StoreClusterView : public admission::ClusterView, public WriteObserver {
 public:
  explicit StoreClusterView(ObjectStore& store) : store_(store) {}

  std::vector<api::Validated<api::Queue>> queues() const override;
  std::optional<std::map<std::string, std::string>> namespaceLabels(
      const std::string& ns) const override;

  void observe(const ResourceKind& kind, const nlohmann::json& before,
               const nlohmann::json& after) override;

 private:
  ObjectStore& store_;
  mutable std::mutex mu_;
  // Bumped by every write of a Queue or Namespace: a read that began before it does not
  // keep what it read.
  std::uint64_t generation_ = 0;
  mutable std::optional<std::vector<api::Validated<api::Queue>>> queues_;
  mutable std::map<std::string, std::optional<std::map<std::string, std::string>>> namespaces_;
};

// Hands every write to several observers, in order.
class FanOutObserver : public WriteObserver {
 public:
  explicit FanOutObserver(std::vector<WriteObserver*> observers)
      : observers_(std::move(observers)) {}
  void observe(const ResourceKind& kind, const nlohmann::json& before,
               const nlohmann::json& after) override {
    for (auto* o : observers_) o->observe(kind, before, after);
  }

 private:
  std::vector<WriteObserver*> observers_;
};

}  // namespace troupe::apiserver
