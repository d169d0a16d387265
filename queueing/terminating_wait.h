#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "queueing/engine_state.h"

namespace troupe::queueing {

class Statement;

// Free capacity of one node that a gang waiting for terminating pods holds until the end
// of the cycle, so that no gang after it in the cycle takes it.
struct Pledge {
  NodeId node = 0;
  HeldCapacity held;
};

// A gang that fits once terminating pods are gone, and what it counts on meanwhile.
struct TerminatingWait {
  std::vector<GangId> gangs;    // whose terminating pods it waits for, by name
  std::vector<Pledge> pledges;  // the free part of its placement, taken for the cycle
};

// Releases into `stmt` the terminating capacity no waiting gang has counted on yet this
// cycle (TerminatingCapacity): a placement tried after it counts on that capacity too.
void releaseUnclaimedTerminating(EngineState& st, Statement& stmt);

// Whether gang g, at `counts` pods per pod set, fits on free capacity together with the
// terminating capacity no other gang counted on yet this cycle, and needs the latter.
// When it does, the gang waits: it claims the part of that capacity its placement needs,
// takes the free part of its placement for the rest of the cycle (the pledges, which the
// caller gives back when the cycle ends), and the gangs it waits for are named. nullopt
// when it does not fit even so, or needs none of the terminating capacity.
std::optional<TerminatingWait> waitForTerminating(EngineState& st, GangId g,
                                                  const std::vector<std::int32_t>& counts);

// "waiting for the pods of a, b to terminate", for a gang's explanation.
std::string describeTerminatingWait(const EngineState& st, const std::vector<GangId>& gangs);

}  // namespace troupe::queueing
