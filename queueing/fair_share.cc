#include "queueing/fair_share.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include "common/check.h"

namespace troupe::queueing {
namespace {

using Fractions = std::vector<double>;

// Step 1 for one resource: each child gets min(guaranteed, wanted), scaled down in
// proportion to those amounts when the parent has less than their sum.
void grantGuaranteed(std::int64_t available, const std::vector<std::int64_t>& entitled,
                     std::vector<std::int64_t>& granted) {
  const std::int64_t total = std::accumulate(entitled.begin(), entitled.end(), std::int64_t{0});
  if (total <= available) {
    granted = entitled;
    return;
  }
  std::int64_t given = 0;
  for (std::size_t i = 0; i < entitled.size(); ++i) {
    // entitled[i] * available / total, in long double: quantities reach 2^60 (unlimited).
    granted[i] = static_cast<std::int64_t>(static_cast<long double>(entitled[i]) *
                                           static_cast<long double>(available) /
                                           static_cast<long double>(total));
    granted[i] = std::min(granted[i], entitled[i]);
    given += granted[i];
  }
  // Floors leave < n units; hand them out in index order (children are sorted by name).
  for (std::size_t i = 0; i < entitled.size() && given < available; ++i) {
    if (granted[i] < entitled[i]) {
      ++granted[i];
      ++given;
    }
  }
}

// Step 2: DRF progressive filling of the pool. Every child with weight > 0 grows along its
// own want vector at a speed proportional to weight / dominant share of its want, so the
// weighted dominant shares rise together; a child stops when its want is met or when a
// resource it uses runs out. Returns the fraction of its want each child receives.
Fractions progressiveFill(const ResourceVector& pool, const std::vector<ResourceVector>& want,
                          const std::vector<std::int64_t>& weight, const ResourceVector& scale) {
  const std::size_t n = want.size();
  Fractions fraction(n, 0.0);
  std::vector<double> speed(n, 0.0);  // d fraction / d t
  std::vector<bool> active(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    if (weight[i] <= 0 || want[i].isZero()) continue;
    double dominant = 0;
    for (std::size_t r = 0; r < kMaxResources; ++r) {
      if (want[i][r] <= 0) continue;
      dominant = std::max(dominant, static_cast<double>(want[i][r]) /
                                        static_cast<double>(std::max<std::int64_t>(scale[r], 1)));
    }
    if (dominant <= 0) continue;
    speed[i] = static_cast<double>(weight[i]) / dominant;
    active[i] = true;
  }
  std::array<double, kMaxResources> left{};
  for (std::size_t r = 0; r < kMaxResources; ++r) left[r] = static_cast<double>(pool[r]);
  std::array<bool, kMaxResources> exhausted{};
  for (std::size_t r = 0; r < kMaxResources; ++r) exhausted[r] = pool[r] <= 0;
  // Children wanting an exhausted resource cannot grow at all.
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t r = 0; r < kMaxResources && active[i]; ++r)
      if (want[i][r] > 0 && exhausted[r]) active[i] = false;

  while (true) {
    // The step dt until the next event: a child's want is met, or a resource runs out.
    double dt = std::numeric_limits<double>::infinity();
    std::array<double, kMaxResources> slope{};
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      any = true;
      dt = std::min(dt, (1.0 - fraction[i]) / speed[i]);
      for (std::size_t r = 0; r < kMaxResources; ++r)
        slope[r] += speed[i] * static_cast<double>(want[i][r]);
    }
    if (!any) break;
    for (std::size_t r = 0; r < kMaxResources; ++r)
      if (slope[r] > 0) dt = std::min(dt, left[r] / slope[r]);
    for (std::size_t i = 0; i < n; ++i)
      if (active[i]) fraction[i] = std::min(1.0, fraction[i] + speed[i] * dt);
    for (std::size_t r = 0; r < kMaxResources; ++r) {
      left[r] -= slope[r] * dt;
      if (slope[r] > 0 && left[r] <= 1e-9 * std::max(1.0, static_cast<double>(pool[r]))) {
        left[r] = 0;
        exhausted[r] = true;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      if (fraction[i] >= 1.0 - 1e-12) {
        fraction[i] = 1.0;
        active[i] = false;
        continue;
      }
      for (std::size_t r = 0; r < kMaxResources; ++r)
        if (want[i][r] > 0 && exhausted[r]) active[i] = false;
    }
  }
  return fraction;
}

// Step 2b: what DRF left of a resource (because the children that want it stopped on
// another, exhausted resource) is water-filled by weight among the children that still
// want that resource, resource by resource: idle capacity nobody contends for is part of
// the fair share of those who want it, so holding it does not count as being over share.
void fillLeftovers(const ResourceVector& pool, const std::vector<ResourceVector>& want,
                   const std::vector<std::int64_t>& weight,
                   std::vector<std::array<double, kMaxResources>>& got) {
  const std::size_t n = want.size();
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    double left = static_cast<double>(pool[r]);
    for (std::size_t i = 0; i < n; ++i) left -= got[i][r];
    std::vector<std::size_t> active;
    for (std::size_t i = 0; i < n; ++i)
      if (weight[i] > 0 && static_cast<double>(want[i][r]) - got[i][r] > 1e-9) active.push_back(i);
    // Water-filling: the child whose remaining want per weight is smallest is met first.
    std::sort(active.begin(), active.end(), [&](std::size_t a, std::size_t b) {
      const double ra =
          (static_cast<double>(want[a][r]) - got[a][r]) / static_cast<double>(weight[a]);
      const double rb =
          (static_cast<double>(want[b][r]) - got[b][r]) / static_cast<double>(weight[b]);
      return ra != rb ? ra < rb : a < b;
    });
    double total_weight = 0;
    for (std::size_t i : active) total_weight += static_cast<double>(weight[i]);
    for (std::size_t i : active) {
      if (left <= 1e-9 || total_weight <= 0) break;
      const double portion = left * static_cast<double>(weight[i]) / total_weight;
      const double give = std::min(portion, static_cast<double>(want[i][r]) - got[i][r]);
      got[i][r] += give;
      left -= give;
      total_weight -= static_cast<double>(weight[i]);
    }
  }
}

}  // namespace

double dominantShare(const ResourceVector& allocated, const ResourceVector& fair_share) {
  double share = 0;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (allocated[r] <= 0) continue;
    // Holding a resource with no fair share of it counts as twice over per unit held.
    const double fair = fair_share[r] > 0 ? static_cast<double>(fair_share[r]) : 0.5;
    share = std::max(share, static_cast<double>(allocated[r]) / fair);
  }
  return share;
}

double guaranteeShare(const ResourceVector& allocated, const ResourceVector& guaranteed) {
  double share = 0;
  bool named = false;
  for (std::size_t r = 0; r < kMaxResources; ++r) {
    if (guaranteed[r] <= 0) continue;
    named = true;
    share = std::max(share, static_cast<double>(std::max<std::int64_t>(allocated[r], 0)) /
                                static_cast<double>(guaranteed[r]));
  }
  if (named) return share;
  for (std::size_t r = 0; r < kMaxResources; ++r)
    if (allocated[r] > 0) return std::numeric_limits<double>::infinity();
  return 0;
}

std::vector<ResourceVector> computeFairShares(const std::vector<FairShareQueue>& queues,
                                              const ResourceVector& capacity) {
  const std::size_t n = queues.size();
  std::vector<std::vector<int>> children(n + 1);  // index n stands for the root
  for (std::size_t i = 0; i < n; ++i) {
    const int parent = queues[i].parent;
    TROUPE_CHECK(parent < static_cast<int>(i), "queue {} listed before its parent {}", i, parent);
    children[parent < 0 ? n : static_cast<std::size_t>(parent)].push_back(static_cast<int>(i));
  }
  // Demand bottom-up: a leaf's own, an inner queue's the sum of its children's; each
  // capped by the queue's limit.
  std::vector<ResourceVector> wanted(n);
  for (std::size_t k = n; k-- > 0;) {
    const auto& q = queues[k];
    ResourceVector d = children[k].empty() ? q.demand : wanted[k];
    if (!children[k].empty()) {
      d = ResourceVector{};
      for (int c : children[k]) d += wanted[static_cast<std::size_t>(c)];
    }
    wanted[k] = ResourceVector::max(ResourceVector::min(d, q.limit), ResourceVector{});
  }

  std::vector<ResourceVector> share(n);
  // Top-down: distribute `available` among the children of `parent`.
  auto distribute = [&](std::size_t parent, const ResourceVector& available) {
    const auto& kids = children[parent];
    const std::size_t k = kids.size();
    if (k == 0) return;
    std::vector<ResourceVector> granted(k), want(k);
    std::vector<std::int64_t> weight(k);
    ResourceVector pool = available;
    for (std::size_t r = 0; r < kMaxResources; ++r) {
      std::vector<std::int64_t> entitled(k), got(k);
      for (std::size_t j = 0; j < k; ++j) {
        const auto c = static_cast<std::size_t>(kids[j]);
        entitled[j] = std::min(queues[c].guaranteed[r], wanted[c][r]);
      }
      grantGuaranteed(std::max<std::int64_t>(available[r], 0), entitled, got);
      for (std::size_t j = 0; j < k; ++j) {
        const auto c = static_cast<std::size_t>(kids[j]);
        granted[j][r] = got[j];
        pool[r] -= got[j];
        // Unused guaranteed beyond the lending limit stays with its owner, idle.
        const std::int64_t unused = std::max<std::int64_t>(queues[c].guaranteed[r] - got[j], 0);
        pool[r] -= std::max<std::int64_t>(unused - queues[c].lending_limit[r], 0);
      }
      pool[r] = std::max<std::int64_t>(pool[r], 0);
    }
    for (std::size_t j = 0; j < k; ++j) {
      const auto c = static_cast<std::size_t>(kids[j]);
      want[j] = ResourceVector::max(wanted[c] - granted[j], ResourceVector{});
      weight[j] = queues[c].over_quota_weight;
    }
    const Fractions fraction = progressiveFill(pool, want, weight, available);
    std::vector<std::array<double, kMaxResources>> got(k);
    for (std::size_t j = 0; j < k; ++j)
      for (std::size_t r = 0; r < kMaxResources; ++r)
        got[j][r] = fraction[j] * static_cast<double>(want[j][r]);
    fillLeftovers(pool, want, weight, got);
    // Step 2c: what is still left of a resource once every child with a weight had its
    // fill is capacity no such sibling wants; the children of weight 0 share it equally.
    // Weight 0 means never taking what a sibling with a weight wants: without this, a
    // team guaranteed GPUs alone, with weight 0, had no CPU share at all, and the CPU its
    // pods hold made it look far above its share, so it could never take its GPUs back.
    std::vector<std::int64_t> unweighted(k, 0);
    bool any_unweighted = false;
    for (std::size_t j = 0; j < k; ++j) {
      unweighted[j] = weight[j] <= 0 ? 1 : 0;
      any_unweighted = any_unweighted || weight[j] <= 0;
    }
    if (any_unweighted) fillLeftovers(pool, want, unweighted, got);
    for (std::size_t j = 0; j < k; ++j) {
      const auto c = static_cast<std::size_t>(kids[j]);
      share[c] = granted[j];
      for (std::size_t r = 0; r < kMaxResources; ++r)
        share[c][r] += static_cast<std::int64_t>(got[j][r] + 1e-6);
    }
  };
  distribute(n, capacity);
  for (std::size_t i = 0; i < n; ++i) distribute(i, share[i]);
  return share;
}

}  // namespace troupe::queueing
