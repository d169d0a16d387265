#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "controllers/cluster_snapshot.h"
#include "test/controllers/builders.h"

// A snapshot built from a recycled one must be the snapshot a fresh build gives: whatever
// changed between the two builds, whether or not the last one was recycled, in whatever
// order the objects come.
using namespace troupe::controllers;
using namespace troupe::controllers::testing;

namespace {

// Everything a snapshot says, resource slots by name.
Json snapshotContents(const ClusterSnapshot& c) {
  auto vec = [&](const troupe::queueing::ResourceVector& v) {
    Json out = Json::object();
    for (std::size_t slot = 0; slot < c.names.size(); ++slot)
      if (v[slot] != 0) out[c.names.name(slot)] = v[slot];
    return out;
  };
  auto spec = [&](const troupe::queueing::GangSpec& g) {
    Json sets = Json::array();
    for (const auto& ps : g.pod_sets)
      sets.push_back({{"requests", vec(ps.shape->requests)},
                      {"selector", ps.shape->node_selector.size()},
                      {"count", ps.count},
                      {"min", ps.min_count}});
    return Json{{"name", g.name},
                {"queue", g.queue},
                {"priority", g.priority},
                {"submit", g.submit_time},
                {"preemptible", g.preemptible},
                {"sets", sets}};
  };
  Json out = Json::object();
  out["now"] = c.snapshot.now;
  for (const auto& n : c.snapshot.nodes) {
    Json labels = Json::object();
    for (const auto& [k, v] : n.labels) labels[k] = v;
    out["nodes"].push_back({{"name", n.name},
                            {"labels", labels},
                            {"allocatable", vec(n.allocatable)},
                            {"ready", n.ready}});
  }
  for (const auto& g : c.snapshot.pending) out["pending"].push_back(spec(g));
  for (std::size_t i = 0; i < c.snapshot.running.size(); ++i) {
    const auto& r = c.snapshot.running[i];
    Json pods = Json::array();
    for (const auto& p : r.pods)
      pods.push_back({{"set", p.pod_set}, {"node", p.node}, {"gpus", p.gpus}});
    out["running"].push_back({{"spec", spec(r.spec)},
                              {"start", r.start_time},
                              {"started", static_cast<bool>(c.running_started.at(i))},
                              {"pods", pods}});
  }
  for (const auto& [key, g] : c.gangs) {
    Json pods = Json::array();
    for (const auto& p : g.pods)
      pods.push_back(fmt::format("{}/{} set {} node {} {}", p.ns(), p.name(), p.pod_set, p.node(),
                                 p.deleting() ? "deleting" : ""));
    out["gangs"][key] = {{"queue", g.queue},
                         {"state", static_cast<int>(g.state)},
                         {"min", g.min_member},
                         {"bound", vec(g.bound_requests)},
                         {"pods", pods}};
  }
  for (const auto& p : c.problems)
    out["problems"].push_back(p.kind + " " + p.key + ": " + p.error.describe());
  return out;
}

// A cluster that changes at random, listed in key order as the caches list it.
class RandomCluster {
 public:
  explicit RandomCluster(std::uint32_t seed) : rng_(seed) {
    for (int n = 0; n < 6; ++n) setNode(n, 0);
    for (int g = 0; g < 12; ++g) setGroup(g);
    for (int p = 0; p < 40; ++p) setPod(p);
    classes_ = {{"low", 10}, {"high", 1000}};
  }

  void change() {
    const int changes = pick(1, 4);
    for (int i = 0; i < changes; ++i) {
      const int what = pick(0, 19);
      if (what < 10) {
        setPod(pick(0, 49));
      } else if (what < 12) {
        pods_.erase(podKey(pick(0, 49)));
      } else if (what < 15) {
        setGroup(pick(0, 13));
      } else if (what < 16) {
        groups_.erase(groupKey(pick(0, 13)));
      } else if (what < 18) {
        const int n = pick(0, 6);
        if (pick(0, 3) == 0)
          nodes_.erase(nodeName(n));
        else
          setNode(n, pick(0, 2));
      } else {
        classes_["high"] = pick(0, 1) ? 1000 : 500;
      }
    }
  }

  ApiObjects objects(bool shuffled) {
    ApiObjects out;
    out.queues = {queue("team-a").guaranteedGpus(16), queue("team-b").guaranteedGpus(8)};
    for (const auto& [name, value] : classes_)
      out.priority_classes.push_back(Json{{"metadata", {{"name", name}}}, {"value", value}});
    out.nodes = list(nodes_, shuffled);
    out.pod_groups = list(groups_, shuffled);
    out.pods = list(pods_, shuffled);
    return out;
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

 private:
  static std::string nodeName(int n) { return fmt::format("n{}", n); }
  static std::string groupKey(int g) { return fmt::format("ml/g{:02}", g); }
  static std::string podKey(int p) { return fmt::format("ml/p{:02}", p); }

  ObjectList list(const std::map<std::string, ObjectRef>& objects, bool shuffled) {
    std::vector<ObjectRef> refs;
    for (const auto& [key, ref] : objects) refs.push_back(ref);
    if (shuffled) std::shuffle(refs.begin(), refs.end(), rng_);
    return ObjectList(std::move(refs));
  }

  void setNode(int n, int variant) {
    NodeBuilder b = node(nodeName(n)).gpus(8).rack(variant == 2 ? "r9" : fmt::format("r{}", n / 3));
    if (variant == 1) b.notReady();
    Json j = b;
    if (n == 5) j["status"]["allocatable"]["example.com/fpga"] = "4";
    nodes_[nodeName(n)] = std::make_shared<const Json>(std::move(j));
  }

  void setGroup(int g) {
    PodGroupBuilder b = podGroup("ml", fmt::format("g{:02}", g))
                            .minMember(pick(1, 3))
                            .queue(pick(0, 1) ? "team-a" : "team-b");
    if (pick(0, 4) == 0) b.priorityClass(pick(0, 1) ? "high" : "low");
    if (pick(0, 9) == 0) b.phase("Succeeded");
    Json j = b;
    if (pick(0, 7) == 0) j["metadata"].erase("creationTimestamp");  // submit time is `now`
    groups_[groupKey(g)] = std::make_shared<const Json>(std::move(j));
  }

  void setPod(int p) {
    PodBuilder b = pod("ml", fmt::format("p{:02}", p))
                       .group(fmt::format("g{:02}", pick(0, 13)))
                       .index(pick(0, 3));
    b.gpus(pick(0, 2));
    const int state = pick(0, 9);
    if (state >= 4) b.boundTo(nodeName(pick(0, 6)), pick(0, 1) ? "0" : "");
    if (state == 9) b.phase(pick(0, 1) ? "Succeeded" : "Failed");
    if (pick(0, 9) == 0) b.deleting();
    if (pick(0, 19) == 0) b.scheduler("default-scheduler");
    Json j = b;
    if (state >= 6) j["status"]["startTime"] = fmt::format("2026-01-01T00:00:{:02}Z", pick(0, 59));
    if (pick(0, 5) == 0) j["spec"]["priorityClassName"] = "high";
    if (pick(0, 29) == 0)
      j["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "lots";
    if (pick(0, 14) == 0)
      j["spec"]["containers"][0]["resources"]["requests"]["example.com/fpga"] = "1";
    pods_[podKey(p)] = std::make_shared<const Json>(std::move(j));
  }

  std::mt19937 rng_;
  std::map<std::string, ObjectRef> nodes_, groups_, pods_;
  std::map<std::string, int> classes_;
};

}  // namespace

TEST_CASE("a recycled snapshot gives the snapshot a fresh build gives, change after change",
          "[controllers][snapshot][recycle]") {
  std::size_t recycled = 0;
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    RandomCluster cluster(seed);
    SnapshotFacts kept;
    SnapshotOptions options;
    options.facts = &kept;
    options.now = 1767225630;  // pods start from 1767225600 to 1767225659
    for (int step = 0; step < 40; ++step) {
      INFO("seed " << seed << " step " << step);
      const bool shuffled = cluster.pick(0, 9) == 0;
      const auto objects = cluster.objects(shuffled);
      SnapshotOptions fresh_options;
      fresh_options.now = options.now;
      const auto before = kept.spare.has_value();
      auto built = buildClusterSnapshot(objects, options);
      const auto want = snapshotContents(buildClusterSnapshot(objects, fresh_options));
      const auto got = snapshotContents(built);
      if (got != want) FAIL_CHECK(want.dump(1) << "\n---- recycled:\n" << got.dump(1));
      if (before) ++recycled;
      // Mostly recycled, as the operator does; sometimes not, or built twice in a row, or
      // handed back after a later build, or from a build without the facts.
      const int handling = cluster.pick(0, 15);
      if (handling == 0) {
        cluster.change();
        (void)buildClusterSnapshot(cluster.objects(false), options);
        recycle(std::move(built), kept);  // too old: let go
      } else if (handling == 1) {
        (void)buildClusterSnapshot(objects, options);
      } else if (handling == 2) {
        recycle(buildClusterSnapshot(objects, fresh_options), kept);
      } else if (handling != 3) {
        recycle(std::move(built), kept);
      }
      // Time mostly moves on, sometimes not at all, and now and then steps back.
      options.now += cluster.pick(0, 9) == 0 ? -cluster.pick(1, 5) : cluster.pick(0, 3);
      cluster.change();
    }
  }
  CHECK(recycled > 500);
}
