#include "apiserver/api_handler.h"

#include <chrono>
#include <optional>

#include "apiserver/auth/authorizer.h"
#include "apiserver/auth/owner_reference_check.h"
#include "apiserver/handlers/body_limits.h"
#include "apiserver/handlers/crud.h"
#include "apiserver/handlers/json_response.h"
#include "apiserver/handlers/openapi.h"
#include "apiserver/handlers/pod_log.h"
#include "apiserver/handlers/watch.h"
#include "apiserver/objects/object_service.h"
#include "apiserver/protobuf/object_decoder.h"
#include "common/log.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

thread_local const auth::Identity* t_identity = nullptr;
// What the request on this thread is, for the metrics; set once its resource is known.
thread_local RequestLabels t_labels;

http::Response text(int status, std::string body) {
  http::Response response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

http::Response pageNotFound() { return text(404, "404 page not found\n"); }

using OperationFn = http::Response (*)(ApiContext&, const RestRequest&);

struct Operation {
  const char* verb;
  const char* subresource;
  OperationFn run;
};

// Which handler serves which verb on which subresource. A subresource the kind lacks is
// a 404, as on the real server.
const Operation kOperations[] = {
    {"get", "", handleGet},
    {"get", "status", handleGet},
    {"get", "scale", handleGet},
    {"get", "log", handlePodLog},
    {"list", "", handleList},
    {"watch", "", handleWatch},
    {"create", "", handleCreate},
    {"create", "binding", handleBinding},
    {"create", "eviction", handleEviction},
    {"update", "", handleUpdate},
    {"update", "status", handleUpdate},
    {"update", "scale", handleUpdate},
    {"patch", "", handlePatch},
    {"patch", "status", handlePatch},
    {"patch", "scale", handlePatch},
    {"delete", "", handleDelete},
    {"deletecollection", "", handleDeleteCollection},
};

bool hasSubresource(const ResourceKind& kind, const std::string& sub) {
  if (sub.empty()) return true;
  if (sub == "status") return kind.has_status;
  if (sub == "scale") return kind.has_scale;
  if (sub == "binding") return kind.has_binding;
  if (sub == "eviction") return kind.has_eviction;
  if (sub == "log") return kind.has_log;
  return false;
}

std::string verbOf(const http::Request& request, bool has_name) {
  const std::string& m = request.method;
  if (m == "GET" || m == "HEAD") {
    if (has_name) return "get";
    std::string watch = request.param("watch");
    return watch == "true" || watch == "1" ? "watch" : "list";
  }
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return has_name ? "delete" : "deletecollection";
  return "";
}

// kube-apiserver's verb label for a REST verb.
const char* metricsVerb(const std::string& verb) {
  if (verb == "get") return "GET";
  if (verb == "list") return "LIST";
  if (verb == "watch") return "WATCH";
  if (verb == "create") return "POST";
  if (verb == "update") return "PUT";
  if (verb == "patch") return "PATCH";
  if (verb == "delete") return "DELETE";
  if (verb == "deletecollection") return "DELETECOLLECTION";
  return "";
}

}  // namespace

ApiHandler::ApiHandler(ApiContext context, auth::TokenFile tokens,
                       std::unique_ptr<auth::Authorizer> authorizer, VersionInfo version,
                       std::string server_address)
    : context_(context),
      tokens_(std::move(tokens)),
      authorizer_(std::move(authorizer)),
      version_(std::move(version)),
      server_address_(std::move(server_address)) {
  auto ok = [this](const http::Request& request, const RouteParams&) {
    if (!ready_) return text(500, "[-]troupe-ready failed: not ready yet\n");
    if (request.hasParam("verbose"))
      return text(200, "[+]ping ok\n[+]etcd ok\n[+]troupe-storage ok\nreadyz check passed\n");
    return text(200, "ok");
  };
  // Ready means ready for writes too: on a full or read-only disk reads go on (and
  // /healthz, /livez stay ok, the process being fine), but /readyz fails, naming why.
  auto ready = [this, ok](const http::Request& request, const RouteParams& params) {
    if (ready_) {
      if (auto writable = context_.objects.store().writable(); !writable) {
        return text(500, "[+]ping ok\n[+]etcd ok\n[-]troupe-storage failed: " +
                             writable.error().message + "\nreadyz check failed\n");
      }
    }
    return ok(request, params);
  };
  public_routes_.add("GET", "/healthz", ok);
  public_routes_.add("GET", "/livez", ok);
  public_routes_.add("GET", "/readyz", ready);
  public_routes_.add("GET", "/version", [this](const http::Request&, const RouteParams&) {
    return handleVersion(version_);
  });

  const ResourceRegistry& registry = context_.registry;
  routes_.add("GET", "/api", [this, &registry](const http::Request& request, const RouteParams&) {
    return handleCoreDiscovery(registry, request, server_address_);
  });
  routes_.add("GET", "/apis", [&registry](const http::Request& request, const RouteParams&) {
    return handleGroupsDiscovery(registry, request);
  });
  routes_.add("GET", "/api/v1", [&registry](const http::Request&, const RouteParams&) {
    return handleResourceList(registry, "", "v1");
  });
  routes_.add("GET", "/apis/{group}", [&registry](const http::Request&, const RouteParams& p) {
    return handleGroupDiscovery(registry, p.at("group"));
  });
  routes_.add("GET", "/apis/{group}/{version}",
              [&registry](const http::Request&, const RouteParams& p) {
                return handleResourceList(registry, p.at("group"), p.at("version"));
              });
  routes_.add("GET", "/openapi/v2", [this](const http::Request& request, const RouteParams&) {
    return handleOpenApiV2(request, version_.git_version);
  });
  routes_.add("GET", "/openapi/v3", [&registry](const http::Request&, const RouteParams&) {
    return handleOpenApiV3Index(registry);
  });
  routes_.add("GET", "/openapi/v3/{path...}",
              [&registry](const http::Request&, const RouteParams& p) {
                return handleOpenApiV3Document(registry, p.at("path"));
              });
  routes_.add("*", "/api/v1/{rest...}", [this](const http::Request& request, const RouteParams& p) {
    return handleResource(request, "", "v1", p.at("rest"), *t_identity);
  });
  routes_.add("*", "/apis/{group}/{version}/{rest...}",
              [this](const http::Request& request, const RouteParams& p) {
                return handleResource(request, p.at("group"), p.at("version"), p.at("rest"),
                                      *t_identity);
              });
}

void ApiHandler::addRoute(Access access, std::string method, std::string pattern,
                          RouteHandler handler) {
  if (access == Access::Public) {
    public_routes_.add(std::move(method), std::move(pattern), std::move(handler));
    return;
  }
  routes_.add(
      std::move(method), std::move(pattern),
      [handler = std::move(handler)](const http::Request& request, const RouteParams& p) {
        const auth::Identity& identity = *t_identity;
        if (identity.admin) return handler(request, p);
        return statusResponse(statusError(
            403, "Forbidden",
            "forbidden: User \"" + identity.user + "\" cannot get path \"" + request.path + "\""));
      });
}

http::Response ApiHandler::handle(const http::Request& request) {
  if (!metrics_) return answer(request);
  const auto start = std::chrono::steady_clock::now();
  t_labels = RequestLabels{request.method, "", "", ""};
  http::Response response = answer(request);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  metrics_->requestAnswered(t_labels, response.status, took.count());
  return response;
}

http::Response ApiHandler::answer(const http::Request& request) {
  if (auto response = public_routes_.route(request)) return *response;
  auto identity = tokens_.authenticate(request.header("authorization"));
  if (!identity) return statusResponse(statusError(401, "Unauthorized", "Unauthorized"));
  t_identity = &*identity;
  auto response = routes_.route(request);
  t_identity = nullptr;
  if (!response) return pageNotFound();
  log::debug("request", {{"method", request.method},
                         {"target", request.target},
                         {"status", response->status},
                         {"user", identity->user}});
  return std::move(*response);
}

http::Response ApiHandler::handleResource(const http::Request& request, const std::string& group,
                                          const std::string& version, const std::string& rest,
                                          const auth::Identity& identity) {
  auto parts = splitPath(rest);
  std::string ns;
  if (parts.size() >= 3 && parts[0] == "namespaces" &&
      !(parts.size() == 3 && (parts[2] == "status" || parts[2] == "finalize"))) {
    ns = parts[1];
    parts.erase(parts.begin(), parts.begin() + 2);
  }
  if (parts.empty() || parts.size() > 3) return pageNotFound();
  auto kind = context_.registry.find(group, version, parts[0]);
  if (!kind) return pageNotFound();
  std::string name = parts.size() > 1 ? parts[1] : "";
  std::string sub = parts.size() > 2 ? parts[2] : "";
  if (!kind->namespaced && !ns.empty()) return pageNotFound();
  if (kind->namespaced && ns.empty() && (!name.empty() || request.method == "POST"))
    return pageNotFound();
  if (!hasSubresource(*kind, sub)) return pageNotFound();

  std::string verb = verbOf(request, !name.empty());
  if (metrics_) t_labels = RequestLabels{metricsVerb(verb), group, kind->resource, sub};
  auth::Attributes attributes{verb, group, kind->resource, sub, ns, name};
  if (verb.empty()) return statusResponse(methodNotSupported(request.method, kind->kind));
  auto forbidden = [&](const std::string& message) {
    json details = json::object();
    if (!name.empty()) details["name"] = name;
    if (!group.empty()) details["group"] = group;
    details["kind"] = kind->resource;
    return statusResponse(statusError(403, "Forbidden", message, details));
  };
  if (!authorizer_->authorize(identity, attributes).allowed)
    return forbidden(auth::forbiddenMessage(identity, attributes));

  std::string content_type = request.header("content-type");
  // A protobuf body (kubectl's typed `create` commands send one for built-in kinds) is
  // decoded to JSON here, so every handler below sees JSON.
  std::optional<http::Request> decoded;
  if (!request.body.empty() && content_type.find("protobuf") != std::string::npos) {
    if (kind->custom)
      return statusResponse(statusError(
          415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json, application/yaml"));
    auto object = protobuf::decodeObject(request.body);
    if (!object) {
      const Error& e = object.error();
      return e.code == ErrorCode::UnsupportedMedia
                 ? statusResponse(statusError(415, "UnsupportedMediaType", e.message))
                 : statusResponse(statusError(400, "BadRequest", e.message));
    }
    decoded = request;
    decoded->body = object->dump();
    if (decoded->body.size() > kMaxDecodedBytes) {
      return statusResponse(statusError(413, "RequestEntityTooLarge",
                                        "Request entity too large: the body decodes to more than " +
                                            std::to_string(kMaxDecodedBytes) + " bytes of JSON"));
    }
    decoded->headers["content-type"] = "application/json";
  }
  if (verb == "create" && sub.empty() && !identity.admin) {
    if (auto denial =
            ownerReferenceDenial(decoded ? decoded->body : request.body, *kind, ns, identity))
      return forbidden(*denial);
  }
  auto representation = negotiate(request.header("accept"), false);
  if (representation == Representation::Unacceptable) {
    return statusResponse(statusError(
        406, "NotAcceptable",
        "only the following media types are accepted: application/json, application/yaml"));
  }
  if (representation == Representation::Table && verb != "get" && verb != "list" && verb != "watch")
    representation = Representation::Object;

  RestRequest rest_request{
      decoded ? *decoded : request, *kind, ns, name, sub, verb, identity.user, representation};
  for (const auto& op : kOperations) {
    if (verb == op.verb && sub == op.subresource) return op.run(context_, rest_request);
  }
  return statusResponse(methodNotSupported(verb, kind->kind));
}

std::optional<std::string> ApiHandler::ownerReferenceDenial(const std::string& body,
                                                            const ResourceKind& kind,
                                                            const std::string& ns,
                                                            const auth::Identity& identity) {
  if (body.find("blockOwnerDeletion") == std::string::npos) return std::nullopt;
  auto object = json::parse(body, nullptr, false);
  std::string subject = kind.storageName();
  if (object.is_object() && object.contains("metadata") && object["metadata"].is_object()) {
    const json& meta = object["metadata"];
    if (auto n = meta.find("name"); n != meta.end() && n->is_string())
      subject += " \"" + n->get<std::string>() + "\"";
  }
  auto owners = auth::ownerFinalizerRequests(object, ns, context_.registry);
  if (!owners) return subject + " is forbidden: " + owners.error().message;
  for (const auto& owner : *owners) {
    // kube-apiserver's words, with the reason and error its RBAC authorizer gives a denial.
    if (!authorizer_->authorize(identity, owner).allowed)
      return subject +
             " is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a "
             "resource you can't set finalizers on: , <nil>";
  }
  return std::nullopt;
}

}  // namespace troupe::apiserver
