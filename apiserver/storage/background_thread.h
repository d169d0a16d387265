#pragma once

#include <thread>
#include <utility>

#include <pthread.h>
#include <signal.h>

// The store's own threads: named (top -H, perf, gdb show them) and deaf to asynchronous
// signals, so that SIGTERM and SIGINT reach the application's threads (a sigwait loop,
// say) even when the store was opened before the application blocked them.
namespace troupe::apiserver {

template <typename Body>
std::thread startBackgroundThread(const char* name, Body body) {
  return std::thread([name, body = std::move(body)]() mutable {
    sigset_t all;
    sigfillset(&all);
    // Faults stay deliverable: blocking them would make a crash undiagnosable.
    for (int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&all, fault);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), name);  // at most 15 characters
    body();
  });
}

}  // namespace troupe::apiserver
