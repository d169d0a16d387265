#include "apiserver/store_cluster_view.h"

#include "api/well_known.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

const std::string kQueueStorage = std::string(api::kQueueResource) + "." + std::string(api::kGroup);

}  // namespace

std::vector<api::Validated<api::Queue>> StoreClusterView::queues() const {
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    if (queues_) return *queues_;
    generation = generation_;
  }
  std::vector<api::Validated<api::Queue>> out;
  ListOptions options;
  options.resource = kQueueStorage;
  if (auto listed = store_.list(options)) {
    for (const auto& item : listed->items)
      out.push_back(api::decodeAndValidate<api::Queue>(item.object));
  }
  std::lock_guard lock(mu_);
  if (generation == generation_) queues_ = out;
  return out;
}

std::optional<std::map<std::string, std::string>> StoreClusterView::namespaceLabels(
    const std::string& ns) const {
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mu_);
    if (auto it = namespaces_.find(ns); it != namespaces_.end()) return it->second;
    generation = generation_;
  }
  std::optional<std::map<std::string, std::string>> labels;
  if (auto found = store_.get({"namespaces", "", ns})) {
    labels.emplace();
    const json& object = found->object;
    auto meta = object.find("metadata");
    if (meta != object.end() && meta->is_object()) {
      auto found_labels = meta->find("labels");
      if (found_labels != meta->end() && found_labels->is_object())
        for (auto it = found_labels->begin(); it != found_labels->end(); ++it)
          if (it->is_string()) (*labels)[it.key()] = it->get<std::string>();
    }
  }
  std::lock_guard lock(mu_);
  if (generation == generation_) namespaces_[ns] = labels;
  return labels;
}

void StoreClusterView::observe(const ResourceKind& kind, const json&, const json&) {
  const std::string storage = kind.storageName();
  if (storage != kQueueStorage && storage != "namespaces") return;
  std::lock_guard lock(mu_);
  ++generation_;
  if (storage == kQueueStorage) {
    queues_.reset();
  } else {
    namespaces_.clear();
  }
}

}  // namespace troupe::apiserver
