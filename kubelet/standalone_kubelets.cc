#include "kubelet/standalone_kubelets.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "common/log.h"

namespace troupe::kubelet {

namespace {

// The simulated kubelets stand for other machines: in a real cluster they would not take
// CPU from the API server and the scheduler, yet here they share its cores, and a burst
// of pods starting (thousands of status writes and watch events to decode) starved the
// scheduling thread. Their threads run at this nice value. Linux threads inherit their
// creator's, so every thread the cluster starts is created from one that lowered its own.
constexpr int kKubeletNice = 5;

Status startAtLowerPriority(SimulatedCluster& cluster) {
  Status result;
  std::thread starter([&] {
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kKubeletNice) != 0)
      log::warn("simulated kubelets: could not lower their priority",
                {{"error", std::strerror(errno)}});
    result = cluster.start();
  });
  starter.join();
  return result;
}

}  // namespace

struct StandaloneKubelets::Parts {
  SystemTimeSource clock;
  std::unique_ptr<kube::KubeClient> client;
  std::unique_ptr<SimulatedCluster> cluster;
};

Result<std::unique_ptr<StandaloneKubelets>> StandaloneKubelets::start(
    std::unique_ptr<kube::KubeClient> client, SimulatedClusterOptions options) {
  std::unique_ptr<StandaloneKubelets> kubelets(new StandaloneKubelets());
  kubelets->parts_ = std::make_unique<Parts>();
  Parts& parts = *kubelets->parts_;
  parts.client = std::move(client);
  parts.cluster = std::make_unique<SimulatedCluster>(*parts.client, options, parts.clock);
  kubelets->cluster_ = parts.cluster.get();
  if (auto started = startAtLowerPriority(*parts.cluster); !started) return started.error();
  return kubelets;
}

StandaloneKubelets::~StandaloneKubelets() { stop(); }

void StandaloneKubelets::stop() {
  if (parts_ && parts_->cluster) parts_->cluster->stop();
}

}  // namespace troupe::kubelet
