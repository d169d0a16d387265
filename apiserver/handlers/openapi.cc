#include "apiserver/handlers/openapi.h"

#include <fmt/format.h>

#include <functional>
#include <set>

#include "apiserver/handlers/json_response.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

// "troupe.dev" -> "dev.troupe", as Kubernetes names definitions.
std::string reversedGroup(const std::string& group) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto dot = group.find('.', start);
    parts.push_back(
        group.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += (out.empty() ? "" : ".") + *it;
  return out;
}

std::string definitionName(const ResourceKind& k) {
  return reversedGroup(k.group) + "." + k.version + "." + k.kind;
}

const char* kObjectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";
const char* kListMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";

json objectMetaSchema() {
  auto str = [](const char* d) { return json{{"type", "string"}, {"description", d}}; };
  json map = {{"type", "object"}, {"additionalProperties", {{"type", "string"}, {"default", ""}}}};
  json props = {
      {"name", str("Name must be unique within a namespace.")},
      {"namespace", str("Namespace defines the space within which each name must be unique.")},
      {"generateName",
       str("GenerateName is an optional prefix, used by the server, to generate a unique name.")},
      {"uid", str("UID is the unique in time and space value for this object.")},
      {"resourceVersion",
       str("An opaque value that represents the internal version of this object.")},
      {"generation",
       {{"type", "integer"},
        {"format", "int64"},
        {"description",
         "A sequence number representing a specific generation of the desired state."}}},
      {"creationTimestamp", str("CreationTimestamp is a timestamp representing the server time "
                                "when this object was created.")},
      {"deletionTimestamp",
       str("DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted.")},
      {"labels", map},
      {"annotations", map},
      {"finalizers", {{"type", "array"}, {"items", {{"type", "string"}, {"default", ""}}}}},
      {"ownerReferences", {{"type", "array"}, {"items", {{"type", "object"}}}}},
      {"managedFields", {{"type", "array"}, {"items", {{"type", "object"}}}}}};
  for (auto& [key, value] : props.items()) value["description"] = value.value("description", key);
  return {{"type", "object"},
          {"description",
           "ObjectMeta is metadata that all persisted resources must have, which includes all "
           "objects users must create."},
          {"properties", props}};
}

json kindSchema(const ResourceKind& k) {
  json schema = k.schema && k.schema->is_object() ? *k.schema : json{{"type", "object"}};
  schema["type"] = "object";
  json& props = schema["properties"];
  if (!props.is_object()) props = json::object();
  props["apiVersion"] = {
      {"type", "string"},
      {"description",
       "APIVersion defines the versioned schema of this representation of an object."}};
  props["kind"] = {
      {"type", "string"},
      {"description",
       "Kind is a string value representing the REST resource this object represents."}};
  props["metadata"] = {{"description", "Standard object's metadata."},
                       {"allOf", {{{"$ref", std::string("#/components/schemas/") + kObjectMeta}}}}};
  schema["x-kubernetes-group-version-kind"] = {
      {{"group", k.group}, {"kind", k.kind}, {"version", k.version}}};
  return schema;
}

json operation(const ResourceKind& k, const std::string& action, const std::string& ref) {
  json content = {{"schema", {{"$ref", "#/components/schemas/" + ref}}}};
  return {{"description", action + " " + k.kind},
          {"operationId", action + k.kind},
          {"responses",
           {{"200", {{"description", "OK"}, {"content", {{"application/json", content}}}}}}},
          {"x-kubernetes-action", action},
          {"x-kubernetes-group-version-kind",
           {{"group", k.group}, {"version", k.version}, {"kind", k.kind}}}};
}

}  // namespace

json openApiV3Document(const ResourceRegistry& registry, const std::string& group,
                       const std::string& version) {
  json schemas = json::object();
  json paths = json::object();
  for (const auto& k : registry.all()) {
    if (!k.custom || k.group != group || k.version != version) continue;
    std::string def = definitionName(k);
    schemas[def] = kindSchema(k);
    schemas[def + "List"] = {
        {"type", "object"},
        {"required", {"items"}},
        {"properties",
         {{"apiVersion", {{"type", "string"}}},
          {"kind", {{"type", "string"}}},
          {"items", {{"type", "array"}, {"items", {{"$ref", "#/components/schemas/" + def}}}}},
          {"metadata",
           {{"allOf", {{{"$ref", std::string("#/components/schemas/") + kListMeta}}}}}}}},
        {"x-kubernetes-group-version-kind",
         {{{"group", k.group}, {"kind", k.kind + "List"}, {"version", k.version}}}}};
    std::string base = "/apis/" + k.group + "/" + k.version + "/";
    std::string collection = base + (k.namespaced ? "namespaces/{namespace}/" : "") + k.resource;
    paths[collection] = {{"get", operation(k, "list", def + "List")},
                         {"post", operation(k, "post", def)}};
    paths[collection + "/{name}"] = {{"get", operation(k, "get", def)},
                                     {"put", operation(k, "put", def)},
                                     {"patch", operation(k, "patch", def)},
                                     {"delete", operation(k, "delete", def)}};
    if (k.has_status) paths[collection + "/{name}/status"] = {{"get", operation(k, "get", def)}};
    if (k.namespaced) paths[base + k.resource] = {{"get", operation(k, "list", def + "List")}};
  }
  schemas[kObjectMeta] = objectMetaSchema();
  schemas[kListMeta] = {{"type", "object"},
                        {"properties",
                         {{"continue", {{"type", "string"}}},
                          {"remainingItemCount", {{"type", "integer"}, {"format", "int64"}}},
                          {"resourceVersion", {{"type", "string"}}}}}};
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes CRD Swagger"}, {"version", "v0.1.0"}}},
          {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

http::Response handleOpenApiV3Index(const ResourceRegistry& registry) {
  std::set<std::pair<std::string, std::string>> group_versions;
  for (const auto& k : registry.all())
    if (k.custom) group_versions.insert({k.group, k.version});
  json paths = json::object();
  for (const auto& [group, version] : group_versions) {
    std::string doc = openApiV3Document(registry, group, version).dump();
    std::string hash = fmt::format("{:016X}", std::hash<std::string>{}(doc));
    std::string path = "apis/" + group + "/" + version;
    paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash}};
  }
  http::Response response = jsonResponse(200, {{"paths", paths}});
  response.content_type = "text/plain; charset=utf-8";
  return response;
}

http::Response handleOpenApiV3Document(const ResourceRegistry& registry, const std::string& path) {
  // path: "apis/<group>/<version>"
  if (path.rfind("apis/", 0) == 0) {
    std::string rest = path.substr(5);
    auto slash = rest.find('/');
    if (slash != std::string::npos) {
      std::string group = rest.substr(0, slash), version = rest.substr(slash + 1);
      json doc = openApiV3Document(registry, group, version);
      if (!doc["paths"].empty()) {
        http::Response response = jsonResponse(200, doc);
        return response;
      }
    }
  }
  http::Response response;
  response.status = 404;
  response.content_type = "text/plain; charset=utf-8";
  response.body = "404 page not found\n";
  return response;
}

namespace {

void appendVarint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// One length-delimited protobuf field (wire type 2).
void appendField(std::string& out, int field, const std::string& bytes) {
  appendVarint(out, static_cast<std::uint64_t>(field) << 3 | 2);
  appendVarint(out, bytes.size());
  out += bytes;
}

}  // namespace

http::Response handleOpenApiV2(const http::Request& request, const std::string& version) {
  // kubectl asks for gnostic's protobuf encoding of the Swagger document and parses it
  // before apply and explain; it needs the document, not its definitions (custom
  // resources are described by OpenAPI v3). So: openapi.v2.Document{swagger: "2.0",
  // info: {title, version}} by hand, with the two fields kubectl reads.
  if (request.header("accept").find("protobuf") != std::string::npos) {
    std::string info;
    appendField(info, 1, "Kubernetes");
    appendField(info, 2, version);
    std::string document;
    appendField(document, 1, "2.0");
    appendField(document, 2, info);
    http::Response response;
    response.content_type = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
    response.body = std::move(document);
    return response;
  }
  return jsonResponse(200, {{"swagger", "2.0"},
                            {"info", {{"title", "Kubernetes"}, {"version", version}}},
                            {"paths", json::object()},
                            {"definitions", json::object()}});
}

}  // namespace troupe::apiserver
