#pragma once

#include <atomic>

// Whether something changed that a scheduling cycle should see: set by the informers'
// handlers and the reconcilers on any thread, taken by the scheduling thread when it starts
// a cycle. A leader's first cycle is asked for from the start.
namespace troupe::controllers {

class CycleRequest {
 public:
  void ask() { asked_ = true; }
  bool asked() const { return asked_.load(); }
  // Clears the request: a change after this asks for the next cycle.
  void take() { asked_ = false; }

 private:
  std::atomic<bool> asked_{true};
};

}  // namespace troupe::controllers
