// The flat pending order (queueing/pending_list.h) must give the cycle's walk exactly what
// an iterator over an ordered set of the same gangs gave: the same order, and the same
// gangs visited when gangs arrive or leave in the middle of a walk. Small stories first,
// then thousands of random operations checked against a std::set.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "queueing/engine_state.h"
#include "queueing/pending_list.h"

namespace troupe::queueing {
namespace {

struct Gangs {
  std::vector<GangState> all;
  GangId add(std::string name, std::int32_t priority, Seconds submit) {
    GangState g;
    g.spec.name = std::move(name);
    g.spec.priority = priority;
    g.spec.submit_time = submit;
    all.push_back(std::move(g));
    return static_cast<GangId>(all.size() - 1);
  }
  // Adds a gang and puts it in `list`.
  GangId insert(PendingList& list, std::string name, std::int32_t priority, Seconds submit) {
    const GangId g = add(std::move(name), priority, submit);
    list.insert(g);
    return g;
  }
};

std::vector<std::string> walkAll(PendingList& list, const Gangs& gangs) {
  std::vector<std::string> names;
  list.beginWalk();
  for (GangId g = list.next(); g != kNoGang; g = list.next())
    names.push_back(gangs.all[g].spec.name);
  list.endWalk();
  return names;
}

TEST_CASE("pending gangs are walked by priority, then submit time, then whole name") {
  Gangs gangs;
  PendingList list(&gangs.all);
  // The first 16 bytes of the last two names are equal: the whole names decide.
  gangs.insert(list, "team-a/late", 0, 20);
  const GangId urgent = gangs.insert(list, "team-a/urgent", 5, 30);
  gangs.insert(list, "team-a/early", 0, 10);
  gangs.insert(list, "team-a/pretrain-run-b", 0, 15);
  const GangId long_a = gangs.insert(list, "team-a/pretrain-run-a", 0, 15);
  CHECK(list.size() == 5);
  CHECK(gangs.all[list.front()].spec.name == "team-a/urgent");
  CHECK(walkAll(list, gangs) == std::vector<std::string>{"team-a/urgent", "team-a/early",
                                                         "team-a/pretrain-run-a",
                                                         "team-a/pretrain-run-b", "team-a/late"});
  list.erase(long_a);
  list.erase(urgent);
  CHECK(list.size() == 3);
  CHECK(walkAll(list, gangs) ==
        std::vector<std::string>{"team-a/early", "team-a/pretrain-run-b", "team-a/late"});
}

TEST_CASE("a gang arriving during a walk is visited only if it sorts after the next visit") {
  Gangs gangs;
  PendingList list(&gangs.all);
  const GangId a = gangs.insert(list, "a", 0, 10);
  const GangId c = gangs.insert(list, "c", 0, 30);
  const GangId e = gangs.insert(list, "e", 0, 50);
  list.beginWalk();
  CHECK(list.next() == a);
  CHECK(list.next() == c);         // the walk now stands on e, as an iterator moved past c would
  list.erase(c);                   // admitted: leaves the list while the walk is on
  gangs.insert(list, "b", 0, 20);  // before the walk's place: not visited in this walk
  gangs.insert(list, "d", 0, 40);  // between the last visit and the next: not visited either
  const GangId f = gangs.insert(list, "f", 0, 60);  // after the next visit: visited
  CHECK(list.peek() == e);
  CHECK(list.next() == e);
  CHECK(list.next() == f);
  CHECK(list.next() == kNoGang);
  list.endWalk();
  CHECK(list.ahead(1) == kNoGang);  // no walk: nothing is about to be visited
  CHECK(walkAll(list, gangs) == std::vector<std::string>{"a", "b", "d", "e", "f"});
}

TEST_CASE("erasing most of a long queue during a walk keeps the walk on its next gang") {
  Gangs gangs;
  PendingList list(&gangs.all);
  std::vector<GangId> ids;
  for (int i = 0; i < 1000; ++i)
    ids.push_back(gangs.insert(list, "g-" + std::to_string(10000 + i), 0, i));
  list.beginWalk();
  for (int i = 0; i < 900; ++i) {
    REQUIRE(list.next() == ids[static_cast<std::size_t>(i)]);
    list.erase(ids[static_cast<std::size_t>(i)]);  // dead entries outnumber live: compacted
  }
  // An arrival in the middle of the walk compacts the dead entries first.
  const GangId early = gangs.insert(list, "g-early", 0, -1);
  CHECK(list.next() == ids[900]);
  list.endWalk();
  CHECK(list.size() == 101);
  CHECK(list.front() == early);
}

// The reference: an ordered set and an iterator into it, as the walk used before.
struct SetModel {
  explicit SetModel(const std::vector<GangState>* gangs) : set(PendingOrder{gangs}) {}
  std::set<GangId, PendingOrder> set;
  std::set<GangId, PendingOrder>::iterator cursor;
  bool walking = false;
  GangId next() {
    if (cursor == set.end()) return kNoGang;
    return *cursor++;
  }
  void erase(GangId g) {
    if (walking && cursor != set.end() && *cursor == g) ++cursor;
    set.erase(g);
  }
};

TEST_CASE("random arrivals, departures and walks match an ordered set with an iterator") {
  std::mt19937_64 random(20171001);
  for (int round = 0; round < 200; ++round) {
    Gangs gangs;
    const int population = 1 + static_cast<int>(random() % 300);
    // Few priorities and submit times, and names that share their first 16 bytes, so that
    // every tie-break is exercised; ids are reused with a new spec once out of the list.
    auto reroll = [&](GangState& g, int i) {
      g.spec.priority = static_cast<std::int32_t>(random() % 3);
      g.spec.submit_time = static_cast<Seconds>(random() % 5);
      g.spec.name = (random() % 2 ? "namespace-x/job-with-long-name-" : "n/") +
                    std::to_string(random() % 1000) + "-" + std::to_string(i);
    };
    for (int i = 0; i < population; ++i) {
      gangs.add("", 0, 0);
      reroll(gangs.all.back(), i);
    }
    PendingList list(&gangs.all);
    SetModel model(&gangs.all);
    std::vector<std::uint8_t> in(static_cast<std::size_t>(population), 0);
    for (int op = 0; op < 2000; ++op) {
      const auto g = static_cast<GangId>(random() % static_cast<std::uint64_t>(population));
      const auto choice = random() % 100;
      if (choice < 35) {
        if (in[g]) {
          list.erase(g);
          model.erase(g);
          in[g] = 0;
        } else {
          reroll(gangs.all[g], static_cast<int>(g));
          list.insert(g);
          model.set.insert(g);
          in[g] = 1;
        }
      } else if (choice < 70) {
        if (model.walking) REQUIRE(list.next() == model.next());
      } else if (choice < 75) {
        if (!model.walking) {
          list.beginWalk();
          model.cursor = model.set.begin();
          model.walking = true;
        } else {
          list.endWalk();
          model.walking = false;
        }
      } else if (choice < 80 && !model.walking && !model.set.empty()) {
        REQUIRE(list.front() == *model.set.begin());
      }
      REQUIRE(list.size() == model.set.size());
      if (op % 16 == 0) {
        // When the next gang starts to starve, from the entries' keys alone (submit times
        // are 0 to 4: every answer, none included, comes up).
        const auto now = static_cast<Seconds>(random() % 9);
        const auto wait = static_cast<Seconds>(random() % 6);
        Seconds want = std::numeric_limits<Seconds>::max();
        for (GangId g : model.set) {
          const Seconds starves = gangs.all[g].spec.submit_time + wait;
          if (starves > now) want = std::min(want, starves);
        }
        REQUIRE(list.nextStarving(now, wait) == want);
      }
    }
  }
}

}  // namespace
}  // namespace troupe::queueing
