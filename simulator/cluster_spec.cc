#include "simulator/cluster_spec.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "simulator/node_list.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace troupe::simulator {
namespace {

Error invalid(std::string path, std::string message) {
  return makeError(ErrorCode::Invalid, std::move(path), std::move(message));
}

// Reads an integer field; absent gives `fallback`.
Result<int64_t> intField(const YAML::Node& node, const std::string& key, const std::string& path,
                         int64_t fallback, int64_t min, int64_t max) {
  const YAML::Node value = node[key];
  if (!value) return fallback;
  int64_t out = 0;
  if (!value.IsScalar() || !YAML::convert<int64_t>::decode(value, out) || out < min || out > max) {
    return invalid(path + "." + key,
                   fmt::format("must be a whole number in [{}, {}], got '{}'", min, max,
                               value.IsScalar() ? value.Scalar() : std::string("<not a scalar>")));
  }
  return out;
}

Result<std::string> stringField(const YAML::Node& node, const std::string& key,
                                const std::string& path, bool required) {
  const YAML::Node value = node[key];
  if (!value) {
    if (required) return invalid(path + "." + key, "is required");
    return std::string();
  }
  if (!value.IsScalar() || value.Scalar().empty()) {
    return invalid(path + "." + key, "must be a non-empty string");
  }
  return value.Scalar();
}

Status checkKeys(const YAML::Node& node, const std::string& path,
                 std::initializer_list<const char*> allowed) {
  if (!node.IsMap()) return invalid(path, "must be a mapping");
  for (const auto& entry : node) {
    std::string key = entry.first.as<std::string>();
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) return invalid(path + "." + key, "unknown field");
  }
  return {};
}

Status parseTopology(const YAML::Node& node, const std::string& path, int gpus, NodeSpec& spec) {
  const YAML::Node topo = node["gpuTopology"];
  if (!topo) return {};
  std::string tpath = path + ".gpuTopology";
  if (auto s = checkKeys(topo, tpath, {"nvlinkDomainSize", "numaNodes"}); !s) return s;
  auto nvlink = intField(topo, "nvlinkDomainSize", tpath, 0, 0, 1024);
  if (!nvlink) return nvlink.error();
  auto numa = intField(topo, "numaNodes", tpath, 1, 1, 64);
  if (!numa) return numa.error();
  if (*nvlink > 0 && gpus % *nvlink != 0) {
    return invalid(tpath + ".nvlinkDomainSize",
                   fmt::format("must divide the node's {} GPUs, got {}", gpus, *nvlink));
  }
  if (gpus % *numa != 0) {
    return invalid(tpath + ".numaNodes",
                   fmt::format("must divide the node's {} GPUs, got {}", gpus, *numa));
  }
  spec.nvlink_domain_size = static_cast<int>(*nvlink);
  spec.numa_nodes = static_cast<int>(*numa);
  return {};
}

Status parseNodePools(const YAML::Node& pools, ClusterSpec& out) {
  if (!pools.IsSequence()) return invalid("nodePools", "must be a list");
  for (size_t i = 0; i < pools.size(); ++i) {
    const YAML::Node pool = pools[i];
    std::string path = fmt::format("nodePools[{}]", i);
    if (auto s = checkKeys(pool, path,
                           {"name", "count", "gpusPerNode", "nodesPerRack", "racksPerBlock",
                            "gpuTopology", "gpuType"});
        !s) {
      return s;
    }
    auto name = stringField(pool, "name", path, true);
    if (!name) return name.error();
    auto count = intField(pool, "count", path, -1, 1, 1'000'000);
    if (!count) return count.error();
    if (*count < 0) return invalid(path + ".count", "is required");
    auto gpus = intField(pool, "gpusPerNode", path, -1, 0, 1024);
    if (!gpus) return gpus.error();
    if (*gpus < 0) return invalid(path + ".gpusPerNode", "is required");
    auto per_rack = intField(pool, "nodesPerRack", path, *count, 1, 1'000'000);
    if (!per_rack) return per_rack.error();
    auto per_block = intField(pool, "racksPerBlock", path, 1'000'000, 1, 1'000'000);
    if (!per_block) return per_block.error();
    NodeSpec shape;
    shape.gpus = static_cast<int>(*gpus);
    if (auto s = parseTopology(pool, path, shape.gpus, shape); !s) return s;
    auto gpu_type = stringField(pool, "gpuType", path, false);
    if (!gpu_type) return gpu_type.error();
    NodePool spec{.name = *name,
                  .count = *count,
                  .gpus_per_node = shape.gpus,
                  .nodes_per_rack = *per_rack,
                  .racks_per_block = *per_block,
                  .nvlink_domain_size = shape.nvlink_domain_size,
                  .numa_nodes = shape.numa_nodes,
                  .gpu_type = *gpu_type};
    expandPool(spec, out.nodes);
    out.pools.push_back(std::move(spec));
  }
  return {};
}

Status parseNodes(const YAML::Node& nodes, ClusterSpec& out) {
  if (!nodes.IsSequence()) return invalid("nodes", "must be a list");
  for (size_t i = 0; i < nodes.size(); ++i) {
    const YAML::Node n = nodes[i];
    std::string path = fmt::format("nodes[{}]", i);
    if (auto s = checkKeys(n, path, {"name", "gpus", "rack", "block", "gpuTopology", "gpuType"});
        !s) {
      return s;
    }
    NodeSpec node;
    auto name = stringField(n, "name", path, true);
    if (!name) return name.error();
    node.name = *name;
    auto gpus = intField(n, "gpus", path, -1, 0, 1024);
    if (!gpus) return gpus.error();
    if (*gpus < 0) return invalid(path + ".gpus", "is required");
    node.gpus = static_cast<int>(*gpus);
    auto rack = stringField(n, "rack", path, false);
    if (!rack) return rack.error();
    node.rack = rack->empty() ? "rack-of-" + node.name : *rack;
    auto block = stringField(n, "block", path, false);
    if (!block) return block.error();
    node.block = block->empty() ? "block-of-" + node.rack : *block;
    if (auto s = parseTopology(n, path, node.gpus, node); !s) return s;
    auto gpu_type = stringField(n, "gpuType", path, false);
    if (!gpu_type) return gpu_type.error();
    node.gpu_type = *gpu_type;
    out.nodes.push_back(std::move(node));
    ++out.listed_nodes;
  }
  return {};
}

Status parseQueues(const YAML::Node& queues, ClusterSpec& out) {
  if (!queues.IsSequence()) return invalid("queues", "must be a list");
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < queues.size(); ++i) {
    const YAML::Node q = queues[i];
    std::string path = fmt::format("queues[{}]", i);
    if (auto s = checkKeys(q, path, {"name", "parent", "guaranteed", "limit", "overQuotaWeight"});
        !s) {
      return s;
    }
    QueueSpec queue;
    auto name = stringField(q, "name", path, true);
    if (!name) return name.error();
    queue.name = *name;
    if (!index.emplace(queue.name, i).second) {
      return invalid(path + ".name", fmt::format("duplicate queue name '{}'", queue.name));
    }
    auto parent = stringField(q, "parent", path, false);
    if (!parent) return parent.error();
    queue.parent = *parent;
    auto guaranteed = intField(q, "guaranteed", path, 0, 0, 1'000'000'000);
    if (!guaranteed) return guaranteed.error();
    queue.guaranteed_gpus = *guaranteed;
    if (q["limit"]) {
      auto limit = intField(q, "limit", path, 0, 0, 1'000'000'000);
      if (!limit) return limit.error();
      if (*limit < queue.guaranteed_gpus) {
        return invalid(path + ".limit", fmt::format("must be at least guaranteed ({}), got {}",
                                                    queue.guaranteed_gpus, *limit));
      }
      queue.limit_gpus = *limit;
    }
    auto weight = intField(q, "overQuotaWeight", path, 1, 0, 1'000'000);
    if (!weight) return weight.error();
    queue.over_quota_weight = *weight;
    out.queues.push_back(std::move(queue));
  }
  // Parents exist, come before their children (so the tree has no cycles), and the
  // children's guarantees fit in their parent's.
  std::map<std::string, int64_t> child_guarantees;
  for (size_t i = 0; i < out.queues.size(); ++i) {
    const auto& queue = out.queues[i];
    if (queue.parent.empty()) continue;
    auto it = index.find(queue.parent);
    if (it == index.end()) {
      return invalid(fmt::format("queues[{}].parent", i),
                     fmt::format("names no queue: '{}'", queue.parent));
    }
    if (it->second >= i) {
      return invalid(fmt::format("queues[{}].parent", i),
                     fmt::format("'{}' must be listed before its children", queue.parent));
    }
    child_guarantees[queue.parent] += queue.guaranteed_gpus;
  }
  for (size_t i = 0; i < out.queues.size(); ++i) {
    const auto& queue = out.queues[i];
    auto it = child_guarantees.find(queue.name);
    if (it != child_guarantees.end() && it->second > queue.guaranteed_gpus) {
      return invalid(fmt::format("queues[{}].guaranteed", i),
                     fmt::format("the children of '{}' are guaranteed {} GPUs, more than its {}",
                                 queue.name, it->second, queue.guaranteed_gpus));
    }
  }
  return {};
}

}  // namespace

void expandPool(const NodePool& pool, std::vector<NodeSpec>& out) {
  for (int64_t n = 0; n < pool.count; ++n) {
    NodeSpec node;
    node.gpus = pool.gpus_per_node;
    node.nvlink_domain_size = pool.nvlink_domain_size;
    node.numa_nodes = pool.numa_nodes;
    node.gpu_type = pool.gpu_type;
    node.cpu_milli = pool.cpu_milli;
    node.memory_mib = pool.memory_mib;
    int64_t rack = n / pool.nodes_per_rack;
    int64_t block = rack / pool.racks_per_block;
    node.name = fmt::format("{}-{:05d}", pool.name, n);
    node.rack = fmt::format("{}-rack-{:04d}", pool.name, rack);
    node.block = fmt::format("{}-block-{:03d}", pool.name, block);
    out.push_back(std::move(node));
  }
}

int64_t ClusterSpec::totalGpus() const {
  int64_t total = 0;
  for (const auto& node : nodes) total += node.gpus;
  return total;
}

bool ClusterSpec::simulatesCpuAndMemory() const {
  return std::any_of(nodes.begin(), nodes.end(), [](const NodeSpec& node) {
    return node.cpu_milli > 0 || node.memory_mib > 0;
  });
}

const QueueSpec* ClusterSpec::findQueue(std::string_view name) const {
  for (const auto& queue : queues) {
    if (queue.name == name) return &queue;
  }
  return nullptr;
}

bool ClusterSpec::isLeaf(std::string_view name) const {
  for (const auto& queue : queues) {
    if (queue.parent == name) return false;
  }
  return true;
}

Result<ClusterSpec> parseClusterSpec(std::string_view yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    return makeError(ErrorCode::BadRequest, "", fmt::format("not valid YAML: {}", e.what()));
  }
  ClusterSpec spec;
  try {
    if (auto s = checkKeys(root, "<root>", {"nodePools", "nodes", "queues", "defaultQueue"}); !s) {
      return s.error();
    }
    if (root["nodePools"]) {
      if (auto s = parseNodePools(root["nodePools"], spec); !s) return s.error();
    }
    if (root["nodes"]) {
      if (auto s = parseNodes(root["nodes"], spec); !s) return s.error();
    }
    if (spec.nodes.empty()) return invalid("nodes", "the cluster needs at least one node");
    std::set<std::string> names;
    for (const auto& node : spec.nodes) {
      if (!names.insert(node.name).second) {
        return invalid("nodes", fmt::format("duplicate node name '{}'", node.name));
      }
    }
    if (!root["queues"]) return invalid("queues", "is required");
    if (auto s = parseQueues(root["queues"], spec); !s) return s.error();
    if (spec.queues.empty()) return invalid("queues", "the cluster needs at least one queue");
    auto default_queue = stringField(root, "defaultQueue", "", false);
    if (!default_queue) return invalid("defaultQueue", "must be a non-empty string");
    spec.default_queue = *default_queue;
    if (!spec.default_queue.empty() &&
        (!spec.findQueue(spec.default_queue) || !spec.isLeaf(spec.default_queue))) {
      return invalid("defaultQueue",
                     fmt::format("must name a leaf queue, got '{}'", spec.default_queue));
    }
  } catch (const YAML::Exception& e) {
    return makeError(ErrorCode::BadRequest, "", fmt::format("bad cluster file: {}", e.what()));
  }
  return spec;
}

Result<ClusterSpec> readClusterSpec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return makeError(ErrorCode::NotFound, "--cluster", fmt::format("cannot open '{}'", path));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const bool node_list = path.size() > 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  auto spec = node_list ? parseNodeList(buffer.str(), path.substr(path.find_last_of('/') + 1))
                        : parseClusterSpec(buffer.str());
  if (!spec) {
    Error e = spec.error();
    e.message = fmt::format("{}: {}", path, e.message);
    return e;
  }
  return spec;
}

}  // namespace troupe::simulator
