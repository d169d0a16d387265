#pragma once

#include <string>
#include <vector>

#include "simulator/sweep_table.h"

namespace troupe::simulator {

// The sweep as a picture (SVG 1.1, no script, no external resource): two panels against
// the offered load, average JCT on a log scale on the left and GPU utilization on the
// right, one line per policy (in the order given) through its runs. Runs without the
// keys it reads are left out. Each dot has a title (shown on hovering) naming its policy,
// scale, offered load and value.
std::string sweepSvg(const std::vector<SweepRun>& runs, const std::vector<std::string>& policies);

}  // namespace troupe::simulator
