#include "apiserver/handlers/crud.h"

#include "apiserver/handlers/body_limits.h"
#include "apiserver/handlers/json_response.h"
#include "apiserver/handlers/list_query.h"
#include "apiserver/handlers/patch.h"
#include "apiserver/handlers/table.h"
#include "apiserver/handlers/yaml_json.h"
#include "apiserver/objects/object_service.h"
#include "common/check.h"
#include "common/json_member.h"
#include "common/json_parse.h"
#include "common/rfc3339.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

bool dryRun(const RestRequest& request) { return request.http.param("dryRun") == "All"; }

Subresource subresourceOf(const RestRequest& request) {
  return request.subresource == "status" ? Subresource::Status : Subresource::Main;
}

// What GET answers for one object in the negotiated representation.
json render(ApiContext& context, const RestRequest& request, const json& object) {
  if (request.representation == Representation::Table) {
    json meta = {{"resourceVersion", metaString(object, "resourceVersion")}};
    return makeTable(request.kind, {object}, meta, context.clock.now(),
                     request.http.param("includeObject") == "Object");
  }
  if (request.representation == Representation::PartialObjectMetadata)
    return partialObjectMetadata(object);
  return object;
}

// ---- scale subresource: dotted paths into the custom resource ----

json* pathRef(json& object, const std::string& path, bool create) {
  json* node = &object;
  std::size_t start = path.size() > 0 && path[0] == '.' ? 1 : 0;
  while (start < path.size()) {
    auto dot = path.find('.', start);
    std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object()) {
      if (!create) return nullptr;
      *node = json::object();
    }
    if (!node->contains(part) && !create) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

json scaleOf(const ResourceKind& kind, const json& object) {
  json copy = object;
  json* spec = pathRef(copy, kind.scale_spec_path, false);
  json* status = pathRef(copy, kind.scale_status_path, false);
  json meta = json::object();
  for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"})
    if (object["metadata"].contains(key)) meta[key] = object["metadata"][key];
  json scale = {{"kind", "Scale"},
                {"apiVersion", "autoscaling/v1"},
                {"metadata", meta},
                {"spec", {{"replicas", spec && spec->is_number() ? *spec : json(0)}}},
                {"status", {{"replicas", status && status->is_number() ? *status : json(0)}}}};
  if (!kind.scale_selector_path.empty()) {
    json* selector = pathRef(copy, kind.scale_selector_path, false);
    if (selector && selector->is_string()) scale["status"]["selector"] = *selector;
  }
  return scale;
}

ApiResult<json> withScale(const ResourceKind& kind, const json& object, const json& scale) {
  if (!scale.is_object() || !scale.contains("spec") || !scale["spec"].contains("replicas") ||
      !scale["spec"]["replicas"].is_number_integer()) {
    return invalid(kind, metaString(object, "name"),
                   {{"FieldValueRequired", "Required value", "spec.replicas"}});
  }
  json next = object;
  *pathRef(next, kind.scale_spec_path, true) = scale["spec"]["replicas"];
  return next;
}

http::Response objectResponse(ApiContext& context, const RestRequest& request, int code,
                              const StoredObject& stored) {
  if (request.representation != Representation::Object)
    return jsonResponse(code, render(context, request, stored.object));
  // Most answers are the object itself: a write's is the text the store made for its
  // watch event, otherwise the object's dump (not a copy's).
  if (stored.text.empty()) return jsonResponse(code, stored.object);
#ifndef NDEBUG
  TROUPE_CHECK(stored.text == stored.object.dump(), "{} {}/{}: the text differs from the object",
               stored.key.resource, stored.key.ns, stored.key.name);
#endif
  http::Response response;
  response.status = code;
  response.body = stored.text;
  return response;
}

// A patched object nests at most as deep as a body may: a JSON patch can put a value as
// deep as its body under a path as deep as the object. Refused as the real server refuses
// a patched object it cannot decode.
ApiResult<json> withinDepth(const RestRequest& request, ApiResult<json> patched) {
  if (!patched || !nestsDeeperThan(patched.value(), kMaxNestingDepth)) return patched;
  return invalid(request.kind, request.name,
                 {{"FieldValueInvalid",
                   "Invalid value: the patched object nests arrays and objects more than " +
                       std::to_string(kMaxNestingDepth) + " levels deep",
                   "patch"}});
}

}  // namespace

ApiResult<json> parseBody(const RestRequest& request) {
  const std::string& body = request.http.body;
  const std::string content_type = request.http.header("content-type");
  BodyFormat format = bodyFormatOf(content_type);
  if (request.verb == "patch") {
    // The patch handler accepted the media type; only apply patches may be YAML.
    format = patchTypeOf(content_type) == PatchType::Apply ? BodyFormat::Yaml : BodyFormat::Json;
  }
  // The api handler decoded a protobuf body to JSON and relabelled it.
  if (format == BodyFormat::Unsupported || format == BodyFormat::Protobuf) {
    return statusError(415, "UnsupportedMediaType",
                       std::string("the body of the request was in an unknown format - accepted "
                                   "media types include: application/json, application/yaml") +
                           (request.kind.custom ? "" : ", application/vnd.kubernetes.protobuf"));
  }
  auto summary = [&] {
    std::string excerpt = body.substr(0, 30);
    return " (" + excerpt + (body.size() > 30 ? " ...)" : ")");
  };
  if (format == BodyFormat::Yaml) {
    auto parsed = parseJsonOrYaml(body, YamlLimits{kMaxYamlDepth, kMaxDecodedBytes});
    if (parsed) return std::move(parsed.value());
    return badRequest("the object provided is unrecognized (must be of type " + request.kind.kind +
                      "): " + parsed.error().message + summary());
  }
  auto parsed = parseUntrustedJson(body, kMaxNestingDepth);
  if (parsed) return std::move(parsed.value());
  return badRequest("the object provided is unrecognized (must be of type " + request.kind.kind +
                    "): couldn't get version/kind; json parse error: " + parsed.error().message +
                    summary());
}

http::Response handleGet(ApiContext& context, const RestRequest& request) {
  auto found = context.objects.get(request.kind, request.ns, request.name);
  if (!found) return statusResponse(found.error());
  if (request.subresource == "scale") {
    if (!request.kind.has_scale) return statusResponse(notFound(request.kind, request.name));
    return jsonResponse(200, scaleOf(request.kind, found->object));
  }
  return objectResponse(context, request, 200, *found);
}

http::Response handleList(ApiContext& context, const RestRequest& request) {
  auto filter = ListFilter::fromRequest(request);
  if (!filter) return statusResponse(filter.error());
  ObjectStore& store = context.objects.store();

  ListOptions options;
  options.resource = request.kind.storageName();
  options.ns = request.kind.namespaced ? request.ns : "";
  // A limit of 0 or below is no limit, as on the real server.
  auto limit_param = integerParam(request, "limit");
  if (!limit_param) return statusResponse(limit_param.error());
  const std::size_t limit =
      static_cast<std::size_t>(std::max<std::int64_t>(0, limit_param->value_or(0)));
  if (auto invalid_match = checkResourceVersionMatch(request))
    return statusResponse(*invalid_match);
  auto rv = resourceVersionParam(request);
  if (!rv) return statusResponse(rv.error());

  std::string token = request.http.param("continue");
  if (!token.empty()) {
    if (rv->value_or(0) != 0) {
      return statusResponse(
          badRequest("specifying resource version is not allowed when using continue"));
    }
    auto point = decodeContinue(token);
    if (!point)
      return statusResponse(badRequest("continue key is not valid: invalid continue token"));
    options.after = ObjectKey{options.resource, point->ns, point->name};
    options.at_revision = point->revision > 0 ? point->revision : 0;
  } else if (request.http.param("resourceVersionMatch") == "Exact") {
    options.at_revision = rv->value();
  } else if (rv->value_or(0) > store.currentRevision()) {
    // Not older than a revision the store has not reached.
    return statusResponse(tooLargeResourceVersion(rv->value(), store.currentRevision()));
  }

  std::vector<json> items;
  Revision list_revision = 0;
  bool more = false;
  std::optional<ObjectKey> last_key;
  // Page through the store until `limit` items pass the selectors.
  while (true) {
    ListOptions page = options;
    if (limit > 0)
      page.limit = filter->empty() ? limit - items.size() : std::max<std::size_t>(limit, 256);
    auto listed = store.list(page);
    if (!listed) {
      if (listed.error().code == ErrorCode::Gone) {
        if (!token.empty()) {
          auto expired = gone(
              "The provided continue parameter is too old to display a consistent list result. "
              "You can start a new list without the continue parameter, or use the continue "
              "token in this response to retrieve the remainder of the results. Continuing "
              "with the provided token results in an inconsistent list - objects that were "
              "created, modified, or deleted between the time the first chunk was returned "
              "and now may show up in the list.");
          expired.status["metadata"]["continue"] =
              encodeContinue(-1, options.after->ns, options.after->name);
          return statusResponse(expired);
        }
        return statusResponse(gone("The resourceVersion for the provided list is too old."));
      }
      if (listed.error().code == ErrorCode::Timeout) {
        return statusResponse(tooLargeResourceVersion(page.at_revision, store.currentRevision()));
      }
      return statusResponse(fromStoreError(listed.error(), request.kind, ""));
    }
    list_revision = listed->revision;
    options.at_revision = listed->revision;
    std::size_t index = 0;
    for (; index < listed->items.size(); ++index) {
      auto& item = listed->items[index];
      last_key = item.key;
      if (filter->matches(item.object)) items.push_back(std::move(item.object));
      if (limit > 0 && items.size() >= limit) break;
    }
    if (limit > 0 && items.size() >= limit) {
      more = index + 1 < listed->items.size() || listed->more;
      break;
    }
    if (!listed->more) break;
    options.after = last_key;
  }

  json meta = {{"resourceVersion", std::to_string(list_revision)}};
  if (more && last_key)
    meta["continue"] = encodeContinue(list_revision, last_key->ns, last_key->name);

  if (request.representation == Representation::Table) {
    return jsonResponse(200, makeTable(request.kind, items, meta, context.clock.now(),
                                       request.http.param("includeObject") == "Object"));
  }
  json list = json::object();
  if (request.representation == Representation::PartialObjectMetadata) {
    list["kind"] = "PartialObjectMetadataList";
    list["apiVersion"] = "meta.k8s.io/v1";
    list["metadata"] = meta;
    list["items"] = json::array();
    for (const auto& item : items) list["items"].push_back(partialObjectMetadata(item));
    return jsonResponse(200, list);
  }
  list["apiVersion"] = request.kind.groupVersion();
  list["kind"] = request.kind.list_kind;
  list["metadata"] = meta;
  list["items"] = std::move(items);
  return jsonResponse(200, list);
}

http::Response handleCreate(ApiContext& context, const RestRequest& request) {
  auto body = parseBody(request);
  if (!body) return statusResponse(body.error());
  auto created =
      context.objects.create(request.kind, request.ns, std::move(body.value()), dryRun(request));
  if (!created) return statusResponse(created.error());
  return objectResponse(context, request, 201, *created);
}

http::Response handleUpdate(ApiContext& context, const RestRequest& request) {
  auto body = parseBody(request);
  if (!body) return statusResponse(body.error());
  if (request.subresource == "scale") {
    if (!request.kind.has_scale) return statusResponse(notFound(request.kind, request.name));
    json scale = body.value();
    auto updated = context.objects.mutate(
        request.kind, request.ns, request.name,
        [&](const json& current) { return withScale(request.kind, current, scale); },
        Subresource::Scale, dryRun(request));
    if (!updated) return statusResponse(updated.error());
    return jsonResponse(200, scaleOf(request.kind, updated->object));
  }
  auto updated =
      context.objects.update(request.kind, request.ns, request.name, std::move(body.value()),
                             subresourceOf(request), dryRun(request));
  if (!updated) return statusResponse(updated.error());
  return objectResponse(context, request, 200, *updated);
}

http::Response handlePatch(ApiContext& context, const RestRequest& request) {
  std::string content_type = request.http.header("content-type");
  auto type = patchTypeOf(content_type);
  const char* accepted =
      "the body of the request was in an unknown format - accepted media types include: "
      "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
  if (!type) {
    return statusResponse(statusError(
        415, "UnsupportedMediaType",
        request.kind.custom ? accepted
                            : "the body of the request was in an unknown format - accepted "
                              "media types include: application/json-patch+json, "
                              "application/merge-patch+json, "
                              "application/apply-patch+yaml, "
                              "application/strategic-merge-patch+json"));
  }
  if (*type == PatchType::Strategic && request.kind.custom) {
    return statusResponse(statusError(415, "UnsupportedMediaType", accepted));
  }
  auto body = parseBody(request);
  if (!body) return statusResponse(body.error());
  json patch = std::move(body.value());
  bool dry_run = dryRun(request);

  if (request.subresource == "scale") {
    if (!request.kind.has_scale) return statusResponse(notFound(request.kind, request.name));
    auto updated = context.objects.mutate(
        request.kind, request.ns, request.name,
        [&](const json& current) -> ApiResult<json> {
          json scale = scaleOf(request.kind, current);
          ApiResult<json> patched = *type == PatchType::Json ? applyJsonPatch(scale, patch)
                                                             : applyMergePatch(scale, patch);
          if (!patched) return patched.error();
          return withScale(request.kind, current, patched.value());
        },
        Subresource::Scale, dry_run);
    if (!updated) return statusResponse(updated.error());
    return jsonResponse(200, scaleOf(request.kind, updated->object));
  }

  if (*type == PatchType::Apply) {
    std::string manager = request.http.param("fieldManager");
    if (manager.empty()) {
      return statusResponse(invalid(
          ResourceKind{.group = "meta.k8s.io", .kind = "PatchOptions"}, "",
          {{"FieldValueRequired", "Required value: is required for apply patch", "fieldManager"}}));
    }
    ApplyRequest apply;
    apply.manager = manager;
    apply.force = request.http.param("force") == "true";
    apply.api_version = request.kind.groupVersion();
    apply.subresource = request.subresource;
    apply.now = context.clock.now();
    bool created = false;
    auto result = context.objects.mutate(
        request.kind, request.ns, request.name,
        [&](const json& current) {
          return withinDepth(request, serverSideApply(current, patch, apply));
        },
        subresourceOf(request), dry_run, request.subresource.empty(), &created);
    if (!result) return statusResponse(result.error());
    return objectResponse(context, request, created ? 201 : 200, *result);
  }

  auto result = context.objects.mutate(
      request.kind, request.ns, request.name,
      [&](const json& current) -> ApiResult<json> {
        switch (*type) {
          case PatchType::Merge: return withinDepth(request, applyMergePatch(current, patch));
          case PatchType::Json: return withinDepth(request, applyJsonPatch(current, patch));
          case PatchType::Strategic:
            return withinDepth(request, applyStrategicPatch(current, patch));
          case PatchType::Apply: break;
        }
        return badRequest("unsupported patch type");
      },
      subresourceOf(request), dry_run);
  if (!result) return statusResponse(result.error());
  return objectResponse(context, request, 200, *result);
}

namespace {

ApiResult<DeleteOptions> deleteOptionsOf(const RestRequest& request) {
  DeleteOptions options;
  json body = json::object();
  if (!request.http.body.empty()) {
    auto parsed = parseUntrustedJson(request.http.body, kMaxNestingDepth);
    if (!parsed || !parsed->is_object())
      return badRequest("the body of the request must be DeleteOptions");
    body = std::move(parsed.value());
  }
  if (body.contains("gracePeriodSeconds") && body["gracePeriodSeconds"].is_number_integer())
    options.grace_period_seconds = body["gracePeriodSeconds"].get<std::int64_t>();
  if (body.contains("propagationPolicy") && body["propagationPolicy"].is_string())
    options.propagation_policy = body["propagationPolicy"];
  if (body.value("orphanDependents", false)) options.propagation_policy = "Orphan";
  if (body.contains("preconditions") && body["preconditions"].is_object()) {
    options.precondition_uid = body["preconditions"].value("uid", "");
    options.precondition_resource_version = body["preconditions"].value("resourceVersion", "");
  }
  if (body.contains("dryRun") && body["dryRun"].is_array() && !body["dryRun"].empty())
    options.dry_run = true;
  auto grace = integerParam(request, "gracePeriodSeconds");
  if (!grace) return grace.error();
  if (*grace) options.grace_period_seconds = **grace;
  if (request.http.hasParam("propagationPolicy"))
    options.propagation_policy = request.http.param("propagationPolicy");
  if (dryRun(request)) options.dry_run = true;
  const auto& p = options.propagation_policy;
  if (!p.empty() && p != "Background" && p != "Foreground" && p != "Orphan") {
    return badRequest(
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"" + p +
        "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"");
  }
  return options;
}

}  // namespace

http::Response handleDelete(ApiContext& context, const RestRequest& request) {
  auto options = deleteOptionsOf(request);
  if (!options) return statusResponse(options.error());
  auto removed = context.objects.remove(request.kind, request.ns, request.name, options.value());
  if (!removed) return statusResponse(removed.error());
  return jsonResponse(200, removed->object);
}

http::Response handleDeleteCollection(ApiContext& context, const RestRequest& request) {
  auto options = deleteOptionsOf(request);
  if (!options) return statusResponse(options.error());
  auto filter = ListFilter::fromRequest(request);
  if (!filter) return statusResponse(filter.error());
  ListOptions list;
  list.resource = request.kind.storageName();
  list.ns = request.kind.namespaced ? request.ns : "";
  auto listed = context.objects.store().list(list);
  if (!listed) return statusResponse(fromStoreError(listed.error(), request.kind, ""));
  json items = json::array();
  for (const auto& item : listed->items) {
    if (!filter->matches(item.object)) continue;
    auto removed =
        context.objects.remove(request.kind, item.key.ns, item.key.name, options.value());
    if (removed) items.push_back(removed->object);
  }
  return jsonResponse(
      200, {{"apiVersion", request.kind.groupVersion()},
            {"kind", request.kind.list_kind},
            {"metadata",
             {{"resourceVersion", std::to_string(context.objects.store().currentRevision())}}},
            {"items", items}});
}

http::Response handleBinding(ApiContext& context, const RestRequest& request) {
  auto body = parseBody(request);
  if (!body) return statusResponse(body.error());
  json binding = body.value();
  std::string node = binding.is_object() ? objectMember(binding, "target").value("name", "") : "";
  ResourceKind binding_kind = request.kind;
  binding_kind.resource = "pods/binding";
  if (node.empty()) {
    return statusResponse(invalid(ResourceKind{.kind = "Binding"}, request.name,
                                  {{"FieldValueRequired", "Required value", "target.name"}}));
  }
  auto result = context.objects.mutate(
      request.kind, request.ns, request.name,
      [&](const json& pod) -> ApiResult<json> {
        std::string bound = pod["spec"].value("nodeName", "");
        if (!bound.empty()) {
          return conflict(binding_kind, request.name,
                          "pod " + request.name + " is already assigned to node \"" + bound + "\"");
        }
        if (pod["metadata"].contains("deletionTimestamp")) {
          return conflict(
              binding_kind, request.name,
              "pod " + request.name + " is being deleted, cannot be assigned to a host");
        }
        json next = pod;
        next["spec"]["nodeName"] = node;
        // As the real server does, the Binding's annotations land on the pod (a scheduler
        // records its choices there, e.g. Troupe's GPU indices).
        const json annotations = binding["metadata"].is_object()
                                     ? binding["metadata"].value("annotations", json())
                                     : json();
        if (annotations.is_object())
          for (const auto& [key, value] : annotations.items())
            if (value.is_string()) next["metadata"]["annotations"][key] = value;
        json& conditions = next["status"]["conditions"];
        if (!conditions.is_array()) conditions = json::array();
        json condition = {{"type", "PodScheduled"},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", formatRfc3339(context.clock.now())}};
        bool replaced = false;
        for (auto& c : conditions)
          if (c.value("type", "") == "PodScheduled") {
            c = condition;
            replaced = true;
          }
        if (!replaced) conditions.push_back(condition);
        return next;
      },
      Subresource::All, dryRun(request));
  if (!result) return statusResponse(result.error());
  return jsonResponse(201, successStatus(201));
}

http::Response handleEviction(ApiContext& context, const RestRequest& request) {
  auto body = parseBody(request);
  if (!body) return statusResponse(body.error());
  DeleteOptions options;
  json eviction = body.value();
  if (eviction.is_object() && eviction.contains("deleteOptions") &&
      eviction["deleteOptions"].is_object()) {
    const json& d = eviction["deleteOptions"];
    if (d.contains("gracePeriodSeconds") && d["gracePeriodSeconds"].is_number_integer())
      options.grace_period_seconds = d["gracePeriodSeconds"].get<std::int64_t>();
  }
  auto removed = context.objects.remove(request.kind, request.ns, request.name, options);
  if (!removed) return statusResponse(removed.error());
  return jsonResponse(201, successStatus(201));
}

}  // namespace troupe::apiserver
