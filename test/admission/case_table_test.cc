// The shared table of admission cases (cases.yaml) through each enforcer that runs here: the
// CRDs' schemas and CEL rules in the embedded evaluator, `troupe validate`, and `troupe serve`
// driven by kubectl. The last one runs against any cluster instead when
// TROUPE_ADMISSION_KUBECONFIG names its kubeconfig (scripts/check-admission-on-cluster does
// that for a real kube-apiserver with Troupe installed).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "api/crd_manifests.h"
#include "api/yaml.h"
#include "openapi/schema.h"
#include "test/admission/case_table.h"
#include "test/support/command.h"
#include "test/support/serve_process.h"
#include "test/support/temp_dir.h"

namespace troupe::admission::testing {
namespace {

using nlohmann::json;
using troupe::testing::CommandResult;
using troupe::testing::runCommand;
using troupe::testing::TempDir;

bool troupeKind(const json& object) {
  return object.value("apiVersion", "").rfind("troupe.dev/", 0) == 0;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// What kubectl or troupe validate shows of a cause: a 403 shows the reason alone (the Status
// message says "is forbidden"), anything else "field: message".
std::string shown(const AdmissionCase& tc, const std::string& cause) {
  const std::string forbidden = ": Forbidden: ";
  auto at = cause.find(forbidden);
  if (tc.want == 403 && at != std::string::npos) return cause.substr(at + forbidden.size());
  return cause;
}

// Checks an answer printed by kubectl or troupe validate against the case.
void checkAnswer(const AdmissionCase& tc, bool accepted, const std::string& output) {
  INFO(output);
  if (!tc.refused()) {
    CHECK(accepted);
    return;
  }
  CHECK_FALSE(accepted);
  if (tc.want == 403) CHECK_THAT(output, Catch::Contains("forbidden"));
  if (tc.want == 422) CHECK_THAT(output, Catch::Contains("is invalid"));
  // kubectl shows an Invalid Status by its causes alone ("The TrainingJob "x" is invalid:
  // ..."), without the message that names a refusing webhook; other answers show it.
  if (output.find("\" is invalid: ") == std::string::npos ||
      output.find("Error from server") != std::string::npos) {
    const bool by_webhook = output.find("admission webhook \"") != std::string::npos;
    CHECK(by_webhook == (tc.by == "webhook"));
  }
  for (const auto& cause : tc.causes) CHECK_THAT(output, Catch::Contains(shown(tc, cause)));
}

TEST_CASE("the CRDs' schemas and CEL rules refuse exactly what the table has the CRD refuse",
          "[admission][case-table][cel]") {
  auto table = loadCaseTable();
  std::map<std::string, openapi::Schema> schemas;
  for (const auto& manifest : api::crdManifests()) {
    auto doc = api::parseYaml(manifest.yaml);
    REQUIRE(doc.ok());
    auto schema =
        openapi::Schema::fromJson((*doc)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]);
    REQUIRE(schema.ok());
    schemas.emplace(std::string(manifest.kind), std::move(*schema));
  }
  int checked = 0;
  for (const auto& tc : table.cases) {
    json object = tc.isChange() ? tc.changed() : *tc.object;
    if (!troupeKind(object)) continue;
    DYNAMIC_SECTION(tc.name) {
      const auto& schema = schemas.at(object.value("kind", ""));
      // As an API server does: the stored object was pruned and defaulted, so is the new one.
      std::optional<json> old;
      if (tc.isChange()) {
        old = tc.objects[0];
        schema.prune(*old);
        schema.applyDefaults(*old);
      }
      schema.prune(object);
      schema.applyDefaults(object);
      std::vector<std::string> got;
      for (const auto& e : schema.validate(object, old ? &*old : nullptr))
        got.push_back((e.field_path.empty() ? "<nil>" : e.field_path) + ": " + e.message);
      if (tc.by == "crd") {
        CHECK(sorted(got) == sorted(tc.causes));
      } else {
        CHECK(got.empty());
      }
    }
    ++checked;
  }
  CHECK(checked >= 60);
}

std::string setupYaml(const CaseTable& table) {
  std::string out = "# the setup of cases.yaml\n";
  for (const auto& o : table.setup) out += o.dump() + "\n---\n";
  return out;
}

TEST_CASE("troupe validate answers every new object of the table as the API server would",
          "[admission][case-table][validate]") {
  auto table = loadCaseTable();
  TempDir dir;
  const std::string setup = setupYaml(table);
  int checked = 0;
  for (const auto& tc : table.cases) {
    if (tc.isChange()) continue;  // troupe validate has no stored object to compare with
    DYNAMIC_SECTION(tc.name) {
      auto file = dir.write("case.yaml", setup + tc.object->dump() + "\n");
      auto run = runCommand(troupe::testing::troupeBinary() + " validate -f " + file, false);
      // One line an object; the case's object is the last.
      std::string output = run.output;
      while (!output.empty() && output.back() == '\n') output.pop_back();
      std::string last = output.substr(output.rfind('\n') + 1);
      checkAnswer(tc, last.size() > 7 && last.substr(last.size() - 7) == ": valid", last);
      CHECK(run.exit_code == (tc.refused() ? 1 : 0));
    }
    ++checked;
  }
  CHECK(checked >= 60);
}

// kubectl against a kubeconfig, with a discovery cache of its own.
class Kubectl {
 public:
  Kubectl(std::string kubeconfig, std::string dir)
      : kubeconfig_(std::move(kubeconfig)), dir_(std::move(dir)) {}
  CommandResult run(const std::string& args) const {
    return runCommand("timeout 60 kubectl --kubeconfig " + kubeconfig_ + " --cache-dir " + dir_ +
                      "/kube-cache " + args);
  }
  // Writes `object` to a file and runs `verb -f FILE args`.
  CommandResult withFile(const std::string& verb, const json& object,
                         const std::string& args = "") const {
    std::string file = dir_ + "/object.json";
    std::ofstream(file, std::ios::trunc) << object.dump();
    return run(verb + " -f " + file + " " + args);
  }

 private:
  std::string kubeconfig_;
  std::string dir_;
};

std::string target(const json& object) {
  std::string kind = resourceOf(object);
  if (troupeKind(object)) kind += ".troupe.dev";
  std::string out = kind + "/" + object["metadata"].value("name", "");
  std::string ns = object["metadata"].value("namespace", "");
  return ns.empty() ? out : out + " -n " + ns;
}

void runChange(const Kubectl& k, const AdmissionCase& tc) {
  for (const auto& o : tc.objects) {
    auto made = k.withFile("create", o);
    INFO(made.output);
    REQUIRE(made.exit_code == 0);
  }
  const json& first = tc.objects[0];
  if (tc.scale) {
    auto run = k.run("scale " + target(first) + " --replicas=" + std::to_string(*tc.scale) +
                     " --dry-run=server");
    checkAnswer(tc, run.exit_code == 0, run.output);
  } else {
    // The object as stored, and as the change leaves it (every write below is a dry run).
    auto current = k.run("get " + target(first) + " -o json");
    REQUIRE(current.exit_code == 0);
    const json stored = json::parse(current.output);
    json wanted = stored;
    wanted.merge_patch(*tc.patch);
    {
      INFO("merge patch");
      auto run = k.run("patch " + target(first) + " --type merge --dry-run=server -p '" +
                       tc.patch->dump() + "'");
      checkAnswer(tc, run.exit_code == 0, run.output);
    }
    {
      // The same change as RFC 6902 operations (replace, add, remove), as a client that
      // edits one field at a time sends it.
      INFO("JSON patch");
      auto run = k.run("patch " + target(first) + " --type json --dry-run=server -p '" +
                       json::diff(stored, wanted).dump() + "'");
      checkAnswer(tc, run.exit_code == 0, run.output);
    }
    {
      INFO("replace");
      auto run = k.withFile("replace", wanted, "--dry-run=server");
      checkAnswer(tc, run.exit_code == 0, run.output);
    }
    {
      INFO("server-side apply");
      auto run = k.withFile("apply", tc.changed(),
                            "--server-side --force-conflicts --field-manager=case-table "
                            "--dry-run=server");
      checkAnswer(tc, run.exit_code == 0, run.output);
    }
  }
  for (auto it = tc.objects.rbegin(); it != tc.objects.rend(); ++it)
    k.run("delete " + target(*it) + " --wait=false --ignore-not-found");
}

TEST_CASE("troupe serve answers kubectl for every case of the table",
          "[admission][case-table][kubectl]") {
  auto table = loadCaseTable();
  TempDir dir;
  std::optional<troupe::testing::ServeProcess> serve;
  std::string kubeconfig;
  if (const char* external = std::getenv("TROUPE_ADMISSION_KUBECONFIG")) {
    kubeconfig = external;
  } else {
    serve.emplace("28", "", troupe::testing::ServeProcess::Crds::Troupe);
    REQUIRE(serve->start());
    kubeconfig = serve->kubeconfig();
  }
  Kubectl k(kubeconfig, dir.path());
  auto file = dir.write("setup.yaml", setupYaml(table));
  auto setup = k.run("apply -f " + file);
  INFO(setup.output);
  REQUIRE(setup.exit_code == 0);
  // One pass, no sections: a section would start the server and the setup again.
  for (const auto& tc : table.cases) {
    INFO("case: " << tc.name);
    if (tc.isChange()) {
      runChange(k, tc);
    } else {
      auto run = k.withFile("create", *tc.object, "--dry-run=server");
      checkAnswer(tc, run.exit_code == 0, run.output);
    }
  }
}

}  // namespace
}  // namespace troupe::admission::testing
