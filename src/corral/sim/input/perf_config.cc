// scheduler_perf config files: decoding, workload selection, thresholds and the entry point of
// compilation (perf_config.h).

#include "corral/sim/input/perf_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/doc/input.h"
#include "corral/doc/parse.h"
#include "corral/plugins/node_declared_features/node_declared_features.h"
#include "corral/sim/input/perf_config_internal.h"

namespace corral::sim {

namespace fs = std::filesystem;

namespace perf_detail {

std::string CountLimitReason(int64_t max) {
  return max == kMaxObjects ? " objects per op (every object is held in memory, about 1 KiB each)"
                            : " (the virtual-time range is 876000h)";
}

namespace {

void ReadStringList(Decoder& d, const Node& n, std::vector<std::string>& out) {
  d.ForEachItem(n, [&](const Node& item) {
    std::string s;
    if (d.ReadString(item, s)) out.push_back(std::move(s));
  });
}

// schedulerApiClientQPS: kube's *float32, so any number a float32 holds (0 and negative values
// keep client-go's meaning, resolved in ResolveApiLimit).
void ReadApiQps(Decoder& d, const Node& n, ApiLimitIn& o) {
  double v = 0;
  if (!d.ReadFloat(n, v)) return;
  if (!std::isfinite(v) || std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max())) {
    d.Error(n, fmt::format("{} does not fit kube's float32 field", n.text()));
    return;
  }
  o.qps = v;
  o.qps_node = &n;
}

// schedulerApiClientBurst: kube's *int.
void ReadApiBurst(Decoder& d, const Node& n, ApiLimitIn& o) {
  int64_t v = 0;
  if (!d.ReadInt64(n, v, INT32_MIN, INT32_MAX)) return;
  o.burst = v;
  o.burst_node = &n;
}

const doc::Field<Selector> kSelectorFields[] = {
    {"name", [](Decoder& d, const Node& n, Selector& o) { d.ReadString(n, o.name); }},
    {"dataBucket", [](Decoder& d, const Node& n, Selector& o) { d.ReadString(n, o.bucket); }},
    {"expectLower", [](Decoder& d, const Node& n, Selector& o) { d.ReadBool(n, o.expect_lower); }},
    {"labels",
     [](Decoder& d, const Node& n, Selector& o) {
       d.ForEachEntry(n, [&](const Node& key, const Node& v) {
         std::string s;
         if (d.ReadString(v, s)) o.labels.emplace_back(std::string(key.text()), std::move(s));
       });
     }},
};
constexpr std::string_view kSelectorIgnored[] = {""};

const doc::Field<WorkloadIn> kWorkloadFields[] = {
    {"name", [](Decoder& d, const Node& n, WorkloadIn& o) { d.ReadString(n, o.name); }},
    {"labels", [](Decoder& d, const Node& n, WorkloadIn& o) { ReadStringList(d, n, o.labels); }},
    {"featureGates",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectMap(n)) o.gates = &n;
     }},
    {"params",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       d.ForEachEntry(n, [&](const Node& key, const Node& v) {
         ParamValue p;
         if (v.kind() == doc::Kind::kInt) {
           p.i = v.int_value();
         } else if (v.kind() == doc::Kind::kString) {
           p.is_int = false;
           p.s = std::string(v.text());
         } else if (v.kind() == doc::Kind::kBool) {
           // kube's params hold any JSON value; a boolean renders in a template as Go prints it.
           p.is_int = false;
           p.is_bool = true;
           p.s = v.bool_value() ? "true" : "false";
         } else if (v.is_sequence() || v.is_map()) {
           // kube's params hold any JSON value; a list or map is kept for templates, and an op
           // that reads it as a count or duration says it is neither.
           p.is_int = false;
           p.complex = &v;
         } else {
           d.Error(v, fmt::format("want an integer, a string, a boolean, a list or a map, got {}",
                                  Decoder::Describe(v)));
           return;
         }
         o.params[std::string(key.text())] = std::move(p);
       });
     }},
    {"threshold",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (n.kind() == doc::Kind::kInt || n.kind() == doc::Kind::kFloat) {
         o.threshold =
             n.kind() == doc::Kind::kInt ? static_cast<double>(n.int_value()) : n.float_value();
       } else if (n.is_map()) {
         o.threshold_note = "per-variant thresholds (a map) are not supported; not checked";
       } else if (!n.is_null()) {
         d.Error(n, fmt::format("want a number, got {}", Decoder::Describe(n)));
       }
     }},
    {"thresholdMetricSelector",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.selector.set = true;
       d.Struct(n, o.selector, kSelectorFields, kSelectorIgnored);
     }},
    {"schedulerApiClientQPS",
     [](Decoder& d, const Node& n, WorkloadIn& o) { ReadApiQps(d, n, o.api_limit); }},
    {"schedulerApiClientBurst",
     [](Decoder& d, const Node& n, WorkloadIn& o) { ReadApiBurst(d, n, o.api_limit); }},
};

const doc::Field<TestCaseIn> kTestCaseFields[] = {
    {"name", [](Decoder& d, const Node& n, TestCaseIn& o) { d.ReadString(n, o.name); }},
    {"featureGates",
     [](Decoder& d, const Node& n, TestCaseIn& o) {
       if (d.ExpectMap(n)) o.gates = &n;
     }},
    {"schedulerConfigPath",
     [](Decoder& d, const Node& n, TestCaseIn& o) { d.ReadString(n, o.scheduler_config); }},
    {"defaultPodTemplatePath",
     [](Decoder& d, const Node& n, TestCaseIn& o) { d.ReadString(n, o.default_pod); }},
    {"workloadTemplate",
     [](Decoder& d, const Node& n, TestCaseIn& o) {
       if (d.ExpectSequence(n)) o.ops = &n;
     }},
    {"labels", [](Decoder& d, const Node& n, TestCaseIn& o) { ReadStringList(d, n, o.labels); }},
    {"defaultThresholdMetricSelector",
     [](Decoder& d, const Node& n, TestCaseIn& o) {
       o.default_selector.set = true;
       d.Struct(n, o.default_selector, kSelectorFields, kSelectorIgnored);
     }},
    {"workloads",
     [](Decoder& d, const Node& n, TestCaseIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         WorkloadIn w;
         w.self = &item;
         d.Struct(item, w, kWorkloadFields);
         if (item.is_map() && w.name.empty()) d.Required(item, "name");
         o.workloads.push_back(std::move(w));
       });
     }},
    {"schedulerApiClientQPS",
     [](Decoder& d, const Node& n, TestCaseIn& o) { ReadApiQps(d, n, o.api_limit); }},
    {"schedulerApiClientBurst",
     [](Decoder& d, const Node& n, TestCaseIn& o) { ReadApiBurst(d, n, o.api_limit); }},
};
constexpr std::string_view kTestCaseIgnored[] = {"metricsCollectorConfig"};

}  // namespace

const PerfOnlyGate* FindPerfOnlyGate(std::string_view name) {
  static const PerfOnlyGate kGates[] = {
      {"SchedulerAsyncAPICalls", PerfOnlyGate::kAny,
       "Corral's simulator makes no API calls (binding and status updates are events without "
       "latency), so scheduling is the same with the gate on or off"},
      // kube v1.35-v1.36 had an alpha gate GangScheduling (needing GenericWorkload) that put the
      // GangScheduling plugin in the default profile; v1.37 dropped the gate and GenericWorkload
      // alone does it, as in Corral (framework/config.cc). The old-layout configs still set it.
      {"GangScheduling", PerfOnlyGate::kTrue,
       "the gate of kube v1.35-v1.36 that v1.37 folded into GenericWorkload: with GenericWorkload "
       "on, the GangScheduling plugin is in the default profile, which is what the gate on "
       "meant"},
      {"DRAPartitionableDevices", PerfOnlyGate::kTrue,
       "Corral's DRA allocator always allocates against shared counters (the gate's default in "
       "kube v1.37)"},
      {"DRAConsumableCapacity", PerfOnlyGate::kTrue,
       "Corral's DRA allocator always honours allowMultipleAllocations and capacity requests (the "
       "gate's default in kube v1.37)"},
  };
  for (const auto& g : kGates) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

}  // namespace perf_detail

using perf_detail::Decoder;
using perf_detail::FindPerfOnlyGate;
using perf_detail::kTestCaseFields;
using perf_detail::kTestCaseIgnored;
using perf_detail::Node;
using perf_detail::OpCompiler;
using perf_detail::PerfOnlyGate;
using perf_detail::Selector;
using perf_detail::TestCaseIn;
using perf_detail::WorkloadIn;

PerfConfig::PerfConfig() : impl_(std::make_unique<Impl>()) {}
PerfConfig::PerfConfig(PerfConfig&&) noexcept = default;
PerfConfig& PerfConfig::operator=(PerfConfig&&) noexcept = default;
PerfConfig::~PerfConfig() = default;

Result<PerfConfig> PerfConfig::Load(const std::string& path, Interner& interner,
                                    Diagnostics& diags) {
  auto input = doc::InputBuffer::ReadFile(path);
  if (!input.ok()) {
    diags.Error(path, 0, "", "cannot read file");
    return Error::NotFound(fmt::format("{}: cannot read file", path));
  }
  return Parse(input->text(), path, interner, diags);
}

Result<PerfConfig> PerfConfig::Parse(std::string_view text, const std::string& path,
                                     Interner& interner, Diagnostics& diags) {
  PerfConfig c;
  Impl& im = *c.impl_;
  im.path = path;
  im.dir = fs::path(path).parent_path().string();
  im.text = std::string(text);
  im.stream = doc::ParseYaml(im.text, path, diags);
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  if (im.stream.documents().empty() || im.stream.documents()[0].is_null()) {
    diags.Error(path, 1, "", "empty scheduler_perf config (want a list of test cases)");
    return Error::Invalid(DiagnosticsMessage(diags));
  }
  const Node& root = im.stream.documents()[0];
  Decoder d(path, diags, &interner);
  std::set<std::string> names;
  d.ForEachItem(root, [&](const Node& item) {
    TestCaseIn tc;
    tc.self = &item;
    d.Struct(item, tc, kTestCaseFields, kTestCaseIgnored);
    if (item.is_map()) {
      if (tc.name.empty()) d.Required(item, "name");
      if (tc.ops == nullptr) d.Required(item, "workloadTemplate");
      if (!tc.name.empty() && !names.insert(tc.name).second) {
        d.FieldError(item, "name", fmt::format("duplicate test case {:?}", tc.name));
      }
      std::set<std::string> wnames;
      for (size_t i = 0; i < tc.workloads.size(); ++i) {
        const auto& w = tc.workloads[i];
        if (!w.name.empty() && !wnames.insert(w.name).second) {
          auto s = d.Field("workloads");
          auto s2 = d.Index(i);
          d.FieldError(*w.self, "name", fmt::format("duplicate workload {:?}", w.name));
        }
      }
    }
    im.cases.push_back(std::move(tc));
  });
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  return c;
}

std::vector<PerfWorkloadRef> PerfConfig::All() const {
  std::vector<PerfWorkloadRef> out;
  for (size_t t = 0; t < impl_->cases.size(); ++t) {
    const auto& tc = impl_->cases[t];
    for (size_t w = 0; w < tc.workloads.size(); ++w) {
      PerfWorkloadRef r{t, w, tc.name + "/" + tc.workloads[w].name, tc.labels};
      r.labels.insert(r.labels.end(), tc.workloads[w].labels.begin(), tc.workloads[w].labels.end());
      out.push_back(std::move(r));
    }
  }
  return out;
}

Result<std::vector<PerfWorkloadRef>> PerfConfig::Select(const PerfSelection& sel) const {
  std::vector<std::string> want, exclude;
  std::string_view f = sel.label_filter;
  while (!f.empty()) {
    size_t comma = f.find(',');
    std::string_view item = f.substr(0, comma);
    if (!item.empty()) {
      if (item.front() == '-') {
        exclude.emplace_back(item.substr(1));
      } else {
        want.emplace_back(item);
      }
    }
    if (comma == std::string_view::npos) break;
    f.remove_prefix(comma + 1);
  }
  const bool by_name = !sel.test_case.empty() || !sel.workload.empty();
  std::vector<PerfWorkloadRef> out;
  std::set<std::string> cases, workloads;
  for (auto& r : All()) {
    const auto& tc = impl_->cases[r.test_case];
    cases.insert(tc.name);
    if (!sel.test_case.empty() && tc.name != sel.test_case) continue;
    workloads.insert(tc.workloads[r.workload].name);
    if (!sel.workload.empty() && tc.workloads[r.workload].name != sel.workload) continue;
    if (!by_name) {
      bool ok = true;
      for (const auto& l : want)
        ok = ok && std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end();
      for (const auto& l : exclude)
        ok = ok && std::find(r.labels.begin(), r.labels.end(), l) == r.labels.end();
      if (!ok) continue;
    }
    out.push_back(std::move(r));
  }
  auto join = [](const std::set<std::string>& s) {
    std::string o;
    for (const auto& x : s) o += (o.empty() ? "" : ", ") + x;
    return o;
  };
  if (!sel.test_case.empty() && !cases.contains(sel.test_case)) {
    return Error::Invalid(
        fmt::format("{}: no test case {:?} (have {})", impl_->path, sel.test_case, join(cases)));
  }
  if (!sel.workload.empty() && out.empty()) {
    return Error::Invalid(fmt::format("{}: no workload {:?}{} (have {})", impl_->path, sel.workload,
                                      sel.test_case.empty() ? "" : " in test case " + sel.test_case,
                                      join(workloads)));
  }
  return out;
}

PerfThreshold PerfConfig::Threshold(const PerfWorkloadRef& ref) const {
  const auto& tc = impl_->cases[ref.test_case];
  const auto& w = tc.workloads[ref.workload];
  PerfThreshold t;
  Selector sel = w.selector.set ? w.selector : tc.default_selector;
  t.metric = sel.name;
  t.bucket = sel.bucket;
  t.expect_lower = sel.expect_lower;
  t.labels = sel.labels;
  t.note = w.threshold_note;
  if (w.threshold.has_value() && *w.threshold != 0) {
    t.set = true;
    t.value = *w.threshold;
  }
  return t;
}

Result<SimSpec> PerfConfig::Compile(const PerfWorkloadRef& ref, Interner& interner,
                                    Diagnostics& diags, framework::KubeVersion emulated) const {
  const Impl& im = *impl_;
  const TestCaseIn& tc = im.cases[ref.test_case];
  const WorkloadIn& w = tc.workloads[ref.workload];
  SimSpec spec;
  spec.name = ref.name;
  spec.source = im.path;
  spec.cost.mode = CostModel::Mode::kMeasured;
  // Feature gates: the emulated version's defaults, then the test case's gates, then the
  // workload's. Gates Corral's scheduler does not know are either harness-only gates with a stated
  // effect (perf_detail::FindPerfOnlyGate) or make the workload unsupported; a gate locked to the
  // other value (or PreAlpha) at the emulated version is an error, as in kube.
  spec.gates = framework::FeatureGates(emulated);
  std::string unsupported;
  bool ndf_gate = false;
  for (const Node* g : {tc.gates, w.gates}) {
    if (g == nullptr) continue;
    for (size_t k = 0; k < g->size(); ++k) {
      const Node& v = g->value(k);
      std::string_view name = g->key(k).text();
      if (v.kind() != doc::Kind::kBool) {
        diags.Error(im.path, v.line(), fmt::format("featureGates[{}]", name),
                    fmt::format("want true or false, got {}", Decoder::Describe(v)));
        continue;
      }
      const bool value = v.bool_value();
      if (const PerfOnlyGate* pg = FindPerfOnlyGate(name); pg != nullptr) {
        if (!pg->honours(value)) {
          unsupported = fmt::format("feature gate {}={}: {}", name, value, pg->effect);
        } else {
          spec.notes.push_back(fmt::format("feature gate {}={}: {}", name, value, pg->effect));
        }
        continue;
      }
      if (auto st = spec.gates.Set(name, value); !st.ok()) {
        if (st.error().message.starts_with("unrecognized")) {
          unsupported = fmt::format("feature gate {}={} is not modelled by Corral", name, value);
        } else if (st.error().message.starts_with("feature gate ")) {
          unsupported = st.error().message;  // a value Corral does not model (FeatureSpec)
        } else {
          // A locked gate set to the other value: kube's test fails the same way.
          diags.Error(im.path, v.line(), fmt::format("featureGates.{}", name), st.error().message);
        }
      } else {
        spec.explicit_gates.push_back(fmt::format("{}={}", name, value));
        // kube's nodedeclaredfeatures test, the only config that sets the gate to true, installs
        // its mock feature registry (below).
        if (name == "NodeDeclaredFeatures") ndf_gate = value;
      }
    }
  }
  if (unsupported.empty() && !spec.gates.Enabled(framework::Feature::kGenericWorkload)) {
    // kube v1.35-v1.36 refuse GangScheduling without GenericWorkload (a gate dependency); the
    // effect stated above holds only with it.
    for (const Node* g : {tc.gates, w.gates}) {
      if (g == nullptr) continue;
      for (size_t k = 0; k < g->size(); ++k) {
        if (g->key(k).text() == "GangScheduling" && g->value(k).kind() == doc::Kind::kBool &&
            g->value(k).bool_value()) {
          unsupported =
              "feature gate GangScheduling=true needs GenericWorkload=true (kube's gate "
              "dependency)";
        }
      }
    }
  }
  if (!unsupported.empty()) return Error::Invalid("unsupported: " + unsupported);
  if (!tc.scheduler_config.empty()) {
    spec.scheduler_config_path =
        fs::path(tc.scheduler_config).is_absolute()
            ? tc.scheduler_config
            : (fs::path(im.dir) / tc.scheduler_config).lexically_normal().string();
  }
  size_t tc_index = 0;
  for (size_t i = 0; i < im.cases.size(); ++i) {
    if (&im.cases[i] == &tc) tc_index = i;
  }
  OpCompiler c(im, tc, w, interner, diags, spec, fmt::format("[{}]", tc_index));
  bool ok = c.Run();
  if (!c.unsupported.empty()) return Error::Invalid("unsupported: " + c.unsupported);
  if (ok && !diags.has_errors()) perf_detail::ResolveApiLimit(im.path, tc, w, spec, diags);
  if (!ok || diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  if (ndf_gate && spec.gates.Enabled(framework::Feature::kNodeDeclaredFeatures)) {
    // kube's scheduler_perf nodedeclaredfeatures test (the only config that sets the gate to
    // true): its pre-run hook replaces the feature registry with numNodeDeclaredFeatures mock
    // features (default 0) and its node hook sets every node's status.declaredFeatures to them.
    int32_t n = 0;
    if (auto it = w.params.find("numNodeDeclaredFeatures"); it != w.params.end()) {
      if (!it->second.is_int || it->second.i < 0 || it->second.i > 10000) {
        diags.Error(im.path, w.self->line(), "params.numNodeDeclaredFeatures",
                    "want an integer in 0..10000");
        return Error::Invalid(DiagnosticsMessage(diags));
      }
      n = static_cast<int32_t>(it->second.i);
    }
    if (!spec.scheduler_config_path.empty()) {
      return Error::Invalid(
          "unsupported: the NodeDeclaredFeatures mock registry with a schedulerConfigPath");
    }
    std::vector<std::string> names = plugins::ndf::PerfMockFeatureNames(n);
    for (const std::string& f : names) interner.Intern(f);
    framework::SchedulerConfig cfg;
    cfg.profiles.emplace_back();
    cfg.profiles[0].plugin_args[std::string(plugins::NodeDeclaredFeatures::kName)] =
        std::make_shared<plugins::NodeDeclaredFeaturesArgs>(plugins::ndf::PerfMockRegistry(n),
                                                            std::move(names));
    spec.scheduler_config = std::move(cfg);
    spec.notes.push_back(fmt::format(
        "NodeDeclaredFeatures: {} mock features{}, required by pods with pod-level resources and "
        "declared by every node, as kube's scheduler_perf test sets them",
        n, n > 0 ? fmt::format(" (Feature1..Feature{})", n) : ""));
  }
  return spec;
}

}  // namespace corral::sim
