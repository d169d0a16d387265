#include "simulator/cluster_scale.h"

#include <fmt/format.h>

#include <charconv>
#include <numeric>
#include <optional>

namespace troupe::simulator {
namespace {

constexpr int64_t kMaxPart = 1'000'000;

// A whole number of 1 to 7 digits, or nullopt.
std::optional<int64_t> wholeNumber(std::string_view text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  int64_t out = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return out;
}

}  // namespace

std::string ClusterScale::str() const {
  if (denominator == 1) return fmt::format("{}", numerator);
  return fmt::format("{}/{}", numerator, denominator);
}

Result<ClusterScale> parseClusterScale(std::string_view text, const std::string& field) {
  auto invalid = [&] {
    return makeError(ErrorCode::Invalid, field,
                     fmt::format("must be a fraction like 1/6 or a decimal like 0.25, > 0, "
                                 "whose reduced terms are at most {}, got '{}'",
                                 kMaxPart, text));
  };
  int64_t num = 0, den = 1;
  if (auto slash = text.find('/'); slash != std::string_view::npos) {
    auto n = wholeNumber(text.substr(0, slash));
    auto d = wholeNumber(text.substr(slash + 1));
    if (!n || !d) return invalid();
    num = *n;
    den = *d;
  } else if (auto point = text.find('.'); point != std::string_view::npos) {
    std::string_view whole = text.substr(0, point);
    std::string_view frac = text.substr(point + 1);
    if (frac.empty() || frac.size() > 6) return invalid();
    auto w = whole.empty() ? std::optional<int64_t>(0) : wholeNumber(whole);
    auto f = wholeNumber(frac);
    if (!w || !f) return invalid();
    for (size_t i = 0; i < frac.size(); ++i) den *= 10;
    num = *w * den + *f;
  } else {
    auto n = wholeNumber(text);
    if (!n) return invalid();
    num = *n;
  }
  if (num <= 0 || den <= 0) return invalid();
  const int64_t g = std::gcd(num, den);
  ClusterScale scale{num / g, den / g};
  if (scale.numerator > kMaxPart || scale.denominator > kMaxPart) return invalid();
  return scale;
}

Result<ClusterSpec> scaleCluster(const ClusterSpec& cluster, ClusterScale scale,
                                 const std::string& field) {
  if (scale.isOne()) return cluster;
  if (cluster.listed_nodes > 0) {
    return makeError(ErrorCode::Invalid, field,
                     fmt::format("the cluster file lists {} nodes one by one (nodes:); only "
                                 "nodePools can be scaled, so the scale must be 1, got {}",
                                 cluster.listed_nodes, scale.str()));
  }
  const int64_t p = scale.numerator, q = scale.denominator;
  ClusterSpec out;
  out.default_queue = cluster.default_queue;
  for (NodePool pool : cluster.pools) {
    // round(c * p / q), halves up: floor((2cp + q) / 2q). c <= 10^6 and p <= 10^6 keep
    // the products far inside 64 bits.
    pool.count = std::max<int64_t>(1, (2 * pool.count * p + q) / (2 * q));
    expandPool(pool, out.nodes);
    out.pools.push_back(std::move(pool));
  }
  for (QueueSpec queue : cluster.queues) {
    queue.guaranteed_gpus = queue.guaranteed_gpus * p / q;
    if (queue.limit_gpus) queue.limit_gpus = *queue.limit_gpus * p / q;
    out.queues.push_back(std::move(queue));
  }
  return out;
}

}  // namespace troupe::simulator
