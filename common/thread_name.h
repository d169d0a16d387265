#pragma once

#include <string>
#include <string_view>

#include <pthread.h>

// Names the calling thread, so that top -H, perf and gdb tell Troupe's threads apart (the
// API server's handlers from the operator's scheduling thread, its reconcile workers and
// the simulated kubelets). Linux keeps at most 15 characters; longer names are cut.
namespace troupe {

inline void nameThisThread(std::string_view name) {
  std::string cut(name.substr(0, 15));
  pthread_setname_np(pthread_self(), cut.c_str());
}

}  // namespace troupe
