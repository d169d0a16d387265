#include "test/operator/chart_identity.h"

#include <catch2/catch.hpp>

#include <fstream>

#include "apiserver/handlers/yaml_json.h"
#include "test/support/command.h"

namespace troupe::operator_runtime::testing {

using Json = nlohmann::json;

namespace {

std::string text(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string flagValue(const std::vector<std::string>& args, const std::string& flag) {
  for (const auto& arg : args)
    if (arg.rfind(flag + "=", 0) == 0) return arg.substr(flag.size() + 1);
  return "";
}

bool bindsTo(const Json& binding, const ChartIdentity& chart) {
  for (const auto& s : binding.value("subjects", Json::array()))
    if (text(s, "kind") == "ServiceAccount" && text(s, "name") == chart.service_account &&
        text(s, "namespace") == chart.ns)
      return true;
  return false;
}

}  // namespace

ChartIdentity renderChartIdentity() {
  ChartIdentity chart;
  auto rendered = troupe::testing::runCommand(
      std::string(TROUPE_CHART_RENDER) + " --release-name " + chart.release + " --namespace " +
          chart.ns + " " + TROUPE_SOURCE_DIR + "/helm/troupe",
      false);
  INFO(rendered.output);
  REQUIRE(rendered.exit_code == 0);
  auto documents = apiserver::yamlDocumentsToJson(rendered.output);
  REQUIRE(documents.ok());
  for (const auto& doc : *documents) {
    if (!doc.is_object()) continue;
    const auto kind = text(doc, "kind");
    if (kind == "ServiceAccount" || kind == "ClusterRole" || kind == "ClusterRoleBinding" ||
        kind == "Role" || kind == "RoleBinding")
      chart.rbac_objects.push_back(doc);
    if (kind == "Deployment") {
      const auto& container = doc["spec"]["template"]["spec"]["containers"][0];
      chart.service_account = text(doc["spec"]["template"]["spec"], "serviceAccountName");
      auto args = container.value("args", std::vector<std::string>{});
      REQUIRE(flagValue(args, "--leader-elect") == "true");
      chart.leader_election_namespace = flagValue(args, "--leader-election-namespace");
      chart.leader_election_id = flagValue(args, "--leader-election-id");
    }
  }
  REQUIRE_FALSE(chart.service_account.empty());
  return chart;
}

std::string Grant::describe() const {
  const auto& g = rule.api_groups.at(0);
  std::string out = source + ": " + rule.verbs.at(0) + " " + rule.resources.at(0);
  if (!g.empty()) out += "." + g;
  if (!rule.resource_names.empty()) out += " named " + rule.resource_names.at(0);
  return out;
}

std::vector<Grant> grantsOf(const ChartIdentity& chart) {
  std::vector<Grant> grants;
  auto role = [&](const std::string& kind, const std::string& name) -> const Json* {
    for (const auto& o : chart.rbac_objects)
      if (text(o, "kind") == kind && text(o["metadata"], "name") == name) return &o;
    return nullptr;
  };
  for (const auto& binding : chart.rbac_objects) {
    const auto kind = text(binding, "kind");
    if ((kind != "ClusterRoleBinding" && kind != "RoleBinding") || !bindsTo(binding, chart))
      continue;
    const auto ref_kind = text(binding["roleRef"], "kind");
    const auto ref_name = text(binding["roleRef"], "name");
    const Json* bound = role(ref_kind, ref_name);
    INFO(kind << " " << text(binding["metadata"], "name") << " refers to a missing " << ref_kind);
    REQUIRE(bound != nullptr);
    for (const auto& rule : apiserver::auth::rulesOf(*bound)) {
      std::vector<std::string> names = rule.resource_names;
      if (names.empty()) names.push_back("");
      for (const auto& verb : rule.verbs)
        for (const auto& group : rule.api_groups)
          for (const auto& resource : rule.resources)
            for (const auto& name : names) {
              apiserver::auth::PolicyRule one{{verb}, {group}, {resource}, {}, {}};
              if (!name.empty()) one.resource_names = {name};
              grants.push_back({one, ref_kind + " " + ref_name});
            }
    }
  }
  return grants;
}

std::string Decision::describe() const {
  std::string out = request.verb + " " + request.resource;
  if (!request.subresource.empty()) out += "/" + request.subresource;
  if (!request.group.empty()) out += "." + request.group;
  std::string where = request.ns.empty() ? "" : request.ns + "/";
  if (!request.name.empty() || !where.empty()) out += " " + where + request.name;
  if (request.ns.empty()) out += " (cluster scope)";
  return out;
}

std::vector<Decision> readDecisionLog(const std::string& path) {
  std::vector<Decision> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto review = Json::parse(line, nullptr, false);
    if (!review.is_object()) continue;
    const auto& spec = review["spec"];
    const auto& a = spec["resourceAttributes"];
    out.push_back({text(spec, "user"),
                   {text(a, "verb"), text(a, "group"), text(a, "resource"), text(a, "subresource"),
                    text(a, "namespace"), text(a, "name")},
                   review["status"].value("allowed", false),
                   text(review["status"], "reason")});
  }
  return out;
}

}  // namespace troupe::operator_runtime::testing
