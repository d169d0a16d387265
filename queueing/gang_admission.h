#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "queueing/cycle_run.h"
#include "queueing/gang_placer.h"

namespace troupe::queueing {

// One gang's admission under Troupe's rules (docs/scheduling.md, "One cycle"):
//  1-3. Quota and placement together, as for every admission (fitGang, gang_fit.h):
//     admitted, Inadmissible, or on to 4 with QueueAtLimit (a queue's limit binds) or
//     NoPlacement.
//  4. With preemption on: if it is within its limits, or fits, once terminating pods no
//     earlier gang counted on are gone, it waits for them; else a preemption search
//     (unless one is known to fail or this cycle's budget is spent), whose fit test checks
//     every limit on its path with the victims' usage removed, and whose plan is applied:
//     victims out, the gang in (or waiting for the terminating pods the plan counted on).
//  5. Otherwise it waits: with the search's reason (a limited gang stays QueueAtLimit and
//     says why no victim helps), or BlockedByStarvingJob when it would fit but for a
//     reservation, TopologyUnsatisfiable for NoPlacement under a required topology; a
//     starving gang gets a reservation (with backfill on).
// A gang with alternatives goes through 1-4 for each of its ways in order of preference,
// under its queue's VariantFungibility (tryWays). Placements, fits-ever, preemption
// failures and fits-ignoring-reservations are asked of the memo. One per cycle: it keeps
// the counts of the gang being tried between calls.
class GangAdmission {
 public:
  explicit GangAdmission(CycleRun& run) : run_(run), st_(run.state()) {}

  // Tries to admit g; returns whether it was. Otherwise g's explanation says why it waits.
  bool tryToAdmit(GangId g);

 private:
  // Step 4's outcome: admitted, waiting for terminating pods (explained), or not cured.
  enum class Cure { Admitted, Waits, None };
  bool tryWays(GangId g);
  bool borrows(GangId g, const std::vector<Pod>& pods) const;
  void noteWaysWaiting(GangId g, const std::vector<Why>& whys);
  void setCounts(GangId g);
  PlaceOptions placeOptions(GangId g) const;
  std::optional<std::vector<Pod>> fit(GangId g, Why& why);
  static bool curable(const Why& why);
  Cure cure(GangId g, Why& why);
  void explainWait(GangId g, Why why);
  bool applyPlan(GangId g, PreemptionPlan& plan);
  bool waitsForTerminatingQuota(GangId g, Why& why);
  static SharedText noVictimDetail(const Why& found);
  bool fitsNow(GangId g, const std::vector<Pod>& pods) const;
  std::string firstBlockingReservation() const;

  CycleRun& run_;
  EngineState& st_;
  std::vector<std::int32_t> least_, full_;  // the counts of the gang being tried
  // tryWays' answer for each way and the ways it searches last, kept to spare allocations.
  std::vector<Why> way_whys_;
  std::vector<std::size_t> way_searches_;
};

}  // namespace troupe::queueing
