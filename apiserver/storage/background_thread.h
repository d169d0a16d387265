#pragma once

#include <thread>
#include <utility>

#include <pthread.h>
#include <signal.h>

#include "common/thread_name.h"

// The store's own threads: named (top -H, perf, gdb show them) and deaf to asynchronous
// signals, so that SIGTERM and SIGINT reach the application's threads (a sigwait loop,
// say) even when the store was opened before the application blocked them.
namespace troupe::apiserver {

template <typename Body>
std::thread startBackgroundThread(const char* name, Body body) {
  sigset_t all;
  sigfillset(&all);
  // Faults stay deliverable: blocking them would make a crash undiagnosable.
  for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&all, fault);
  // Blocked here, around the thread's creation, not by the thread itself: a new thread
  // inherits its creator's mask, so there is no moment when a signal sent to the process
  // (the application's SIGTERM) can land on a store thread that has not blocked it yet.
  struct MaskGuard {
    sigset_t previous;
    explicit MaskGuard(const sigset_t& block) { pthread_sigmask(SIG_BLOCK, &block, &previous); }
    ~MaskGuard() { pthread_sigmask(SIG_SETMASK, &previous, nullptr); }
    MaskGuard(const MaskGuard&) = delete;
    MaskGuard& operator=(const MaskGuard&) = delete;
  } guard(all);
  return std::thread([name, body = std::move(body)]() mutable {
    nameThisThread(name);
    body();
  });
}

}  // namespace troupe::apiserver
