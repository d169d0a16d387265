#include "controllers/gang_admission.h"

#include <map>
#include <utility>

#include "common/helper_pool.h"
#include "common/log.h"
#include "controllers/cluster_writer.h"
#include "state/state_store.h"

namespace troupe::controllers {

std::vector<AdmissionOutcome> admitGangs(const std::vector<const state::AdmissionRecord*>& records,
                                         state::StateStore& state, ClusterWriter& writer) {
  using enum AdmissionOutcome;
  std::vector<AdmissionOutcome> out(records.size(), NotJournaled);
  if (records.empty()) return out;
  auto journaled = state.transaction([&]() -> Status {
    for (std::size_t i = 0; i < records.size(); ++i) {
      auto begun = state.journal().begin(*records[i]);
      if (begun) {
        out[i] = Bound;
      } else if (begun.error().code == ErrorCode::AlreadyExists) {
        log::error("gang already has an open admission; not admitted",
                   {{"gang", records[i]->gang}, {"error", begun.error().describe()}});
      } else {
        return begun;
      }
    }
    return {};
  });
  if (!journaled) {
    log::error("journal write failed; no gang admitted this cycle",
               {{"gangs", records.size()}, {"error", journaled.error().describe()}});
    return std::vector<AdmissionOutcome>(records.size(), NotJournaled);
  }
  std::vector<std::pair<std::size_t, std::size_t>> pods;  // (record, binding)
  for (std::size_t i = 0; i < records.size(); ++i)
    if (out[i] == Bound)
      for (std::size_t j = 0; j < records[i]->bindings.size(); ++j) pods.emplace_back(i, j);
  std::vector<char> bound(pods.size(), 0);
  writer.helpers().forEach(pods.size(), kBindWidth, [&](std::size_t k) {
    bound[k] = writer.postBinding(records[pods[k].first]->bindings[pods[k].second]) ? 1 : 0;
  });
  for (std::size_t k = 0; k < pods.size(); ++k) {
    if (bound[k]) {
      writer.assumeBound(records[pods[k].first]->bindings[pods[k].second]);
    } else {
      out[pods[k].first] = RolledBack;
    }
  }
  std::map<std::size_t, std::size_t> rolled_back;  // record -> pods unbound again
  for (std::size_t k = 0; k < pods.size(); ++k) {
    const auto i = pods[k].first;
    if (!bound[k] || out[i] != RolledBack) continue;
    const auto& b = records[i]->bindings[pods[k].second];
    const auto key = b.ns + "/" + b.pod;
    writer.deletePod({b.ns, b.pod, writer.assumed().boundByUs(key).value_or(""), records[i]->gang,
                      "RolledBack"});
    ++rolled_back[i];
  }
  for (std::size_t i = 0; i < records.size(); ++i)
    if (out[i] == RolledBack)
      log::warn("gang admission rolled back",
                {{"gang", records[i]->gang}, {"bound", rolled_back[i]}});
  return out;
}

}  // namespace troupe::controllers
