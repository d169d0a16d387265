#include "apiserver/handlers/table.h"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "common/json_member.h"
#include "common/rfc3339.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

const char* kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although "
    "some resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

json get(const json& object, std::initializer_list<const char*> path) {
  const json* node = &object;
  for (const char* p : path) {
    if (!node->is_object() || !node->contains(p)) return nullptr;
    node = &(*node)[p];
  }
  return *node;
}

std::string ageOf(const json& timestamp, Time now) {
  if (!timestamp.is_string()) return "<unknown>";
  auto t = parseRfc3339(timestamp.get<std::string>());
  if (!t) return "<unknown>";
  return humanDuration(now - *t);
}

json computed(const std::string& what, const json& o, Time now) {
  if (what == "#podReady") {
    int total = static_cast<int>(get(o, {"spec", "containers"}).size());
    int ready = 0;
    for (const auto& s : get(o, {"status", "containerStatuses"}).is_array()
                             ? get(o, {"status", "containerStatuses"})
                             : json::array())
      if (s.value("ready", false)) ++ready;
    return fmt::format("{}/{}", ready, total);
  }
  if (what == "#podStatus") {
    if (get(o, {"metadata", "deletionTimestamp"}).is_string()) return "Terminating";
    json reason = get(o, {"status", "reason"});
    if (reason.is_string()) return reason;
    json phase = get(o, {"status", "phase"});
    return phase.is_string() ? phase : json("Unknown");
  }
  if (what == "#podRestarts") {
    int restarts = 0;
    json statuses = get(o, {"status", "containerStatuses"});
    if (statuses.is_array())
      for (const auto& s : statuses) restarts += s.value("restartCount", 0);
    return std::to_string(restarts);
  }
  if (what == "#podReadinessGates") return "<none>";
  if (what == "#nodeStatus") {
    std::string status = "NotReady";
    json conditions = get(o, {"status", "conditions"});
    if (conditions.is_array())
      for (const auto& c : conditions)
        if (c.value("type", "") == "Ready")
          status = c.value("status", "") == "True" ? "Ready" : "NotReady";
    if (get(o, {"spec", "unschedulable"}) == json(true)) status += ",SchedulingDisabled";
    return status;
  }
  if (what == "#nodeRoles") {
    std::string roles;
    json labels = get(o, {"metadata", "labels"});
    if (labels.is_object())
      for (auto it = labels.begin(); it != labels.end(); ++it)
        if (it.key().rfind("node-role.kubernetes.io/", 0) == 0)
          roles += (roles.empty() ? "" : ",") + it.key().substr(24);
    return roles.empty() ? "<none>" : roles;
  }
  if (what == "#serviceExternalIP") return "<none>";
  if (what == "#servicePorts") {
    std::string ports;
    json list = get(o, {"spec", "ports"});
    if (list.is_array())
      for (const auto& p : list)
        ports += (ports.empty() ? "" : ",") +
                 fmt::format("{}/{}", p.value("port", 0), p.value("protocol", "TCP"));
    return ports.empty() ? "<none>" : ports;
  }
  if (what == "#serviceSelector") {
    std::string out;
    json selector = get(o, {"spec", "selector"});
    if (selector.is_object())
      for (auto it = selector.begin(); it != selector.end(); ++it)
        out += (out.empty() ? "" : ",") + it.key() + "=" + it.value().get<std::string>();
    return out.empty() ? "<none>" : out;
  }
  if (what == "#eventLastSeen") {
    json t = get(o, {"lastTimestamp"});
    if (!t.is_string()) t = get(o, {"eventTime"});
    if (!t.is_string()) t = get(o, {"metadata", "creationTimestamp"});
    return ageOf(t, now);
  }
  if (what == "#eventObject") {
    json involved = get(o, {"involvedObject"});
    if (!involved.is_object()) return "";
    std::string kind = involved.value("kind", "");
    for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return kind + "/" + involved.value("name", "");
  }
  if (what == "#dataCount") {
    std::size_t n = get(o, {"data"}).size() + get(o, {"binaryData"}).size();
    return n;
  }
  if (what == "#secretCount") return get(o, {"secrets"}).size();
  if (what == "#createdAt") return get(o, {"metadata", "creationTimestamp"});
  return nullptr;
}

json cellFor(const PrinterColumn& column, const json& object, Time now) {
  if (!column.json_path.empty() && column.json_path.front() == '#')
    return computed(column.json_path, object, now);
  auto results = evalJsonPath(object, column.json_path);
  if (results.empty()) return nullptr;
  json value = results.front();
  if (results.size() > 1) {
    std::string joined;
    for (const auto& r : results)
      joined += (joined.empty() ? "" : ",") + (r.is_string() ? r.get<std::string>() : r.dump());
    value = joined;
  }
  if (column.type == "date") return ageOf(value, now);
  if (column.type == "integer" && value.is_number()) return value.get<std::int64_t>();
  if (column.type == "string" && !value.is_string() && !value.is_null()) return value.dump();
  return value;
}

// Applies one path step to each node in `nodes`.
std::vector<json> step(const std::vector<json>& nodes, const std::string& token) {
  std::vector<json> out;
  for (const auto& n : nodes) {
    if (token == "*") {
      if (n.is_array())
        for (const auto& e : n) out.push_back(e);
      else if (n.is_object())
        for (const auto& e : n) out.push_back(e);
      continue;
    }
    if (!token.empty() && token.front() == '?') {
      // ?(@.key=="value") or ?(@.key)
      std::string expr = token.substr(2, token.size() - 3);  // @.key=="value"
      auto eq = expr.find("==");
      std::string key = expr.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      std::string want;
      if (eq != std::string::npos) {
        want = expr.substr(eq + 2);
        if (want.size() >= 2 && (want.front() == '"' || want.front() == '\''))
          want = want.substr(1, want.size() - 2);
      }
      if (!n.is_array()) continue;
      for (const auto& e : n) {
        if (!e.is_object() || !e.contains(key)) continue;
        const json& v = e[key];
        std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        if (eq == std::string::npos || text == want) out.push_back(e);
      }
      continue;
    }
    if (!token.empty() && std::isdigit(static_cast<unsigned char>(token.front()))) {
      errno = 0;
      const unsigned long long index = std::strtoull(token.c_str(), nullptr, 10);
      if (errno == 0 && n.is_array() && index < n.size()) out.push_back(n[index]);
      continue;
    }
    if (n.is_object() && n.contains(token)) out.push_back(n[token]);
  }
  return out;
}

// Reads one member name starting at `i`, up to the next unescaped '.' or '['. Kubernetes
// JSONPath escapes dots inside a name with a backslash (`.spec.resources.nvidia\.com/gpu`).
std::string readName(const std::string& path, std::size_t& i) {
  std::string name;
  while (i < path.size() && path[i] != '.' && path[i] != '[') {
    if (path[i] == '\\' && i + 1 < path.size()) ++i;
    name.push_back(path[i++]);
  }
  return name;
}

}  // namespace

std::vector<json> evalJsonPath(const json& object, const std::string& raw) {
  std::string path = raw;
  if (!path.empty() && path.front() == '{') path = path.substr(1, path.size() - 2);
  std::vector<json> nodes = {object};
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::string name = readName(path, i);
      if (!name.empty()) nodes = step(nodes, name);
    } else if (path[i] == '[') {
      std::size_t end = path.find(']', i);
      if (path.compare(i, 2, "[?") == 0) end = path.find(")]", i) + 1;
      if (end == std::string::npos) return {};
      std::string token = path.substr(i + 1, end - i - 1);
      if (token.size() >= 2 && token.front() == '\'') token = token.substr(1, token.size() - 2);
      nodes = step(nodes, token);
      i = end + 1;
    } else {
      nodes = step(nodes, readName(path, i));
    }
  }
  return nodes;
}

std::string humanDuration(Duration d) {
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  auto minutes = seconds / 60;
  if (minutes < 10) {
    auto s = seconds % 60;
    return s == 0 ? fmt::format("{}m", minutes) : fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 180) return fmt::format("{}m", minutes);
  auto hours = minutes / 60;
  if (hours < 8) {
    auto m = minutes % 60;
    return m == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    auto h = hours % 24;
    return h == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    auto dy = (hours / 24) % 365;
    return dy == 0 ? fmt::format("{}y", hours / 24 / 365)
                   : fmt::format("{}y{}d", hours / 24 / 365, dy);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

json tableColumns(const ResourceKind& kind) {
  json columns = json::array();
  columns.push_back({{"name", "Name"},
                     {"type", "string"},
                     {"format", "name"},
                     {"description", kNameDescription},
                     {"priority", 0}});
  for (const auto& c : kind.columns) {
    columns.push_back({{"name", c.name},
                       {"type", c.type == "date" && !kind.custom ? "string" : c.type},
                       {"format", c.format},
                       {"description", c.description},
                       {"priority", c.priority}});
  }
  return columns;
}

json partialObjectMetadata(const json& object) {
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", object.value("metadata", json::object())}};
}

json tableRow(const ResourceKind& kind, const json& object, Time now, bool include_object) {
  json cells = json::array();
  cells.push_back(metaString(object, "name"));
  for (const auto& c : kind.columns) cells.push_back(cellFor(c, object, now));
  return {{"cells", cells}, {"object", include_object ? object : partialObjectMetadata(object)}};
}

json makeTable(const ResourceKind& kind, const std::vector<json>& items, json list_meta, Time now,
               bool include_object, bool with_columns) {
  json rows = json::array();
  for (const auto& item : items) rows.push_back(tableRow(kind, item, now, include_object));
  json table = json::object();
  table["kind"] = "Table";
  table["apiVersion"] = "meta.k8s.io/v1";
  table["metadata"] = std::move(list_meta);
  table["columnDefinitions"] = with_columns ? tableColumns(kind) : json(nullptr);
  table["rows"] = rows;
  return table;
}

}  // namespace troupe::apiserver
