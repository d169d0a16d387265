#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

// A small, thread-safe Prometheus registry: counters, gauges and histograms with labels,
// rendered in the text exposition format (version 0.0.4) that /metrics serves. Families
// and series are rendered in name order, so the output is stable. Written by hand rather
// than taken from prometheus-cpp, which Debian bookworm does not package.
namespace troupe {

using MetricLabels = std::map<std::string, std::string>;

class MetricsRegistry {
 public:
  // Declares a family; every later use of `name` must be of the same type. Histogram
  // buckets are upper bounds in increasing order (+Inf is implied).
  void defineCounter(const std::string& name, const std::string& help);
  void defineGauge(const std::string& name, const std::string& help);
  void defineHistogram(const std::string& name, const std::string& help,
                       std::vector<double> buckets);

  void add(const std::string& name, const MetricLabels& labels, double delta = 1);
  void set(const std::string& name, const MetricLabels& labels, double value);
  void observe(const std::string& name, const MetricLabels& labels, double value);
  // Removes every series of a gauge family (before republishing a changing label set).
  void clear(const std::string& name);

  double value(const std::string& name, const MetricLabels& labels) const;
  std::string render() const;

 private:
  enum class Type { Counter, Gauge, Histogram };
  struct Series {
    double value = 0;                   // counter, gauge; histogram: the sum
    std::vector<std::uint64_t> counts;  // histogram: per bucket (not cumulative)
    std::uint64_t count = 0;            // histogram: observations
  };
  struct Family {
    Type type = Type::Gauge;
    std::string help;
    std::vector<double> buckets;
    std::map<MetricLabels, Series> series;
  };
  Family& family(const std::string& name, Type type);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;  // guarded by mu_
};

}  // namespace troupe
