#include "simulator/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <string>

namespace troupe::simulator {

ProgressBar::ProgressBar(int64_t total, FILE* stream)
    : total_(total),
      stream_(stream),
      enabled_(stream != nullptr && isatty(fileno(stream)) == 1),
      started_(std::chrono::steady_clock::now()),
      last_draw_(started_ - std::chrono::seconds(1)) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(int64_t done, int64_t sim_time_s, int64_t pending, int64_t running) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && done != total_) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  double fraction = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  int filled = static_cast<int>(fraction * kWidth);
  double elapsed = std::chrono::duration<double>(now - started_).count();
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  fmt::print(stream_, "\r[{}] {:5.1f}% {}/{} jobs  day {:.1f}  pending {} running {}  {:.0f}s ",
             bar, fraction * 100, done, total_, static_cast<double>(sim_time_s) / 86400.0, pending,
             running, elapsed);
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  fmt::print(stream_, "\r\033[K");
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace troupe::simulator
