// A table of hostile requests against the real `troupe serve`, each sent over HTTPS by
// curl: bodies nested deep or bombed with aliases, text that is not UTF-8, numbers and
// quantities out of range, malformed query parameters, unsupported media types, patches
// that multiply. After every one the server must still answer, the answer must be the 4xx
// (in Status form) the real kube-apiserver gives, and the request must not have cost more
// than a bounded amount of memory.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/support/https_client.h"
#include "test/support/serve_process.h"

namespace troupe::testing {
namespace {

using json = nlohmann::json;

constexpr const char* kAdmin = "hostile-admin-token-0123456789";
constexpr const char* kTenant = "hostile-tenant-token-0123456789";

// `troupe serve` with Troupe's own CRDs (after the recorded one, so they win) and a token
// file holding an admin and a tenant of namespace team-a.
class HostileServe : public ServeProcess {
 public:
  HostileServe() {
    addArguments({"--crds", std::string(TROUPE_SOURCE_DIR) + "/crds"});
    std::filesystem::create_directories(dataDir());
    std::ofstream(dataDir() + "/tokens") << kAdmin << " admin *\n"
                                         << kTenant << " alice namespace:team-a\n";
  }
};

// Kilobytes of /proc/<pid>/status's `field` (VmRSS, VmHWM).
long statusKb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

// Resets the peak resident set (VmHWM) to the current one.
void resetPeak(pid_t pid) { std::ofstream("/proc/" + std::to_string(pid) + "/clear_refs") << "5"; }

// What one request may add to the server's peak memory. A sanitizer build keeps freed
// memory in quarantine and pads every allocation, so it gets more room; the failures this
// guards against cost gigabytes.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kMaxPeakGrowthKb = 400 * 1024;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr long kMaxPeakGrowthKb = 400 * 1024;
#else
constexpr long kMaxPeakGrowthKb = 100 * 1024;
#endif
#else
constexpr long kMaxPeakGrowthKb = 100 * 1024;
#endif

std::string nestedArrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// A TrainingJob whose pod template carries `extra` as the value of an unknown field
// (kept: the template's spec preserves unknown fields), and `resources` for its container.
std::string trainingJob(const std::string& name, const std::string& extra,
                        const std::string& resources = "{}") {
  return R"({"apiVersion":"troupe.dev/v1alpha1","kind":"TrainingJob","metadata":{"name":")" + name +
         R"("},"spec":{"queue":"team-a","replicas":1,"template":{"spec":{"x":)" + extra +
         R"(,"containers":[{"name":"c","image":"i","resources":)" + resources + "}]}}}}";
}

std::string pod(const std::string& name, const std::string& resources) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"("},"spec":{"containers":[{"name":"c","image":"i","resources":)" + resources + "}]}}";
}

std::string configMapAliasBomb() {
  std::string text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n";
  text += "a0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n";
  for (int i = 1; i <= 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) text += (j ? ",*a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  return text + "data: {x: *a9}\n";
}

std::string jsonPatch(std::size_t operations) {
  std::string patch = "[";
  for (std::size_t i = 0; i < operations; ++i)
    patch += std::string(i ? "," : "") + R"({"op":"test","path":"/kind","value":"ConfigMap"})";
  return patch + "]";
}

// Twenty copies, each of everything before it: 2^20 times the ConfigMap's data.
std::string copyBomb() {
  std::string patch = R"([{"op":"add","path":"/data","value":{"k":")" + std::string(1000, 'x') +
                      R"("}},{"op":"add","path":"/metadata/annotations","value":{}})";
  for (int i = 0; i < 20; ++i)
    patch += R"(,{"op":"copy","from":"/data","path":"/data/c)" + std::to_string(i) + "\"}";
  return patch + "]";
}

struct Case {
  std::string name;
  std::string method;
  std::string path;
  std::string content_type;
  std::string body;
  int want_status;
  std::string want_in_message;  // empty: any
  std::string token = kAdmin;
};

const std::string kTj = "/apis/troupe.dev/v1alpha1/namespaces/team-a/trainingjobs";
const std::string kPods = "/api/v1/namespaces/team-a/pods";
const std::string kConfigMaps = "/api/v1/namespaces/team-a/configmaps";

std::vector<Case> hostileCases() {
  std::vector<Case> cases = {
      // Limits on what one request may cost.
      {"a TrainingJob nesting 100,000 arrays (200 KB) from a tenant", "POST", kTj,
       "application/json", trainingJob("deep", nestedArrays(100000)), 400, "exceeded max depth",
       kTenant},
      {"a TrainingJob nesting 10,000 arrays", "POST", kTj, "application/json",
       trainingJob("deep", nestedArrays(10000)), 400, "exceeded max depth"},
      {"3 MB of unclosed brackets", "POST", kConfigMaps, "application/json",
       std::string(3000000, '['), 400, "exceeded max depth"},
      {"a YAML alias bomb", "POST", kConfigMaps, "application/yaml", configMapAliasBomb(), 400,
       "excessive aliasing"},
      {"a YAML alias bomb from a tenant", "POST", kTj, "application/yaml", configMapAliasBomb(),
       400, "excessive aliasing", kTenant},
      {"YAML nesting 100,000 sequences", "POST", kConfigMaps, "application/yaml",
       "data: " + nestedArrays(100000), 400, "exceeded max depth"},
      {"YAML of 100,000 unclosed sequences", "POST", kConfigMaps, "application/yaml",
       "data: " + std::string(100000, '['), 400, "error converting YAML to JSON"},
      {"a body over 3 MiB", "POST", kConfigMaps, "application/json",
       R"({"data":{"a":")" + std::string(3200000, 'x') + "\"}}", 413, "limit is 3145728"},
      {"a JSON patch of 10,001 operations", "PATCH", kConfigMaps + "/victim",
       "application/json-patch+json", jsonPatch(10001), 413, "maximum operations"},
      {"a JSON patch whose copies double 20 times", "PATCH", kConfigMaps + "/victim",
       "application/json-patch+json", copyBomb(), 422, "accumulated size"},
      // 995 levels under the 8 containers holding x/0/0/0: 1,003 (the body itself nests 997).
      {"a JSON patch putting a deep value under a deep path", "PATCH", kTj + "/fine",
       "application/json-patch+json",
       R"([{"op":"add","path":"/spec/template/spec/x/0/0/0/0","value":)" + nestedArrays(995) + "}]",
       422, "levels deep"},
      // Bad input is a 4xx.
      {"invalid UTF-8 in a JSON body", "POST", kConfigMaps, "application/json",
       "{\"metadata\":{\"name\":\"u\"},\"data\":{\"a\":\"\xff\xfe\"}}", 400, "UTF-8"},
      {"invalid UTF-8 in a YAML body", "POST", kConfigMaps, "application/yaml",
       "metadata: {name: u}\ndata: {a: \"\xc3\"}\n", 400, "UTF-8"},
      {"the JSON number 1e400", "POST", kConfigMaps, "application/json",
       R"({"metadata":{"name":"n"},"x":1e400})", 400, "out of range"},
      {"the YAML float 1.0e400 where an integer belongs", "POST", kTj, "application/yaml",
       "apiVersion: troupe.dev/v1alpha1\nkind: TrainingJob\nmetadata: {name: f}\n"
       "spec: {queue: q, replicas: 1.0e400, template: {spec: {containers: [{name: c, image: "
       "i}]}}}\n",
       422, "spec.replicas"},
      {"a name that is a number", "POST", kConfigMaps, "application/json",
       R"({"metadata":{"name":5}})", 400, "metadata.name: expected a string"},
      {"labels that are not strings", "POST", kConfigMaps, "application/json",
       R"({"metadata":{"name":"l","labels":{"a":1}}})", 400, "metadata.labels"},
      {"a pod whose grace period is a string", "POST", kPods, "application/json",
       R"({"metadata":{"name":"g"},"spec":{"terminationGracePeriodSeconds":"x","containers":[]}})",
       400, "terminationGracePeriodSeconds"},
      {"a text/plain body", "POST", kConfigMaps, "text/plain", R"({"metadata":{"name":"t"}})", 415,
       "application/json, application/yaml"},
      {"an XML body", "POST", kConfigMaps, "application/xml", "<ConfigMap/>", 415, ""},
      {"labelSelector=!!", "GET", kConfigMaps + "?labelSelector=!!", "", "", 400,
       "unable to parse requirement: found '!', expected: identifier"},
      {"labelSelector with a key that is no label key", "GET",
       kConfigMaps + "?labelSelector=a%20b%3Dc", "", "", 400, ""},
      {"fieldSelector=!!", "GET", kConfigMaps + "?fieldSelector=!!", "", "", 400,
       "invalid selector"},
      {"limit=abc", "GET", kConfigMaps + "?limit=abc", "", "", 400, "limit"},
      {"resourceVersion=abc", "GET", kConfigMaps + "?resourceVersion=abc", "", "", 400,
       "invalid resource version"},
      {"resourceVersionMatch without resourceVersion", "GET",
       kConfigMaps + "?resourceVersionMatch=Exact", "", "", 422, "resourceVersionMatch"},
      {"resourceVersionMatch=Bogus", "GET",
       kConfigMaps + "?resourceVersionMatch=Bogus&resourceVersion=1", "", "", 422,
       "Unsupported value"},
      // The real server's answer to a revision it has not reached: 504 with a cause.
      {"resourceVersionMatch=Exact at a future revision", "GET",
       kConfigMaps + "?resourceVersionMatch=Exact&resourceVersion=99999999", "", "", 504,
       "Too large resource version"},
      {"timeoutSeconds=abc on a watch", "GET", kConfigMaps + "?watch=true&timeoutSeconds=abc", "",
       "", 400, "timeoutSeconds"},
      {"gracePeriodSeconds=abc", "DELETE", kConfigMaps + "/victim?gracePeriodSeconds=abc", "", "",
       400, "gracePeriodSeconds"},
  };
  // Quantities Troupe cannot count, where kube-apiserver validates them (pod resources) and
  // in Troupe's own kinds.
  for (const std::string q : {"-8", "NaN", "", "1e400", "99999999999999999999Ti"}) {
    const std::string resources = R"({"requests":{"cpu":")" + q + R"("}})";
    cases.push_back({"a pod requesting cpu \"" + q + "\"", "POST", kPods, "application/json",
                     pod("q", resources), 422, "spec.containers[0].resources.requests[cpu]"});
    cases.push_back({"a TrainingJob requesting cpu \"" + q + "\"", "POST", kTj, "application/json",
                     trainingJob("q", "1", resources), 422,
                     "spec.template.spec.containers[0].resources.requests[cpu]", kTenant});
    cases.push_back(
        {"a Queue guaranteeing \"" + q + "\" GPUs", "POST", "/apis/troupe.dev/v1alpha1/queues",
         "application/json",
         R"({"metadata":{"name":"q"},"spec":{"resources":{"nvidia.com/gpu":{"guaranteed":")" + q +
             "\"}}}}",
         422, "spec.resources[nvidia.com/gpu].guaranteed"});
  }
  cases.push_back(
      {"a GPU request above its limit", "POST", kPods, "application/json",
       pod("gpu", R"({"requests":{"nvidia.com/gpu":"2"},"limits":{"nvidia.com/gpu":"1"}})"), 422,
       "must be equal to nvidia.com/gpu limit of 1"});
  return cases;
}

HttpReply send(int port, const std::string& method, const std::string& path,
               const std::string& content_type, const std::string& body,
               const std::string& token = kAdmin) {
  HttpCall call;
  call.method = method;
  call.path = path;
  call.token = token;
  call.body = body;
  if (!content_type.empty()) call.headers.emplace_back("Content-Type", content_type);
  call.max_seconds = 30;
  return httpsRequest(port, call);
}

TEST_CASE("hostile requests get a 4xx Status and cost a bounded amount of memory",
          "[apiserver][hostile][e2e]") {
  HostileServe serve;
  REQUIRE(serve.start());
  const int port = serve.port();
  REQUIRE(send(port, "POST", "/api/v1/namespaces", "application/json",
               R"({"metadata":{"name":"team-a"}})")
              .status == 201);
  REQUIRE(send(port, "POST", kConfigMaps, "application/json",
               R"({"metadata":{"name":"victim"},"data":{"a":"b"}})")
              .status == 201);
  // An object at the nesting limit is served whole: created, read, listed.
  // (1,000 levels: the object, spec, template, spec, then 996 arrays.)
  REQUIRE(
      send(port, "POST", kTj, "application/json", trainingJob("fine", nestedArrays(996))).status ==
      201);
  REQUIRE(send(port, "GET", kTj + "/fine", "", "").status == 200);
  REQUIRE(send(port, "GET", "/apis/troupe.dev/v1alpha1/trainingjobs", "", "").status == 200);
  const long baseline_kb = statusKb(serve.pid(), "VmRSS");
  REQUIRE(baseline_kb > 0);

  // One server for the whole table (sections would start one per case): each case's
  // checks carry its name.
  for (const auto& tc : hostileCases()) {
    {
      INFO(tc.name);
      resetPeak(serve.pid());
      const long before_kb = statusKb(serve.pid(), "VmHWM");
      auto start = std::chrono::steady_clock::now();
      HttpReply reply = send(port, tc.method, tc.path, tc.content_type, tc.body, tc.token);
      auto took = std::chrono::steady_clock::now() - start;
      INFO("status " << reply.status << ": " << reply.body.substr(0, 400));
      CHECK(reply.status == tc.want_status);
      auto status = json::parse(reply.body, nullptr, false);
      REQUIRE(status.is_object());
      CHECK(status.value("kind", "") == "Status");
      CHECK(status.value("code", 0) == tc.want_status);
      if (!tc.want_in_message.empty())
        CHECK_THAT(status.value("message", ""), Catch::Matchers::Contains(tc.want_in_message));
      // Alive, and the request cost little.
      REQUIRE(::kill(serve.pid(), 0) == 0);
      REQUIRE(send(port, "GET", "/healthz", "", "").status == 200);
      const long peak_kb = statusKb(serve.pid(), "VmHWM");
      INFO("peak RSS " << before_kb << " -> " << peak_kb << " kB; took "
                       << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                       << " ms");
      CHECK(peak_kb - before_kb < kMaxPeakGrowthKb);
    }
  }
  // Nothing refused was stored: the namespace holds the two objects made above.
  auto maps = json::parse(send(port, "GET", kConfigMaps, "", "").body);
  CHECK(maps["items"].size() == 1);
  auto jobs = json::parse(send(port, "GET", kTj, "", "").body);
  CHECK(jobs["items"].size() == 1);
  CHECK(statusKb(serve.pid(), "VmRSS") - baseline_kb < 4 * kMaxPeakGrowthKb);
  CHECK(serve.stop() == 0);
}

}  // namespace
}  // namespace troupe::testing
