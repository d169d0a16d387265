#include "cli/kubectl_plugin.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include "cli/cluster_objects.h"
#include "cli/reports.h"
#include "kube/config_loader.h"
#include "kube/in_cluster_config.h"
#include "kube/kubeconfig.h"
#include "kube/rest_kube_client.h"

namespace troupe::cli {
namespace {

struct PluginFlags {
  std::string kubeconfig;
  std::string context;
  std::string ns;
  bool all_namespaces = false;
  std::string resource = "nvidia.com/gpu";
  bool all = false;
  std::string job;
};

// Reads what `kinds` names and prints `report` of it; 1 on failure, with the reason.
int run(
    const PluginFlags& flags, const Kinds& kinds, const std::string& ns,
    const std::function<Result<std::string>(const ClusterObjects&, const ReportOptions&)>& report) {
  auto config = kube::loadClientConfig(
      kube::kubeconfigOptionsFromEnvironment(flags.kubeconfig, flags.context),
      kube::InClusterEnvironment{});
  if (!config) {
    fmt::print(stderr, "kubectl troupe: {}\n", config.error().describe());
    return 1;
  }
  config->qps = 0;  // a handful of lists: no client-side limit
  config->max_retries = 1;
  config->user_agent = "kubectl-troupe";
  auto client = kube::RestKubeClient::create(*config);
  if (!client) {
    fmt::print(stderr, "kubectl troupe: {}\n", client.error().describe());
    return 1;
  }
  auto objects = readClusterObjects(**client, kinds, ns);
  if (!objects) {
    fmt::print(stderr, "kubectl troupe: cannot list {}: {}\n", objects.error().field_path,
               objects.error().message);
    return 1;
  }
  ReportOptions options;
  options.resource = flags.resource;
  options.all = flags.all;
  // Colours only for a terminal, and never when NO_COLOR is set (no-color.org).
  options.color = isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
  auto text = report(*objects, options);
  if (!text) {
    fmt::print(stderr, "kubectl troupe: {}\n", text.error().message);
    return 1;
  }
  fmt::print("{}", *text);
  return 0;
}

// The namespace a namespaced command reads: -n, else every namespace.
std::string scope(const PluginFlags& flags) { return flags.all_namespaces ? "" : flags.ns; }

}  // namespace

int runKubectlPlugin(int argc, char** argv) {
  CLI::App app{"kubectl troupe: Troupe's queues, jobs and GPUs, read from the Kubernetes API"};
  app.name("kubectl troupe");
  app.require_subcommand(1);
  // --kubeconfig and --context may come after the command too, as kubectl takes them.
  app.fallthrough();
  auto flags = std::make_shared<PluginFlags>();
  app.add_option("--kubeconfig", flags->kubeconfig,
                 "Path to the kubeconfig (default: $KUBECONFIG, ~/.kube/config)");
  app.add_option("--context", flags->context, "The kubeconfig context to use");
  int code = 0;

  auto* queues =
      app.add_subcommand("queues", "The queue tree with usage bars and who borrows from whom");
  queues->add_option("--resource", flags->resource, "The resource to draw")->capture_default_str();
  queues->callback([&] {
    code = run(*flags, Kinds{true, false, false, true}, "",
               [](const ClusterObjects& o, const ReportOptions& r) -> Result<std::string> {
                 return queuesReport(o, r);
               });
  });

  auto* why = app.add_subcommand(
      "why", "Why a job waits: the pending reason with its numbers, and what would make it run");
  why->add_option("job", flags->job, "The TrainingJob (or PodGroup) name")->required();
  why->add_option("-n,--namespace", flags->ns, "Its namespace (default: the context's)");
  why->callback([&] {
    // A gang's place in line depends on every namespace's gangs in its queue.
    std::string ns = flags->ns;
    if (ns.empty()) {
      auto config = kube::loadClientConfig(
          kube::kubeconfigOptionsFromEnvironment(flags->kubeconfig, flags->context),
          kube::InClusterEnvironment{});
      ns = config ? config->ns : "default";
    }
    code = run(*flags, Kinds{true, true, true, false}, "",
               [&](const ClusterObjects& o, const ReportOptions& r) {
                 return whyReport(o, ns, flags->job, r);
               });
  });

  auto* top = app.add_subcommand("top", "GPUs held by queue, namespace and node");
  top->add_option("-n,--namespace", flags->ns, "Only pods of this namespace (default: all)");
  top->callback([&] {
    code = run(*flags, Kinds{false, true, true, true}, scope(*flags),
               [](const ClusterObjects& o, const ReportOptions& r) -> Result<std::string> {
                 return topReport(o, r);
               });
  });

  auto* jobs = app.add_subcommand(
      "jobs", "Jobs by queue, with phase, wait, estimated position and pending reason");
  jobs->add_option("-n,--namespace", flags->ns, "Only jobs of this namespace (default: all)");
  jobs->add_flag("--all", flags->all, "Finished jobs too");
  jobs->callback([&] {
    code = run(*flags, Kinds{false, true, true, false}, scope(*flags),
               [](const ClusterObjects& o, const ReportOptions& r) -> Result<std::string> {
                 return jobsReport(o, r);
               });
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return code;
}

}  // namespace troupe::cli
