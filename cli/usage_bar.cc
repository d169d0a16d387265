#include "cli/usage_bar.h"

#include <algorithm>

namespace troupe::cli {
namespace {

enum class Cell { Held, Borrowed, Idle, Room, Blank };

const char* glyph(Cell cell) {
  switch (cell) {
    case Cell::Held: return "█";
    case Cell::Borrowed: return "▓";
    case Cell::Idle: return "░";
    case Cell::Room: return "·";
    case Cell::Blank: return " ";
  }
  return " ";
}

const char* colour(Cell cell) {
  switch (cell) {
    case Cell::Held: return "\x1b[34m";
    case Cell::Borrowed: return "\x1b[33m";
    case Cell::Idle:
    case Cell::Room: return "\x1b[90m";
    case Cell::Blank: return "";
  }
  return "";
}

}  // namespace

std::string usageBar(const QueueQuota& q, double scale, const BarStyle& style) {
  std::string out;
  Cell previous = Cell::Blank;
  const double room = q.limit.value_or(scale);
  for (int i = 0; i < style.width; ++i) {
    // Each cell stands for the units around its middle.
    const double at = (i + 0.5) * scale / style.width;
    Cell cell = at < std::min(q.allocated, q.guaranteed) ? Cell::Held
                : at < q.allocated                       ? Cell::Borrowed
                : at < q.guaranteed                      ? Cell::Idle
                : at < room                              ? Cell::Room
                                                         : Cell::Blank;
    if (style.color && cell != previous) out += cell == Cell::Blank ? "\x1b[0m" : colour(cell);
    out += glyph(cell);
    previous = cell;
  }
  if (style.color && previous != Cell::Blank) out += "\x1b[0m";
  return "[" + out + "]";
}

std::string usageBarLegend(const BarStyle& style) {
  auto key = [&](Cell cell, const char* what) {
    std::string g = glyph(cell);
    if (style.color) g = colour(cell) + g + "\x1b[0m";
    return g + " " + what;
  };
  return key(Cell::Held, "allocated within the guarantee") + "   " +
         key(Cell::Borrowed, "borrowed") + "   " + key(Cell::Idle, "idle guarantee (lendable)") +
         "   " + key(Cell::Room, "room up to the limit");
}

}  // namespace troupe::cli
