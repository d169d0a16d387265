#include "controllers/object_json.h"

#include "common/rfc3339.h"

namespace troupe::controllers {
namespace {

const Json* at(const Json& object, std::string_view pointer) {
  const Json* cur = &object;
  std::size_t pos = 1;
  while (pos <= pointer.size() && pos > 0) {
    std::size_t next = pointer.find('/', pos);
    std::string part(
        pointer.substr(pos, next == std::string_view::npos ? pointer.npos : next - pos));
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return cur;
}

}  // namespace

std::string stringAt(const Json& object, std::string_view pointer) {
  const Json* v = at(object, pointer);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::int64_t intAt(const Json& object, std::string_view pointer, std::int64_t fallback) {
  const Json* v = at(object, pointer);
  return v && v->is_number_integer() ? v->get<std::int64_t>() : fallback;
}

bool boolAt(const Json& object, std::string_view pointer, bool fallback) {
  const Json* v = at(object, pointer);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

std::string nameOf(const Json& object) { return stringAt(object, "/metadata/name"); }
std::string namespaceOf(const Json& object) { return stringAt(object, "/metadata/namespace"); }

std::string keyOf(const Json& object) {
  auto ns = namespaceOf(object);
  return ns.empty() ? nameOf(object) : ns + "/" + nameOf(object);
}

std::string label(const Json& object, std::string_view key) {
  const Json* labels = at(object, "/metadata/labels");
  if (!labels || !labels->is_object()) return {};
  auto it = labels->find(std::string(key));
  return it != labels->end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string annotation(const Json& object, std::string_view key) {
  const Json* annotations = at(object, "/metadata/annotations");
  if (!annotations || !annotations->is_object()) return {};
  auto it = annotations->find(std::string(key));
  return it != annotations->end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool isDeleting(const Json& object) {
  return !stringAt(object, "/metadata/deletionTimestamp").empty();
}

std::optional<std::int64_t> parseTimestamp(std::string_view text) {
  auto t = parseRfc3339(text);
  if (!t) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
}

std::string formatTimestamp(std::int64_t seconds) {
  return formatRfc3339(Time(std::chrono::seconds(seconds)));
}

std::optional<Owner> controllerOf(const Json& object) {
  const Json* refs = at(object, "/metadata/ownerReferences");
  if (!refs || !refs->is_array()) return std::nullopt;
  for (const auto& ref : *refs) {
    if (ref.is_object() && ref.value("controller", false)) {
      return Owner{ref.value("kind", ""), ref.value("name", ""), ref.value("uid", "")};
    }
  }
  return std::nullopt;
}

Json ownerReference(const Json& owner) {
  return Json{{"apiVersion", owner.value("apiVersion", "")},
              {"kind", owner.value("kind", "")},
              {"name", nameOf(owner)},
              {"uid", stringAt(owner, "/metadata/uid")},
              {"controller", true},
              {"blockOwnerDeletion", true}};
}

}  // namespace troupe::controllers
