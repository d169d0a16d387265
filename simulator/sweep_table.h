#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/result.h"

namespace troupe::simulator {

// One replay of a sweep: the cluster scale and policy it ran with, and its summary.json.
struct SweepRun {
  std::string scale;  // as ClusterScale::str() writes it, e.g. "1/6"
  double scale_value = 1;
  std::string policy;
  nlohmann::json summary;
};

// The sweep's columns, in order: a name (the CSV header) and how the Markdown table heads
// it. docs/simulator.md explains each.
struct SweepColumn {
  const char* csv;
  const char* markdown;
};
const std::vector<SweepColumn>& sweepColumns();

// The runs as table rows: lightest load first (largest scale), then policies in the order
// given; each row's cells in sweepColumns() order, formatted for reading (Markdown) or
// with full precision (CSV). Errors: a summary missing a key the table reads.
Result<std::vector<std::vector<std::string>>> sweepCells(const std::vector<SweepRun>& runs,
                                                         const std::vector<std::string>& policies,
                                                         bool for_markdown);

// The whole Markdown table and the whole CSV text.
Result<std::string> sweepMarkdown(const std::vector<SweepRun>& runs,
                                  const std::vector<std::string>& policies);
Result<std::string> sweepCsv(const std::vector<SweepRun>& runs,
                             const std::vector<std::string>& policies);

// The runs in table order (see sweepCells).
std::vector<const SweepRun*> sweepOrder(const std::vector<SweepRun>& runs,
                                        const std::vector<std::string>& policies);

}  // namespace troupe::simulator
