#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>

#include "apiserver/api_server_metrics.h"
#include "common/metrics_registry.h"
#include "controllers/operator_metrics.h"

namespace {

// The metric families a registry defines, from its rendered "# TYPE name type" lines.
std::set<std::string> families(const troupe::MetricsRegistry& registry) {
  std::set<std::string> out;
  std::istringstream in(registry.render());
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("# TYPE ", 0) == 0) out.insert(line.substr(7, line.find(' ', 7) - 7));
  return out;
}

}  // namespace

TEST_CASE("the chart's Grafana dashboard charts every series Troupe exports, and no other",
          "[operator][metrics][grafana]") {
  troupe::MetricsRegistry registry;
  troupe::controllers::defineOperatorMetrics(registry);
  troupe::apiserver::ApiServerMetrics server(registry);
  const auto exported = families(registry);
  REQUIRE(exported.size() == 18);

  std::ifstream in(std::string(TROUPE_SOURCE_DIR) + "/helm/troupe/dashboards/troupe.json");
  auto dashboard = nlohmann::json::parse(in);
  std::set<std::string> charted;
  const std::regex series("\\b((troupe|apiserver)_[a-z_]+?)(_bucket|_sum|_count)?\\b");
  for (const auto& panel : dashboard["panels"]) {
    if (panel["type"] == "row") continue;
    INFO(panel["title"]);
    CHECK(panel["datasource"]["uid"] == "${datasource}");
    CHECK_FALSE(panel["targets"].empty());
    for (const auto& target : panel["targets"]) {
      const std::string expr = target["expr"];
      for (std::sregex_iterator it(expr.begin(), expr.end(), series), end; it != end; ++it) {
        INFO(expr);
        CHECK(exported.count((*it)[1]) == 1);
        charted.insert((*it)[1]);
      }
    }
  }
  CHECK(charted == exported);
}
