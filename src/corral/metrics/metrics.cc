#include "corral/metrics/metrics.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "corral/core/check.h"

namespace corral::metrics {

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  double v = start;
  for (int i = 0; i < count; ++i) {
    out.push_back(v);
    v *= factor;
  }
  return out;
}

void Histogram::Observe(double v) {
  ++count_;
  sum_ += v;
  auto it = std::lower_bound(buckets_->begin(), buckets_->end(), v);  // first bound >= v ("le")
  if (it != buckets_->end()) ++counts_[static_cast<size_t>(it - buckets_->begin())];
}

Counter& Registry::GetCounter(std::string_view name, std::string_view help, const Labels& labels) {
  auto it = families_.find(name);
  if (it == families_.end())
    it = families_.emplace(std::string(name), Family{false, std::string(help), {}, {}, {}}).first;
  CORRAL_CHECK_MSG(!it->second.histogram, "metric used as counter and histogram");
  return it->second.counters[labels];
}

Histogram& Registry::GetHistogram(std::string_view name, std::string_view help,
                                  const std::vector<double>& buckets, const Labels& labels) {
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{true, std::string(help), buckets, {}, {}})
             .first;
  }
  Family& f = it->second;
  CORRAL_CHECK_MSG(f.histogram, "metric used as counter and histogram");
  auto h = f.histograms.find(labels);
  if (h == f.histograms.end()) h = f.histograms.emplace(labels, Histogram(&f.buckets)).first;
  return h->second;
}

double Registry::CounterSum(std::string_view name, const Labels& match) const {
  auto it = families_.find(name);
  if (it == families_.end()) return 0;
  double sum = 0;
  for (const auto& [labels, c] : it->second.counters) {
    bool ok = true;
    for (const auto& m : match) ok &= std::find(labels.begin(), labels.end(), m) != labels.end();
    if (ok) sum += c.value();
  }
  return sum;
}

namespace {
std::string Escape(std::string_view v) {
  std::string out;
  for (char ch : v) {
    if (ch == '\\' || ch == '"') out += '\\';
    if (ch == '\n') {
      out += "\\n";
      continue;
    }
    out += ch;
  }
  return out;
}

std::string LabelText(const Labels& labels, const std::string& extra = {}) {
  if (labels.empty() && extra.empty()) return {};
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    if (!first) out += ',';
    first = false;
    out += fmt::format("{}=\"{}\"", k, Escape(v));
  }
  if (!extra.empty()) {
    if (!first) out += ',';
    out += extra;
  }
  return out + "}";
}

std::string Num(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::abs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}
}  // namespace

std::string Registry::PrometheusText() const {
  std::string out;
  for (const auto& [name, f] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, f.help, name,
                       f.histogram ? "histogram" : "counter");
    if (!f.histogram) {
      for (const auto& [labels, c] : f.counters)
        out += fmt::format("{}{} {}\n", name, LabelText(labels), Num(c.value()));
      continue;
    }
    for (const auto& [labels, h] : f.histograms) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += h.bucket_counts()[i];
        out +=
            fmt::format("{}_bucket{} {}\n", name,
                        LabelText(labels, fmt::format("le=\"{}\"", Num(f.buckets[i]))), cumulative);
      }
      out += fmt::format("{}_bucket{} {}\n", name, LabelText(labels, "le=\"+Inf\""), h.count());
      out += fmt::format("{}_sum{} {}\n", name, LabelText(labels), Num(h.sum()));
      out += fmt::format("{}_count{} {}\n", name, LabelText(labels), h.count());
    }
  }
  return out;
}

nlohmann::ordered_json Registry::ToJson() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, f] : families_) {
    auto& arr = j[name] = nlohmann::ordered_json::array();
    auto labels_json = [](const Labels& labels) {
      nlohmann::ordered_json l = nlohmann::ordered_json::object();
      for (const auto& [k, v] : labels) l[k] = v;
      return l;
    };
    if (!f.histogram) {
      for (const auto& [labels, c] : f.counters)
        arr.push_back({{"labels", labels_json(labels)}, {"value", c.value()}});
      continue;
    }
    for (const auto& [labels, h] : f.histograms) {
      nlohmann::ordered_json b = nlohmann::ordered_json::object();
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += h.bucket_counts()[i];
        b[Num(f.buckets[i])] = cumulative;
      }
      arr.push_back({{"labels", labels_json(labels)},
                     {"count", h.count()},
                     {"sum", h.sum()},
                     {"buckets", b}});
    }
  }
  return j;
}

}  // namespace corral::metrics
