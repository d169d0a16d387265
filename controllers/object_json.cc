#include "controllers/object_json.h"

#include <fmt/format.h>

#include <ctime>

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
  std::tm tm{};
  int fraction_start = 0;
  std::string s(text);
  if (s.size() < 20) return std::nullopt;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &fraction_start) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::size_t rest = static_cast<std::size_t>(fraction_start);
  if (rest < s.size() && s[rest] == '.') {
    ++rest;
    while (rest < s.size() && std::isdigit(static_cast<unsigned char>(s[rest]))) ++rest;
  }
  std::int64_t offset = 0;
  if (rest < s.size() && (s[rest] == '+' || s[rest] == '-')) {
    int hh = 0, mm = 0;
    if (std::sscanf(s.c_str() + rest + 1, "%2d:%2d", &hh, &mm) != 2) return std::nullopt;
    offset = (s[rest] == '+' ? 1 : -1) * (hh * 3600 + mm * 60);
  } else if (rest >= s.size() || (s[rest] != 'Z' && s[rest] != 'z')) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(timegm(&tm)) - offset;
}

std::string formatTimestamp(std::int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
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
