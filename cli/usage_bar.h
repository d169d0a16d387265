#pragma once

#include <string>

#include "cli/queue_tree.h"

// A queue's use of one resource as a bar of `width` characters, `scale` units wide:
//   █ allocated within the guarantee   ▓ borrowed (allocated above it)
//   ░ guaranteed but idle (lendable)  · room up to the limit
// Past the limit (or the scale, for a queue without one) the bar is blank.
namespace troupe::cli {

struct BarStyle {
  int width = 24;
  bool color = false;  // ANSI colours: blue, orange, grey
};

std::string usageBar(const QueueQuota& quota, double scale, const BarStyle& style);
std::string usageBarLegend(const BarStyle& style);

}  // namespace troupe::cli
