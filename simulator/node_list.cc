#include "simulator/node_list.h"

#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "simulator/csv_lines.h"

namespace troupe::simulator {
namespace {

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
  auto lines = csvLines(text, source_name);
  if (!lines) return lines.error();
  if (lines->size() < 2) {
    return makeError(ErrorCode::Invalid, std::string(source_name), "the node list has no nodes");
  }
  const CsvLine& header = lines->front();
  const int col_name = csvColumn(header, "sn"), col_cpu = csvColumn(header, "cpu_milli"),
            col_memory = csvColumn(header, "memory_mib"), col_gpus = csvColumn(header, "gpu"),
            col_model = csvColumn(header, "model");
  for (auto [col, name] : {std::pair{col_name, "sn"}, std::pair{col_cpu, "cpu_milli"},
                           std::pair{col_memory, "memory_mib"}, std::pair{col_gpus, "gpu"},
                           std::pair{col_model, "model"}}) {
    if (col < 0) {
      return makeError(ErrorCode::Invalid, csvWhere(source_name, header.number, name),
                       "required column is missing from the header line");
    }
  }
  // One kind of node: (GPUs, model, CPU, memory), mapped to its pool's index.
  using Kind = std::tuple<int64_t, std::string, int64_t, int64_t>;
  std::map<Kind, size_t> pool_of;
  std::set<std::string> names;
  ClusterSpec cluster;
  for (size_t i = 1; i < lines->size(); ++i) {
    const auto& fields = (*lines)[i].fields;
    auto at = [&](std::string_view column) {
      return csvWhere(source_name, (*lines)[i].number, column);
    };
    const std::string name(fields[col_name]);
    if (name.empty() || !names.insert(name).second) {
      return makeError(ErrorCode::Invalid, at("sn"),
                       fmt::format("must be a unique, non-empty node name, got '{}'", name));
    }
    int64_t gpus = 0, cpu = 0, memory = 0;
    // The simulator's GPU ledger holds at most 64 GPUs per node.
    if (!parseWholeNumber(fields[col_gpus], gpus) || gpus < 0 || gpus > 64) {
      return makeError(
          ErrorCode::Invalid, at("gpu"),
          fmt::format("must be a whole number in [0, 64], got '{}'", fields[col_gpus]));
    }
    for (auto [field, out, column] : {std::tuple{fields[col_cpu], &cpu, "cpu_milli"},
                                      std::tuple{fields[col_memory], &memory, "memory_mib"}}) {
      if (!parseWholeNumber(field, *out) || *out <= 0 || *out > (int64_t{1} << 40)) {
        return makeError(ErrorCode::Invalid, at(column),
                         fmt::format("must be a whole number > 0, got '{}'", field));
      }
    }
    const std::string model(fields[col_model]);
    if (gpus > 0 && model.empty()) {
      return makeError(ErrorCode::Invalid, at("model"),
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
