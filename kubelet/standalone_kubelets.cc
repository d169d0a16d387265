#include "kubelet/standalone_kubelets.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "common/log.h"
#include "kube/beast_kube_client.h"
#include "kube/kubeconfig.h"

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
  std::unique_ptr<kube::BeastKubeClient> client;
  std::unique_ptr<SimulatedCluster> cluster;
};

Result<std::unique_ptr<StandaloneKubelets>> StandaloneKubelets::start(
    const std::string& kubeconfig, SimulatedClusterOptions options) {
  kube::KubeconfigOptions source;
  source.explicit_path = kubeconfig;
  auto config = kube::loadKubeconfig(source);
  if (!config) return config.error();
  // Thousands of pods change state in bursts (a gang starts or ends at once); the
  // server is local, so the client-side limit only guards against runaway loops and sits
  // above what the server can commit (operator/cmd_serve.cc says why).
  config->qps = 20000;
  config->burst = 20000;
  config->max_idle_connections = options.workers + 4;
  config->user_agent = "troupe-kubelet (simulated)";
  auto client = kube::BeastKubeClient::create(*config);
  if (!client) return client.error();

  std::unique_ptr<StandaloneKubelets> kubelets(new StandaloneKubelets());
  kubelets->parts_ = std::make_unique<Parts>();
  Parts& parts = *kubelets->parts_;
  parts.client = std::move(client.value());
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
