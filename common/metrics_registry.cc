#include "common/metrics_registry.h"

#include <fmt/format.h>

#include <cmath>

#include "common/check.h"

namespace troupe {
namespace {

std::string escapeLabel(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escapeHelp(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string labelText(const MetricLabels& labels, const std::string& extra_key = "",
                      const std::string& extra_value = "") {
  std::vector<std::string> parts;
  for (const auto& [k, v] : labels) parts.push_back(fmt::format("{}=\"{}\"", k, escapeLabel(v)));
  if (!extra_key.empty()) parts.push_back(fmt::format("{}=\"{}\"", extra_key, extra_value));
  if (parts.empty()) return "";
  return fmt::format("{{{}}}", fmt::join(parts, ","));
}

}  // namespace

MetricsRegistry::Family& MetricsRegistry::family(const std::string& name, Type type) {
  auto it = families_.find(name);
  TROUPE_CHECK(it != families_.end(), "metric {} used before it was defined", name);
  TROUPE_CHECK(it->second.type == type, "metric {} used with another type", name);
  return it->second;
}

void MetricsRegistry::defineCounter(const std::string& name, const std::string& help) {
  std::lock_guard lock(mu_);
  families_[name] = Family{Type::Counter, help, {}, {}};
}

void MetricsRegistry::defineGauge(const std::string& name, const std::string& help) {
  std::lock_guard lock(mu_);
  families_[name] = Family{Type::Gauge, help, {}, {}};
}

void MetricsRegistry::defineHistogram(const std::string& name, const std::string& help,
                                      std::vector<double> buckets) {
  std::lock_guard lock(mu_);
  families_[name] = Family{Type::Histogram, help, std::move(buckets), {}};
}

void MetricsRegistry::add(const std::string& name, const MetricLabels& labels, double delta) {
  std::lock_guard lock(mu_);
  family(name, Type::Counter).series[labels].value += delta;
}

void MetricsRegistry::set(const std::string& name, const MetricLabels& labels, double value) {
  std::lock_guard lock(mu_);
  family(name, Type::Gauge).series[labels].value = value;
}

void MetricsRegistry::observe(const std::string& name, const MetricLabels& labels, double value) {
  std::lock_guard lock(mu_);
  auto& f = family(name, Type::Histogram);
  auto& s = f.series[labels];
  if (s.counts.empty()) s.counts.assign(f.buckets.size(), 0);
  for (std::size_t i = 0; i < f.buckets.size(); ++i) {
    if (value <= f.buckets[i]) {
      s.counts[i] += 1;
      break;
    }
  }
  s.count += 1;
  s.value += value;
}

void MetricsRegistry::clear(const std::string& name) {
  std::lock_guard lock(mu_);
  family(name, Type::Gauge).series.clear();
}

double MetricsRegistry::value(const std::string& name, const MetricLabels& labels) const {
  std::lock_guard lock(mu_);
  auto it = families_.find(name);
  if (it == families_.end()) return 0;
  auto s = it->second.series.find(labels);
  if (s == it->second.series.end()) return 0;
  return it->second.type == Type::Histogram ? static_cast<double>(s->second.count)
                                            : s->second.value;
}

std::string MetricsRegistry::render() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    const char* type = f.type == Type::Counter ? "counter"
                       : f.type == Type::Gauge ? "gauge"
                                               : "histogram";
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escapeHelp(f.help), name, type);
    for (const auto& [labels, s] : f.series) {
      if (f.type != Type::Histogram) {
        out += fmt::format("{}{} {}\n", name, labelText(labels), number(s.value));
        continue;
      }
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += s.counts[i];
        out += fmt::format("{}_bucket{} {}\n", name, labelText(labels, "le", number(f.buckets[i])),
                           cumulative);
      }
      out += fmt::format("{}_bucket{} {}\n", name, labelText(labels, "le", "+Inf"), s.count);
      out += fmt::format("{}_sum{} {}\n", name, labelText(labels), number(s.value));
      out += fmt::format("{}_count{} {}\n", name, labelText(labels), s.count);
    }
  }
  return out;
}

}  // namespace troupe
