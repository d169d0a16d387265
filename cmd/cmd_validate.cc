// `troupe validate -f PATH...`: check manifests the way the API server would, before
// applying them.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "admission/listed_cluster_view.h"
#include "admission/object_admission.h"
#include "api/core/node.h"
#include "api/core/pod.h"
#include "api/core/priority_class.h"
#include "api/crd_manifests.h"
#include "api/field_error.h"
#include "api/names.h"
#include "api/pod_group.h"
#include "api/queue.h"
#include "api/status.h"
#include "api/training_job.h"
#include "api/validated.h"
#include "api/well_known.h"
#include "api/yaml.h"
#include "cmd/commands.h"
#include "openapi/schema.h"

namespace troupe::cmd {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Options {
  std::vector<std::string> paths;
  bool recursive = false;
  bool strict = false;
};

// The CRD schemas compiled into the binary, loaded once.
class CrdSchemas {
 public:
  CrdSchemas() {
    for (const auto& manifest : api::crdManifests()) {
      auto doc = api::parseYaml(manifest.yaml);
      TROUPE_CHECK(doc.ok(), "compiled-in CRD {} does not parse: {}", manifest.file,
                   doc.error().describe());
      auto schema =
          openapi::Schema::fromJson((*doc)["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
                                    "spec.versions[0].schema.openAPIV3Schema");
      TROUPE_CHECK(schema.ok(), "compiled-in CRD {} is not structural: {}", manifest.file,
                   schema.error().describe());
      schemas_.emplace(std::string(manifest.kind), std::move(*schema));
    }
  }
  const openapi::Schema* find(const std::string& kind) const {
    auto it = schemas_.find(kind);
    return it == schemas_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, openapi::Schema> schemas_;
};

// "trainingjob.troupe.dev/foo", "node/gpu-r1-n1", as kubectl names objects.
std::string objectName(const json& object) {
  std::string kind = object.value("kind", "");
  std::string api_version = object.value("apiVersion", "");
  std::string lower = kind;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t slash = api_version.find('/');
  std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  std::string name;
  if (object.contains("metadata") && object["metadata"].is_object())
    name = object["metadata"].value("name", object["metadata"].value("generateName", ""));
  std::string out = (group.empty() ? lower : lower + "." + group) + "/" + name;
  if (object.contains("metadata") && object["metadata"].is_object() &&
      object["metadata"].contains("namespace"))
    out += fmt::format(" (ns {})", object["metadata"].value("namespace", ""));
  return out;
}

// The cluster as `kubectl apply` of the manifests would have made it so far: the Queues and
// Namespaces that come before, in order, and passed. A namespace not among them is not known
// (a queue's namespaceSelector cannot be checked for it).
class ManifestClusterView : public admission::ListedClusterView {
 public:
  void add(const json& object) {
    if (!object.is_object()) return;
    const std::string kind = object.value("kind", "");
    if (kind == api::kQueueKind) {
      addQueue(api::decodeAndValidate<api::Queue>(object));
    } else if (kind == "Namespace") {
      std::vector<Error> ignored;
      auto meta = api::ObjectMeta::fromJson(object.value("metadata", json()), ignored);
      addNamespace(meta.name, meta.labels);
    }
  }
};

// What stops an object: kube-apiserver's own checks (for Troupe's kinds, the CRD schema with
// its CEL rules) answer first, as an API server does; only an object they pass reaches the
// chart's admission webhook. Empty: valid.
struct Refusal {
  std::string message;  // the Status message the API server would answer with
  bool refused() const { return !message.empty(); }
};

Refusal refusalOf(const std::vector<Error>& errors, const api::StatusTarget& target) {
  if (errors.empty()) return {};
  return {api::statusFromErrors(errors, target)["message"].get<std::string>()};
}

Refusal admissionRefusal(const json& object, const std::string& kind,
                         const admission::ClusterView& cluster, const api::StatusTarget& target,
                         std::string_view webhook) {
  std::string ns;
  if (object.contains("metadata") && object["metadata"].is_object())
    ns = object["metadata"].value("namespace", "");
  auto verdict =
      admission::admit({admission::Operation::Create, kind, ns, &object, nullptr}, cluster);
  if (verdict.allowed()) return {};
  return {admission::deniedBy(webhook, verdict.status(target))["message"].get<std::string>()};
}

Refusal checkTroupeKind(const json& object, const std::string& kind, const openapi::Schema& schema,
                        bool strict, const admission::ClusterView& cluster,
                        const api::StatusTarget& target, std::vector<std::string>& warnings) {
  std::vector<Error> errors;
  json copy = object;
  for (const auto& field : schema.prune(copy)) {
    if (strict) {
      errors.push_back(Error{ErrorCode::Invalid, field, "Forbidden: unknown field"});
    } else {
      warnings.push_back(fmt::format("unknown field \"{}\"", field));
    }
  }
  schema.applyDefaults(copy);
  auto schema_errors = schema.validate(copy);
  errors.insert(errors.end(), schema_errors.begin(), schema_errors.end());
  if (!errors.empty()) return refusalOf(errors, target);
  return admissionRefusal(copy, kind, cluster, target, admission::kWebhookName);
}

std::vector<Error> checkCoreKind(const std::string& kind, const json& object, bool* known) {
  std::vector<Error> errors;
  *known = true;
  if (kind == "Pod") {
    auto pod = api::core::Pod::fromJson(object, errors);
    if (errors.empty()) errors = pod.validate();
  } else if (kind == "Node") {
    auto node = api::core::Node::fromJson(object, errors);
    if (errors.empty()) {
      api::validateObjectMeta(node.metadata, false, errors);
      if (auto topology = node.gpuTopology(); topology && !topology->ok())
        errors.push_back(topology->error());
    }
  } else if (kind == "PriorityClass") {
    auto pc = api::core::PriorityClass::fromJson(object, errors);
    if (errors.empty()) api::validateObjectMeta(pc.metadata, false, errors);
  } else if (kind == "Namespace") {
    std::vector<Error> decode_errors;
    auto meta = api::ObjectMeta::fromJson(object.value("metadata", json()), decode_errors);
    errors = decode_errors;
    if (errors.empty()) {
      if (auto why = api::checkDnsLabel(meta.name)) {
        errors.push_back(api::invalid("metadata.name", meta.name, *why));
      }
    }
  } else {
    *known = false;
  }
  return errors;
}

std::vector<fs::path> manifestFiles(const std::string& path, bool recursive, int* failures) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (path == "-") return {fs::path("-")};
  if (fs::is_directory(path, ec)) {
    auto add = [&](const fs::directory_entry& entry) {
      auto ext = entry.path().extension();
      if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
        files.push_back(entry.path());
    };
    if (recursive) {
      for (const auto& entry : fs::recursive_directory_iterator(path, ec)) add(entry);
    } else {
      for (const auto& entry : fs::directory_iterator(path, ec)) add(entry);
    }
    std::sort(files.begin(), files.end());
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else {
    fmt::print(stderr, "error: the path \"{}\" does not exist\n", path);
    ++*failures;
  }
  return files;
}

struct Manifest {
  std::string file;
  json object;
};

// Every object of every file, in order; unreadable input is reported and counted.
std::vector<Manifest> readManifests(const Options& options, int* failures) {
  std::vector<Manifest> out;
  for (const auto& path : options.paths) {
    for (const auto& file : manifestFiles(path, options.recursive, failures)) {
      std::stringstream text;
      if (file == "-") {
        text << std::cin.rdbuf();
      } else {
        std::ifstream in(file);
        if (!in) {
          fmt::print(stderr, "error: cannot read {}\n", file.string());
          ++*failures;
          continue;
        }
        text << in.rdbuf();
      }
      auto docs = api::parseManifests(text.str());
      if (!docs) {
        fmt::print("{}: {}\n", file.string(), docs.error().describe());
        ++*failures;
        continue;
      }
      for (auto& object : *docs) out.push_back({file.string(), std::move(object)});
    }
  }
  return out;
}

int run(const Options& options) {
  CrdSchemas schemas;
  int failures = 0;
  auto manifests = readManifests(options, &failures);
  ManifestClusterView cluster;
  for (const auto& [file, object] : manifests) {
    if (!object.is_object() || !object.contains("kind") || !object["kind"].is_string()) {
      fmt::print("{}: an object without a kind\n", file);
      ++failures;
      continue;
    }
    std::string kind = object["kind"].get<std::string>();
    std::string api_version = object.value("apiVersion", "");
    std::string name = objectName(object);
    std::vector<std::string> warnings;
    bool troupe_group = api_version.rfind(std::string(api::kGroup) + "/", 0) == 0;
    std::string object_name;
    if (object.contains("metadata") && object["metadata"].is_object())
      object_name = object["metadata"].value("name", "");
    std::string lower = kind;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    api::StatusTarget target{troupe_group ? std::string(api::kGroup) : "", lower + "s", kind,
                             object_name};
    Refusal refusal;
    if (troupe_group && schemas.find(kind) != nullptr) {
      refusal = checkTroupeKind(object, kind, *schemas.find(kind), options.strict, cluster, target,
                                warnings);
    } else if (troupe_group) {
      refusal = refusalOf({api::notSupported("kind", kind, {"TrainingJob", "Queue", "PodGroup"})},
                          target);
    } else {
      bool known = false;
      refusal = refusalOf(checkCoreKind(kind, object, &known), target);
      if (!known) {
        fmt::print("{}: not checked (Troupe does not read {})\n", name, kind);
        continue;
      }
      if (!refusal.refused() && kind == "Pod")
        refusal = admissionRefusal(object, kind, cluster, target, admission::kPodWebhookName);
    }
    for (const auto& w : warnings) fmt::print("Warning: {}: {}\n", name, w);
    if (!refusal.refused()) {
      fmt::print("{}: valid\n", name);
      cluster.add(object);
      continue;
    }
    ++failures;
    fmt::print("{}: {}\n", name, refusal.message);
  }
  if (manifests.empty() && failures == 0) {
    fmt::print(stderr, "error: no objects passed to validate\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

void addValidateCommand(CLI::App& app) {
  auto options = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Check manifests as the API server would: Troupe's kinds against api/ and their CRD "
      "schemas, and the Pod, Node, PriorityClass and Namespace fields Troupe reads");
  cmd->add_option("-f,--filename", options->paths,
                  "Files or folders of YAML or JSON manifests (multi-document); - for stdin")
      ->required();
  cmd->add_flag("-R,--recursive", options->recursive, "Descend into folders");
  cmd->add_flag("--strict", options->strict, "Treat unknown fields as errors");
  cmd->callback([options] { throw CommandExit{run(*options)}; });
}

}  // namespace troupe::cmd
