#include "apiserver/protobuf/object_decoder.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "apiserver/protobuf/wire_reader.h"
#include "common/base64.h"
#include "common/rfc3339.h"

namespace troupe::apiserver::protobuf {

namespace {

using json = nlohmann::json;

// How one field maps to JSON. Field numbers are those of the generated.proto files of
// k8s.io/api and k8s.io/apimachinery.
enum class Kind {
  String,
  Bytes,  // base64 in JSON
  Int,    // int32 or int64 varint
  Bool,
  Time,       // meta.v1.Time {seconds, nanos} as RFC 3339
  Message,    // a nested message
  Strings,    // repeated string
  Messages,   // repeated message
  StringMap,  // map<string, string>
  BytesMap,   // map<string, bytes>
  Skip,       // known, not carried over (managedFields: the server owns them)
};

struct MessageSpec;
struct FieldSpec {
  int number;
  const char* name;
  Kind kind;
  const MessageSpec* message = nullptr;
};
struct MessageSpec {
  const char* name;
  std::vector<FieldSpec> fields;
};

const MessageSpec kOwnerReference{"OwnerReference",
                                  {{1, "kind", Kind::String},
                                   {3, "name", Kind::String},
                                   {4, "uid", Kind::String},
                                   {5, "apiVersion", Kind::String},
                                   {6, "controller", Kind::Bool},
                                   {7, "blockOwnerDeletion", Kind::Bool}}};
const MessageSpec kObjectMeta{"ObjectMeta",
                              {{1, "name", Kind::String},
                               {2, "generateName", Kind::String},
                               {3, "namespace", Kind::String},
                               {4, "selfLink", Kind::String},
                               {5, "uid", Kind::String},
                               {6, "resourceVersion", Kind::String},
                               {7, "generation", Kind::Int},
                               {8, "creationTimestamp", Kind::Time},
                               {9, "deletionTimestamp", Kind::Time},
                               {10, "deletionGracePeriodSeconds", Kind::Int},
                               {11, "labels", Kind::StringMap},
                               {12, "annotations", Kind::StringMap},
                               {13, "ownerReferences", Kind::Messages, &kOwnerReference},
                               {14, "finalizers", Kind::Strings},
                               {17, "managedFields", Kind::Skip}}};
const MessageSpec kNamespaceSpec{"NamespaceSpec", {{1, "finalizers", Kind::Strings}}};
const MessageSpec kNamespaceStatus{"NamespaceStatus", {{1, "phase", Kind::String}}};
const MessageSpec kNamespace{"Namespace",
                             {{1, "metadata", Kind::Message, &kObjectMeta},
                              {2, "spec", Kind::Message, &kNamespaceSpec},
                              {3, "status", Kind::Message, &kNamespaceStatus}}};
const MessageSpec kConfigMap{"ConfigMap",
                             {{1, "metadata", Kind::Message, &kObjectMeta},
                              {2, "data", Kind::StringMap},
                              {3, "binaryData", Kind::BytesMap},
                              {4, "immutable", Kind::Bool}}};
const MessageSpec kSecret{"Secret",
                          {{1, "metadata", Kind::Message, &kObjectMeta},
                           {2, "data", Kind::BytesMap},
                           {3, "type", Kind::String},
                           {4, "stringData", Kind::StringMap},
                           {5, "immutable", Kind::Bool}}};
const MessageSpec kObjectReference{"ObjectReference",
                                   {{1, "kind", Kind::String},
                                    {2, "namespace", Kind::String},
                                    {3, "name", Kind::String},
                                    {4, "uid", Kind::String},
                                    {5, "apiVersion", Kind::String},
                                    {6, "resourceVersion", Kind::String},
                                    {7, "fieldPath", Kind::String}}};
const MessageSpec kLocalObjectReference{"LocalObjectReference", {{1, "name", Kind::String}}};
const MessageSpec kServiceAccount{"ServiceAccount",
                                  {{1, "metadata", Kind::Message, &kObjectMeta},
                                   {2, "secrets", Kind::Messages, &kObjectReference},
                                   {3, "imagePullSecrets", Kind::Messages, &kLocalObjectReference},
                                   {4, "automountServiceAccountToken", Kind::Bool}}};
const MessageSpec kPriorityClass{"PriorityClass",
                                 {{1, "metadata", Kind::Message, &kObjectMeta},
                                  {2, "value", Kind::Int},
                                  {3, "globalDefault", Kind::Bool},
                                  {4, "description", Kind::String},
                                  {5, "preemptionPolicy", Kind::String}}};

const std::map<std::string, const MessageSpec*>& topLevel() {
  static const std::map<std::string, const MessageSpec*> kinds{
      {"v1/Namespace", &kNamespace},
      {"v1/ConfigMap", &kConfigMap},
      {"v1/Secret", &kSecret},
      {"v1/ServiceAccount", &kServiceAccount},
      {"scheduling.k8s.io/v1/PriorityClass", &kPriorityClass}};
  return kinds;
}

Error unsupported(const std::string& what) {
  return Error{ErrorCode::UnsupportedMedia, "",
               what + "; send the object as application/json instead"};
}

Result<json> decodeMessage(std::string_view bytes, const MessageSpec& spec);

// map<K, V> entries are messages {1: key, 2: value}.
Result<std::pair<std::string, std::string_view>> mapEntry(std::string_view bytes) {
  auto fields = readMessage(bytes);
  if (!fields) return fields.error();
  std::pair<std::string, std::string_view> entry;
  for (const auto& f : *fields) {
    if (f.type != WireType::LengthDelimited) continue;
    if (f.number == 1) entry.first = std::string(f.bytes);
    if (f.number == 2) entry.second = f.bytes;
  }
  return entry;
}

Result<json> decodeTime(std::string_view bytes) {
  auto fields = readMessage(bytes);
  if (!fields) return fields.error();
  std::int64_t seconds = 0;
  for (const auto& f : *fields)
    if (f.number == 1 && f.type == WireType::Varint) seconds = static_cast<std::int64_t>(f.varint);
  // RFC 3339 years 0001 to 9999, as a meta/v1 Time can be written; beyond them the count of
  // nanoseconds would not fit the clock's type.
  constexpr std::int64_t kFirst = -62135596800, kLast = 253402300799;
  if (seconds < kFirst || seconds > kLast)
    return Error{ErrorCode::BadRequest, "",
                 fmt::format("malformed protobuf: time {} s is outside years 1 to 9999", seconds)};
  return json(formatRfc3339(Time(std::chrono::seconds(seconds))));
}

// Protobuf strings are UTF-8; so is every text the server stores and sends.
Result<std::string> text(std::string_view bytes, const MessageSpec& spec, const char* field) {
  if (!simdjson::validate_utf8(bytes.data(), bytes.size()))
    return Error{ErrorCode::BadRequest, "",
                 fmt::format("malformed protobuf: {}.{} is not UTF-8", spec.name, field)};
  return std::string(bytes);
}

Result<json> decodeMessage(std::string_view bytes, const MessageSpec& spec) {
  auto fields = readMessage(bytes);
  if (!fields) return fields.error();
  json out = json::object();
  for (const auto& f : *fields) {
    const FieldSpec* field = nullptr;
    for (const auto& candidate : spec.fields)
      if (candidate.number == f.number) field = &candidate;
    if (!field)
      return unsupported(fmt::format("field {} of {} is not understood", f.number, spec.name));
    const bool delimited = f.type == WireType::LengthDelimited;
    const bool varint = f.type == WireType::Varint;
    const bool fits =
        field->kind == Kind::Skip ||
        ((field->kind == Kind::Int || field->kind == Kind::Bool) ? varint : delimited);
    if (!fits)
      return Error{
          ErrorCode::BadRequest, "",
          fmt::format("malformed protobuf: {}.{} has the wrong wire type", spec.name, field->name)};
    json& slot = out[field->name];
    switch (field->kind) {
      case Kind::String: {
        auto value = text(f.bytes, spec, field->name);
        if (!value) return value.error();
        slot = std::move(*value);
        break;
      }
      case Kind::Bytes: slot = encodeBase64(f.bytes); break;
      case Kind::Int: slot = static_cast<std::int64_t>(f.varint); break;
      case Kind::Bool: slot = f.varint != 0; break;
      case Kind::Time: {
        auto t = decodeTime(f.bytes);
        if (!t) return t.error();
        slot = std::move(*t);
        break;
      }
      case Kind::Message: {
        auto m = decodeMessage(f.bytes, *field->message);
        if (!m) return m.error();
        slot = std::move(*m);
        break;
      }
      case Kind::Strings: {
        auto value = text(f.bytes, spec, field->name);
        if (!value) return value.error();
        slot.push_back(std::move(*value));
        break;
      }
      case Kind::Messages: {
        auto m = decodeMessage(f.bytes, *field->message);
        if (!m) return m.error();
        slot.push_back(std::move(*m));
        break;
      }
      case Kind::StringMap:
      case Kind::BytesMap: {
        auto entry = mapEntry(f.bytes);
        if (!entry) return entry.error();
        auto key = text(entry->first, spec, field->name);
        if (!key) return key.error();
        if (field->kind == Kind::StringMap) {
          auto value = text(entry->second, spec, field->name);
          if (!value) return value.error();
          slot[*key] = std::move(*value);
        } else {
          slot[*key] = encodeBase64(entry->second);
        }
        break;
      }
      case Kind::Skip: out.erase(field->name); break;
    }
  }
  return out;
}

}  // namespace

Result<json> decodeObject(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic)
    return Error{ErrorCode::BadRequest, "",
                 "malformed protobuf: the body does not start with the Kubernetes magic k8s\\0"};
  auto envelope = readMessage(body.substr(4));
  if (!envelope) return envelope.error();
  std::string api_version, kind, content_encoding;
  std::string_view raw;
  for (const auto& f : *envelope) {
    if (f.type != WireType::LengthDelimited) continue;
    if (f.number == 1) {
      auto type_meta = readMessage(f.bytes);
      if (!type_meta) return type_meta.error();
      for (const auto& t : *type_meta) {
        if (t.number == 1) api_version = std::string(t.bytes);
        if (t.number == 2) kind = std::string(t.bytes);
      }
    } else if (f.number == 2) {
      raw = f.bytes;
    } else if (f.number == 3) {
      content_encoding = std::string(f.bytes);
    }
  }
  if (!content_encoding.empty())
    return unsupported("protobuf content encoding \"" + content_encoding + "\" is not supported");
  auto spec = topLevel().find(api_version + "/" + kind);
  if (spec == topLevel().end())
    return unsupported(fmt::format("{} {} is not accepted as protobuf by this server",
                                   api_version.empty() ? "(no apiVersion)" : api_version,
                                   kind.empty() ? "(no kind)" : kind));
  auto object = decodeMessage(raw, *spec->second);
  if (!object) return object.error();
  object->emplace("apiVersion", api_version);
  object->emplace("kind", kind);
  return object;
}

}  // namespace troupe::apiserver::protobuf
