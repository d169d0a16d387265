#include "simulator/node_list.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace troupe::simulator {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t comma = line.find(',', start);
    fields.push_back(
        trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

bool parseWhole(std::string_view text, int64_t& out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

// A pool name from a GPU model: lower case, and only [a-z0-9-] ("V100M16" -> "v100m16").
std::string poolStem(const std::string& model) {
  if (model.empty()) return "cpu";
  std::string out;
  for (char c : model) {
    const auto u = static_cast<unsigned char>(c);
    out.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-');
  }
  return out;
}

}  // namespace

Result<ClusterSpec> parseNodeList(std::string_view text, std::string_view source_name) {
  auto where = [&](size_t line, std::string_view column) {
    return fmt::format("{}:{}:{}", source_name, line, column);
  };
  // One kind of node: (GPUs, model, CPU, memory), mapped to its pool's index.
  using Kind = std::tuple<int64_t, std::string, int64_t, int64_t>;
  std::map<Kind, size_t> pool_of;
  std::set<std::string> names;
  ClusterSpec cluster;
  int col_name = -1, col_cpu = -1, col_memory = -1, col_gpus = -1, col_model = -1;
  size_t header_width = 0, line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (trim(line).empty()) continue;
    const auto fields = splitFields(line);
    if (header_width == 0) {
      header_width = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        for (auto [col, want] : {std::pair{&col_name, "sn"}, std::pair{&col_cpu, "cpu_milli"},
                                 std::pair{&col_memory, "memory_mib"}, std::pair{&col_gpus, "gpu"},
                                 std::pair{&col_model, "model"}}) {
          if (fields[i] == want) *col = static_cast<int>(i);
        }
      }
      for (auto [col, name] : {std::pair{col_name, "sn"}, std::pair{col_cpu, "cpu_milli"},
                               std::pair{col_memory, "memory_mib"}, std::pair{col_gpus, "gpu"},
                               std::pair{col_model, "model"}}) {
        if (col < 0) {
          return makeError(ErrorCode::Invalid, where(line_no, name),
                           "required column is missing from the header line");
        }
      }
      continue;
    }
    if (fields.size() != header_width) {
      return makeError(
          ErrorCode::Invalid, where(line_no, "*"),
          fmt::format("has {} fields, the header has {}", fields.size(), header_width));
    }
    const std::string name(fields[col_name]);
    if (name.empty() || !names.insert(name).second) {
      return makeError(ErrorCode::Invalid, where(line_no, "sn"),
                       fmt::format("must be a unique, non-empty node name, got '{}'", name));
    }
    int64_t gpus = 0, cpu = 0, memory = 0;
    // The simulator's GPU ledger holds at most 64 GPUs per node.
    if (!parseWhole(fields[col_gpus], gpus) || gpus < 0 || gpus > 64) {
      return makeError(
          ErrorCode::Invalid, where(line_no, "gpu"),
          fmt::format("must be a whole number in [0, 64], got '{}'", fields[col_gpus]));
    }
    for (auto [field, out, column] : {std::tuple{fields[col_cpu], &cpu, "cpu_milli"},
                                      std::tuple{fields[col_memory], &memory, "memory_mib"}}) {
      if (!parseWhole(field, *out) || *out <= 0 || *out > (int64_t{1} << 40)) {
        return makeError(ErrorCode::Invalid, where(line_no, column),
                         fmt::format("must be a whole number > 0, got '{}'", field));
      }
    }
    const std::string model(fields[col_model]);
    if (gpus > 0 && model.empty()) {
      return makeError(ErrorCode::Invalid, where(line_no, "model"),
                       "must name the GPU model of a node with GPUs");
    }
    const Kind kind{gpus, gpus > 0 ? model : std::string(), cpu, memory};
    auto [it, added] = pool_of.emplace(kind, cluster.pools.size());
    if (added) {
      NodePool pool;
      pool.name = fmt::format("{}-{:02d}", poolStem(std::get<1>(kind)), cluster.pools.size());
      pool.gpus_per_node = static_cast<int>(gpus);
      pool.gpu_type = std::get<1>(kind);
      pool.cpu_milli = cpu;
      pool.memory_mib = memory;
      cluster.pools.push_back(std::move(pool));
    }
    ++cluster.pools[it->second].count;
  }
  if (cluster.pools.empty()) {
    return makeError(ErrorCode::Invalid, std::string(source_name), "the node list has no nodes");
  }
  for (auto& pool : cluster.pools) {
    // The list says nothing of racks, so none is assumed: each node is a rack and a block
    // of its own (as a node listed one by one in a cluster file is), and placement packs
    // node by node rather than into whichever pool is smallest.
    pool.nodes_per_rack = 1;
    pool.racks_per_block = 1;
    expandPool(pool, cluster.nodes);
  }
  cluster.queues.push_back(QueueSpec{.name = kNodeListQueue});
  cluster.default_queue = kNodeListQueue;
  return cluster;
}

}  // namespace troupe::simulator
