#include "kube/kubeconfig.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/base64.h"

namespace troupe::kube {
namespace {

namespace fs = std::filesystem;

// One named entry (cluster, user or context) and the file it came from.
struct Entry {
  YAML::Node body;
  std::string file;
};

struct MergedConfig {
  std::string current_context;
  std::string current_context_file;
  std::map<std::string, Entry> clusters;
  std::map<std::string, Entry> users;
  std::map<std::string, Entry> contexts;
};

Error configError(const std::string& file, const std::string& field, const std::string& message) {
  return makeError(ErrorCode::Invalid, field, fmt::format("kubeconfig {}: {}", file, message));
}

Result<std::string> readFile(const std::string& path, const std::string& field,
                             const std::string& file) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return configError(file, field, fmt::format("cannot read file \"{}\"", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string resolvePath(const std::string& path, const std::string& file) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(file).parent_path() / path).string();
}

// Reads a scalar field as a string; a map or list where a string belongs is an error.
Result<std::string> scalar(const YAML::Node& node, const char* key, const std::string& field,
                           const std::string& file) {
  const YAML::Node value = node[key];
  if (!value || value.IsNull()) return std::string{};
  if (!value.IsScalar()) {
    return configError(file, field + "." + key, "must be a string");
  }
  return value.as<std::string>();
}

// Adds the named entries of one list ("clusters", "users", "contexts") that are not already
// present: the first file to define a name wins.
Status mergeList(const YAML::Node& root, const char* list, const char* body_key,
                 const std::string& file, std::map<std::string, Entry>& into) {
  const YAML::Node entries = root[list];
  if (!entries || entries.IsNull()) return {};
  if (!entries.IsSequence()) return configError(file, list, "must be a list");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const YAML::Node entry = entries[i];
    const std::string where = fmt::format("{}[{}]", list, i);
    if (!entry.IsMap())
      return configError(file, where, "must be a map with name and " + std::string(body_key));
    const YAML::Node name = entry["name"];
    if (!name || !name.IsScalar() || name.as<std::string>().empty()) {
      return configError(file, where + ".name", "Required value");
    }
    const YAML::Node body = entry[body_key];
    if (body && !body.IsNull() && !body.IsMap()) {
      return configError(file, fmt::format("{}[{}].{}", list, name.as<std::string>(), body_key),
                         "must be a map");
    }
    into.emplace(name.as<std::string>(),
                 Entry{body ? body : YAML::Node(YAML::NodeType::Map), file});
  }
  return {};
}

Status mergeFile(const std::string& path, MergedConfig& merged) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    return configError(path, "", fmt::format("not valid YAML: {}", e.what()));
  }
  if (root.IsNull()) return {};  // an empty file contributes nothing, as with kubectl
  if (!root.IsMap()) return configError(path, "", "must be a map");
  if (merged.current_context.empty()) {
    auto cc = scalar(root, "current-context", "", path);
    if (!cc) return cc.error();
    merged.current_context = *cc;
    merged.current_context_file = path;
  }
  if (auto s = mergeList(root, "clusters", "cluster", path, merged.clusters); !s) return s;
  if (auto s = mergeList(root, "users", "user", path, merged.users); !s) return s;
  if (auto s = mergeList(root, "contexts", "context", path, merged.contexts); !s) return s;
  return {};
}

// A PEM value given either as a file path (`path_key`) or inline base64 (`data_key`); data
// wins, as in client-go.
Result<std::string> pemField(const Entry& entry, const std::string& where, const char* path_key,
                             const char* data_key) {
  auto data = scalar(entry.body, data_key, where, entry.file);
  if (!data) return data.error();
  if (!data->empty()) {
    auto decoded = decodeBase64(*data, where + "." + data_key);
    if (!decoded)
      return configError(entry.file, decoded.error().field_path, decoded.error().message);
    return decoded;
  }
  auto path = scalar(entry.body, path_key, where, entry.file);
  if (!path) return path.error();
  if (path->empty()) return std::string{};
  return readFile(resolvePath(*path, entry.file), where + "." + path_key, entry.file);
}

Result<bool> boolField(const Entry& entry, const std::string& where, const char* key) {
  const YAML::Node value = entry.body[key];
  if (!value || value.IsNull()) return false;
  try {
    if (value.IsScalar()) return value.as<bool>();
  } catch (const YAML::Exception&) {
  }
  return configError(entry.file, where + "." + key,
                     fmt::format("must be true or false, not \"{}\"",
                                 value.IsScalar() ? value.as<std::string>() : "a collection"));
}

}  // namespace

KubeconfigOptions kubeconfigOptionsFromEnvironment(std::string explicit_path, std::string context) {
  KubeconfigOptions options;
  options.explicit_path = std::move(explicit_path);
  options.context = std::move(context);
  if (const char* env = std::getenv("KUBECONFIG")) options.kubeconfig_env = env;
  if (const char* home = std::getenv("HOME")) options.home = home;
  return options;
}

std::vector<std::string> kubeconfigPaths(const KubeconfigOptions& options) {
  if (!options.explicit_path.empty()) return {options.explicit_path};
  std::vector<std::string> paths;
  std::stringstream list(options.kubeconfig_env);
  std::string item;
  while (std::getline(list, item, ':')) {
    if (!item.empty()) paths.push_back(item);
  }
  if (!paths.empty()) return paths;
  if (!options.home.empty()) return {options.home + "/.kube/config"};
  return {};
}

Result<ClientConfig> loadKubeconfig(const KubeconfigOptions& options) {
  const std::vector<std::string> paths = kubeconfigPaths(options);
  MergedConfig merged;
  int files_read = 0;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      if (!options.explicit_path.empty()) {
        return makeError(ErrorCode::Invalid, "--kubeconfig",
                         fmt::format("kubeconfig file \"{}\" does not exist", path));
      }
      continue;  // $KUBECONFIG may name files that do not exist yet, as with kubectl
    }
    if (auto s = mergeFile(path, merged); !s) return s.error();
    ++files_read;
  }
  if (files_read == 0) {
    return makeError(ErrorCode::NotFound, "",
                     fmt::format("no kubeconfig file found (looked at: {})",
                                 paths.empty() ? std::string("nothing; $HOME is not set")
                                               : fmt::format("{}", fmt::join(paths, ", "))));
  }

  const std::string context_name =
      options.context.empty() ? merged.current_context : options.context;
  if (context_name.empty()) {
    return makeError(ErrorCode::Invalid, "current-context",
                     "kubeconfig has no current-context and no context was given (--context)");
  }
  auto context_it = merged.contexts.find(context_name);
  if (context_it == merged.contexts.end()) {
    return makeError(
        ErrorCode::NotFound, options.context.empty() ? "current-context" : "--context",
        fmt::format("context \"{}\" is not defined in any kubeconfig file", context_name));
  }
  const Entry& context = context_it->second;
  const std::string context_where = fmt::format("contexts[{}].context", context_name);

  auto cluster_name = scalar(context.body, "cluster", context_where, context.file);
  if (!cluster_name) return cluster_name.error();
  if (cluster_name->empty()) {
    return configError(context.file, context_where + ".cluster", "Required value");
  }
  auto cluster_it = merged.clusters.find(*cluster_name);
  if (cluster_it == merged.clusters.end()) {
    return configError(context.file, context_where + ".cluster",
                       fmt::format("cluster \"{}\" is not defined", *cluster_name));
  }
  const Entry& cluster = cluster_it->second;
  const std::string cluster_where = fmt::format("clusters[{}].cluster", *cluster_name);

  ClientConfig config;
  config.source = fmt::format("kubeconfig {} context {}", context.file, context_name);

  auto server = scalar(cluster.body, "server", cluster_where, cluster.file);
  if (!server) return server.error();
  if (server->empty())
    return configError(cluster.file, cluster_where + ".server", "Required value");
  if (server->rfind("https://", 0) != 0 && server->rfind("http://", 0) != 0) {
    return configError(cluster.file, cluster_where + ".server",
                       fmt::format("\"{}\" must start with https:// or http://", *server));
  }
  config.server = *server;
  auto ca = pemField(cluster, cluster_where, "certificate-authority", "certificate-authority-data");
  if (!ca) return ca.error();
  config.certificate_authority_pem = *ca;
  auto insecure = boolField(cluster, cluster_where, "insecure-skip-tls-verify");
  if (!insecure) return insecure.error();
  config.insecure_skip_tls_verify = *insecure;
  auto server_name = scalar(cluster.body, "tls-server-name", cluster_where, cluster.file);
  if (!server_name) return server_name.error();
  config.tls_server_name = *server_name;
  if (config.insecure_skip_tls_verify && !config.certificate_authority_pem.empty()) {
    return configError(cluster.file, cluster_where + ".insecure-skip-tls-verify",
                       "cannot be true together with a certificate authority "
                       "(certificate-authority or certificate-authority-data)");
  }

  auto ns = scalar(context.body, "namespace", context_where, context.file);
  if (!ns) return ns.error();
  if (!ns->empty()) config.ns = *ns;

  auto user_name = scalar(context.body, "user", context_where, context.file);
  if (!user_name) return user_name.error();
  if (!user_name->empty()) {
    auto user_it = merged.users.find(*user_name);
    if (user_it == merged.users.end()) {
      return configError(context.file, context_where + ".user",
                         fmt::format("user \"{}\" is not defined", *user_name));
    }
    const Entry& user = user_it->second;
    const std::string user_where = fmt::format("users[{}].user", *user_name);
    for (const char* unsupported : {"exec", "auth-provider", "username", "password"}) {
      if (user.body[unsupported]) {
        return configError(user.file, user_where + "." + unsupported,
                           "is not supported by Troupe; use token, tokenFile or a client "
                           "certificate");
      }
    }
    auto token = scalar(user.body, "token", user_where, user.file);
    if (!token) return token.error();
    config.token = *token;
    auto token_file = scalar(user.body, "tokenFile", user_where, user.file);
    if (!token_file) return token_file.error();
    if (!token_file->empty()) {
      config.token_file = resolvePath(*token_file, user.file);
      auto readable = readFile(config.token_file, user_where + ".tokenFile", user.file);
      if (!readable) return readable.error();
    }
    auto cert = pemField(user, user_where, "client-certificate", "client-certificate-data");
    if (!cert) return cert.error();
    auto key = pemField(user, user_where, "client-key", "client-key-data");
    if (!key) return key.error();
    if (cert->empty() != key->empty()) {
      return configError(user.file,
                         user_where + (cert->empty() ? ".client-certificate" : ".client-key"),
                         "a client certificate and a client key must be given together");
    }
    config.client_certificate_pem = *cert;
    config.client_key_pem = *key;
  }
  return config;
}

}  // namespace troupe::kube
