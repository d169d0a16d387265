#include "test/admission/case_table.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "api/yaml.h"

namespace troupe::admission::testing {

using nlohmann::json;

namespace {

json build(const json& bases, const json& entry) {
  const std::string base = entry.at("base").get<std::string>();
  json object = bases.at(base);
  if (entry.contains("merge")) object.merge_patch(entry["merge"]);
  return object;
}

}  // namespace

json AdmissionCase::changed() const {
  json out = objects.at(0);
  if (patch) out.merge_patch(*patch);
  if (scale) out["spec"]["replicas"] = *scale;
  return out;
}

CaseTable loadCaseTable() {
  std::ifstream in(std::string(TROUPE_SOURCE_DIR) + "/test/admission/cases.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto doc = api::parseYaml(text.str());
  if (!doc.ok()) throw std::runtime_error("cases.yaml: " + doc.error().describe());
  CaseTable table;
  for (const auto& o : (*doc)["setup"]) table.setup.push_back(o);
  const json& bases = (*doc)["bases"];
  for (const auto& c : (*doc)["cases"]) {
    AdmissionCase tc;
    tc.name = c.at("name").get<std::string>();
    if (c.contains("object")) tc.object = build(bases, c["object"]);
    if (c.contains("objects"))
      for (const auto& o : c["objects"]) tc.objects.push_back(build(bases, o));
    if (c.contains("patch")) tc.patch = c["patch"];
    if (c.contains("scale")) tc.scale = c["scale"].get<int>();
    tc.want = c.at("want").get<int>();
    tc.by = c.value("by", "");
    if (c.contains("causes"))
      for (const auto& cause : c["causes"]) tc.causes.push_back(cause.get<std::string>());
    if (tc.object.has_value() == !tc.objects.empty() ||
        (!tc.objects.empty() && tc.patch.has_value() == tc.scale.has_value()) ||
        tc.refused() != !tc.by.empty() || tc.refused() == tc.causes.empty())
      throw std::runtime_error("cases.yaml: case \"" + tc.name + "\" is not well formed");
    table.cases.push_back(std::move(tc));
  }
  return table;
}

std::string resourceOf(const json& object) {
  std::string kind = object.value("kind", "");
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kind + "s";
}

std::vector<std::string> causeTexts(const std::vector<std::string>& fields,
                                    const std::vector<std::string>& messages) {
  std::vector<std::string> out;
  for (size_t i = 0; i < fields.size() && i < messages.size(); ++i)
    out.push_back(fields[i] + ": " + messages[i]);
  return out;
}

}  // namespace troupe::admission::testing
