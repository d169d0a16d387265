#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "queueing/engine_state.h"

namespace troupe::queueing {

// What each gang has run so far, as a scheduler that counts service keeps it (Tiresias'
// attained service, SRTF's work done): brought up to each cycle's time from the gangs
// running since the last one. Pure: it reads only the state and the cycles' times.
// Evictions do not take service back: the engine does not know what a gang's checkpoints
// kept.
class AttainedService {
 public:
  struct Record {
    std::string name;  // the gang the record is of: ids are reused after a removal
    double gpu_seconds = 0;
    Seconds run_seconds = 0;
    // Since the gang last started, and how long its last run lasted (0: never ran).
    Seconds last_start = 0;
    Seconds last_run = 0;
    // When it last stopped running, or its submit time if it never ran.
    Seconds waiting_since = 0;
    bool running = false;
    // Service a policy has chosen to disregard from here on (Tiresias' promotion of a
    // starving gang): it ranks by gpu_seconds - forgiven.
    double forgiven = 0;
  };

  // At a cycle's start: counts the service of the gangs that ran since the last cycle.
  void advance(const EngineState& st, Seconds now);
  // At a cycle's end: notes the gangs it started and stopped.
  void settle(const EngineState& st, Seconds now);
  // Gang g stopped running at `now` (evicted), if its record says it runs.
  void stopped(const EngineState& st, GangId g, Seconds now);
  // Disregards g's service so far (Record::forgiven).
  void forgive(const EngineState& st, GangId g) {
    Record& r = recordOf(st, g);
    r.forgiven = r.gpu_seconds;
  }
  // The record of gang g (a fresh one for a gang not seen before).
  const Record& of(const EngineState& st, GangId g);

 private:
  Record& recordOf(const EngineState& st, GangId g);

  // By GangId.
  std::vector<Record> records_;
  // The running gangs as of the last cycle's end.
  std::vector<GangId> running_;
  Seconds last_ = 0;
};

}  // namespace troupe::queueing
