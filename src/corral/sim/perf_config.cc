#include "corral/sim/perf_config.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/doc/decoder.h"
#include "corral/doc/input.h"
#include "corral/doc/parse.h"
#include "corral/sim/go_template.h"
#include "corral/sim/object_set.h"
#include "corral/sim/scenario.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

using doc::Decoder;
using doc::Node;
namespace fs = std::filesystem;

namespace {

// The most objects one op may create: 10,000,000 (as a scenario's op count). Every object lives in
// memory, a pod slot at about 1 KiB, so larger counts cannot be held; kube's own scheduler_perf
// workloads stay below 100,000.
constexpr int64_t kMaxObjects = 10'000'000;

std::string CountLimitReason(int64_t max) {
  return max == kMaxObjects ? " objects per op (every object is held in memory, about 1 KiB each)"
                            : " (the virtual-time range is 876000h)";
}

struct ParamValue {
  bool is_int = true;
  int64_t i = 0;
  std::string s;
};

struct Selector {
  std::string name = "SchedulingThroughput";
  std::string bucket = "Average";
  bool expect_lower = false;
  bool set = false;
};

struct WorkloadIn {
  const Node* self = nullptr;
  std::string name;
  std::vector<std::string> labels;
  const Node* gates = nullptr;
  std::map<std::string, ParamValue> params;
  std::optional<double> threshold;
  std::string threshold_note;
  Selector selector;
};

struct TestCaseIn {
  const Node* self = nullptr;
  std::string name;
  const Node* gates = nullptr;
  std::string scheduler_config;
  std::string default_pod;
  const Node* ops = nullptr;
  std::vector<WorkloadIn> workloads;
  std::vector<std::string> labels;
  Selector default_selector;
};

void ReadStringList(Decoder& d, const Node& n, std::vector<std::string>& out) {
  d.ForEachItem(n, [&](const Node& item) {
    std::string s;
    if (d.ReadString(item, s)) out.push_back(std::move(s));
  });
}

const doc::Field<Selector> kSelectorFields[] = {
    {"name", [](Decoder& d, const Node& n, Selector& o) { d.ReadString(n, o.name); }},
    {"dataBucket", [](Decoder& d, const Node& n, Selector& o) { d.ReadString(n, o.bucket); }},
    {"expectLower", [](Decoder& d, const Node& n, Selector& o) { d.ReadBool(n, o.expect_lower); }},
};
constexpr std::string_view kSelectorIgnored[] = {"labels"};

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
         } else {
           d.Error(v, fmt::format("want an integer or a string, got {}", Decoder::Describe(v)));
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
};
constexpr std::string_view kTestCaseIgnored[] = {"metricsCollectorConfig"};

// The default objects of scheduler_perf (util.go makeBaseNode / makeBasePod
// with testutils.MakePodSpec).
constexpr std::string_view kDefaultNode = R"(apiVersion: v1
kind: Node
metadata:
  generateName: scheduler-perf-
spec: {}
status:
  capacity:
    pods: "110"
    cpu: "4"
    memory: 32Gi
  allocatable:
    pods: "110"
    cpu: "4"
    memory: 32Gi
  conditions:
  - status: "True"
    type: Ready
  phase: Running
)";
constexpr std::string_view kDefaultPod = R"(apiVersion: v1
kind: Pod
metadata:
  generateName: pod-
spec:
  containers:
  - image: registry.k8s.io/pause:3.10
    name: pause
    ports:
    - containerPort: 80
    resources:
      limits:
        cpu: 100m
        memory: 500Mi
      requests:
        cpu: 100m
        memory: 500Mi
)";

// A template file, parsed once.
struct TemplateFile {
  std::string path;  // as shown in messages
  GoTemplate tmpl;
};

// One rendered and loaded object.
struct LoadedObject {
  api::ObjectSet objects;
  std::string kind;
  std::string generate_name;
  bool has_name = false;
  std::optional<int32_t>
      priority;  // spec.priority given without a class (kube's test apiserver keeps it)
};

Result<LoadedObject> LoadRendered(const std::string& text, const std::string& file, Interner& in) {
  Diagnostics diags;
  doc::Stream st = doc::ParseYaml(text, file, diags);
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  if (st.documents().empty() || !st.documents()[0].is_map()) {
    return Error::Invalid(fmt::format("{}: want one Kubernetes object", file));
  }
  const Node& root = st.documents()[0];
  LoadedObject out;
  if (const Node* k = root.Find("kind")) out.kind = std::string(k->text());
  // Rebuild the object as JSON: drop spec.priority without a priorityClassName (kept aside), and
  // give generateName-only objects a placeholder name (the engine names them).
  std::string json = "{";
  bool first = true;
  const Node* meta = root.Find("metadata");
  if (meta != nullptr && meta->is_map()) {
    if (const Node* g = meta->Find("generateName")) out.generate_name = std::string(g->text());
    out.has_name = meta->Find("name") != nullptr;
  }
  for (size_t i = 0; i < root.size(); ++i) {
    std::string_view key = root.key(i).text();
    const Node& v = root.value(i);
    if (!first) json += ",";
    first = false;
    json += JsonString(key) + ":";
    if (key == "metadata" && v.is_map() && !out.has_name) {
      json += "{\"name\":\"corral-template\"";
      for (size_t k = 0; k < v.size(); ++k)
        json += "," + JsonString(v.key(k).text()) + ":" + NodeToJson(v.value(k));
      json += "}";
    } else if (key == "spec" && v.is_map() && out.kind == "Pod" && v.Find("priority") != nullptr &&
               v.Find("priorityClassName") == nullptr) {
      json += "{";
      bool f2 = true;
      for (size_t k = 0; k < v.size(); ++k) {
        if (v.key(k).text() == "priority") {
          if (v.value(k).kind() == doc::Kind::kInt)
            out.priority = static_cast<int32_t>(v.value(k).int_value());
          continue;
        }
        if (!f2) json += ",";
        f2 = false;
        json += JsonString(v.key(k).text()) + ":" + NodeToJson(v.value(k));
      }
      json += "}";
    } else {
      json += NodeToJson(v);
    }
  }
  if (meta == nullptr)
    json += std::string(first ? "" : ",") + R"("metadata":{"name":"corral-template"})";
  json += "}";
  ObjectBuilder b(in, file, false);
  b.Add(json, {{"", &root, ""}}, root.line());
  out.objects = b.Finish(diags);
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  return out;
}

}  // namespace

struct PerfConfig::Impl {
  std::string path, dir;
  std::string text;
  doc::Stream stream;
  std::vector<TestCaseIn> cases;
};

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
  t.note = w.threshold_note;
  if (w.threshold.has_value() && *w.threshold != 0) {
    t.set = true;
    t.value = *w.threshold;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------------------
// Compile

namespace {

class OpCompiler {
 public:
  OpCompiler(const PerfConfig::Impl& im, const TestCaseIn& tc, const WorkloadIn& w, Interner& in,
             Diagnostics& diags, SimSpec& spec, std::string tc_path)
      : im_(im),
        tc_(tc),
        w_(w),
        in_(in),
        diags_(diags),
        spec_(spec),
        d_(im.path, diags, &in),
        tc_path_(std::move(tc_path)) {}

  bool Run();
  std::string unsupported;

 private:
  // Reads an integer field given literally (`count: 5`) or through a param (`countParam: $n`), in
  // [0, max]. The default max is kMaxObjects: every object lives in memory (a pod slot is about
  // 1 KiB), so a count beyond it is an error before anything is allocated.
  std::optional<int64_t> Count(const Node& op, std::string_view key, std::string_view param_key,
                               bool required, int64_t max = kMaxObjects);
  std::optional<std::string> String(const Node& op, std::string_view key);
  bool Bool(const Node& op, std::string_view key);
  std::optional<int64_t> DurationField(const Node& op, std::string_view key,
                                       std::string_view param_key);
  std::optional<api::LabelSelector> MapSelector(const Node& op, std::string_view key);
  Result<std::shared_ptr<TemplateFile>> Template(const std::string& rel, const Node& at);
  TemplateData Env(const Node& op, int64_t index, int64_t count);
  void Err(const Node& at, std::string_view field, std::string msg) {
    if (field.empty()) {
      d_.Error(at, std::move(msg));
    } else {
      d_.FieldError(at, field, std::move(msg));
    }
  }
  void CheckKeys(const Node& op, std::initializer_list<std::string_view> allowed);

  bool CreateNodes(const Node& op, size_t idx);
  bool CreatePods(const Node& op, size_t idx, const std::string& ns_override);
  bool CreateAny(const Node& op, size_t idx);
  bool Churn(const Node& op, size_t idx);
  uint32_t AddPodTemplate(const std::shared_ptr<TemplateFile>& t, const TemplateData& params,
                          const std::string& ns, int64_t count, const Node& at);
  void AddNamespace(const std::string& ns);

  const PerfConfig::Impl& im_;
  const TestCaseIn& tc_;
  const WorkloadIn& w_;
  Interner& in_;
  Diagnostics& diags_;
  SimSpec& spec_;
  Decoder d_;
  std::string tc_path_;
  std::map<std::string, std::shared_ptr<TemplateFile>> templates_;
  std::set<std::string> namespaces_;
};

void OpCompiler::CheckKeys(const Node& op, std::initializer_list<std::string_view> allowed) {
  std::vector<std::string_view> known(allowed);
  known.push_back("opcode");
  for (size_t i = 0; i < op.size(); ++i) {
    std::string_view k = op.key(i).text();
    if (std::find(known.begin(), known.end(), k) == known.end()) d_.UnknownField(op.key(i), known);
  }
}

std::optional<int64_t> OpCompiler::Count(const Node& op, std::string_view key,
                                         std::string_view param_key, bool required, int64_t max) {
  if (const Node* n = op.Find(key); n != nullptr && !n->is_null()) {
    int64_t v = 0;
    auto s = d_.Field(key);
    if (d_.ReadInt64(*n, v, 0, max)) return v;
    return std::nullopt;
  }
  if (const Node* n = op.Find(param_key); n != nullptr && !n->is_null()) {
    auto s = d_.Field(param_key);
    std::string_view ref;
    if (!d_.ReadString(*n, ref)) return std::nullopt;
    if (!ref.starts_with("$")) {
      d_.Error(*n, fmt::format("want a parameter reference such as \"$name\", got {:?}", ref));
      return std::nullopt;
    }
    auto it = w_.params.find(std::string(ref.substr(1)));
    if (it == w_.params.end()) {
      d_.Error(*n,
               fmt::format("parameter {:?} is not set by workload {:?}", ref.substr(1), w_.name));
      return std::nullopt;
    }
    if (!it->second.is_int) {
      d_.Error(*n, fmt::format("parameter {:?} of workload {:?} is a string; want an integer",
                               ref.substr(1), w_.name));
      return std::nullopt;
    }
    if (it->second.i < 0) {
      d_.Error(*n, fmt::format("parameter {:?} is negative", ref.substr(1)));
      return std::nullopt;
    }
    if (it->second.i > max) {
      d_.Error(*n, fmt::format("parameter {:?} = {} is beyond the limit of {}{}", ref.substr(1),
                               it->second.i, max, CountLimitReason(max)));
      return std::nullopt;
    }
    return it->second.i;
  }
  if (required) d_.Required(op, key, fmt::format("or {}", param_key));
  return std::nullopt;
}

std::optional<std::string> OpCompiler::String(const Node& op, std::string_view key) {
  const Node* n = op.Find(key);
  if (n == nullptr || n->is_null()) return std::nullopt;
  auto s = d_.Field(key);
  std::string v;
  if (!d_.ReadString(*n, v)) return std::nullopt;
  return v;
}

bool OpCompiler::Bool(const Node& op, std::string_view key) {
  const Node* n = op.Find(key);
  if (n == nullptr || n->is_null()) return false;
  auto s = d_.Field(key);
  bool v = false;
  d_.ReadBool(*n, v);
  return v;
}

std::optional<int64_t> OpCompiler::DurationField(const Node& op, std::string_view key,
                                                 std::string_view param_key) {
  std::string text;
  const Node* at = nullptr;
  if (const Node* n = op.Find(key); n != nullptr && !n->is_null()) {
    auto s = d_.Field(key);
    if (!d_.ReadString(*n, text)) return std::nullopt;
    at = n;
  } else if (const Node* p = op.Find(param_key); p != nullptr && !p->is_null()) {
    auto s = d_.Field(param_key);
    std::string_view ref;
    if (!d_.ReadString(*p, ref)) return std::nullopt;
    auto it = w_.params.find(std::string(ref.starts_with("$") ? ref.substr(1) : ref));
    if (it == w_.params.end()) {
      d_.Error(*p, fmt::format("parameter {:?} is not set by workload {:?}", ref, w_.name));
      return std::nullopt;
    }
    text = it->second.is_int ? std::to_string(it->second.i) : it->second.s;
    at = p;
  } else {
    return std::nullopt;
  }
  Duration v{};
  if (!doc::ParseGoDuration(text, v) || v.count() < 0) {
    d_.Error(*at, fmt::format("invalid duration {:?} (want a Go duration such as \"5s\")", text));
    return std::nullopt;
  }
  if (v.count() > kMaxVirtualNs) {
    d_.Error(*at, VirtualRangeError(text));
    return std::nullopt;
  }
  return v.count();
}

std::optional<api::LabelSelector> OpCompiler::MapSelector(const Node& op, std::string_view key) {
  const Node* n = op.Find(key);
  if (n == nullptr || n->is_null()) return std::nullopt;
  auto s = d_.Field(key);
  std::vector<std::pair<Symbol, Symbol>> pairs;
  if (!d_.ReadSymbolMap(*n, pairs)) return std::nullopt;
  api::LabelSelector sel;
  sel.match_labels = api::LabelSet(std::move(pairs));
  return sel;
}

Result<std::shared_ptr<TemplateFile>> OpCompiler::Template(const std::string& rel, const Node& at) {
  std::string path = rel.empty() || fs::path(rel).is_absolute()
                         ? rel
                         : (fs::path(im_.dir) / rel).lexically_normal().string();
  if (auto it = templates_.find(path); it != templates_.end()) return it->second;
  auto input = doc::InputBuffer::ReadFile(path);
  if (!input.ok()) {
    d_.Error(at, fmt::format("cannot read template {:?}", path));
    return Error::NotFound(path);
  }
  auto t = GoTemplate::Parse(input->text());
  if (!t.ok()) {
    diags_.Error(path, 0, "", fmt::format("template: {}", t.error().message));
    return t.error();
  }
  auto tf = std::make_shared<TemplateFile>(TemplateFile{path, std::move(t).value()});
  templates_[path] = tf;
  return tf;
}

TemplateData OpCompiler::Env(const Node& op, int64_t index, int64_t count) {
  TemplateData env;
  if (const Node* tp = op.Find("templateParams"); tp != nullptr && tp->is_map()) {
    for (size_t k = 0; k < tp->size(); ++k) {
      const Node& v = tp->value(k);
      std::string key(tp->key(k).text());
      if (v.kind() == doc::Kind::kInt) {
        env[key] = v.int_value();
      } else if (v.kind() == doc::Kind::kFloat) {
        env[key] = v.float_value();
      } else if (v.is_string() && v.text().starts_with("$")) {
        auto it = w_.params.find(std::string(v.text().substr(1)));
        if (it != w_.params.end()) {
          env[key] = it->second.is_int ? TemplateValue{it->second.i} : TemplateValue{it->second.s};
        } else {
          env[key] = std::string(v.text());
        }
      } else {
        env[key] = std::string(v.text());
      }
    }
  }
  env["Index"] = index;
  env["Count"] = count;
  return env;
}

void OpCompiler::AddNamespace(const std::string& ns) {
  if (!namespaces_.insert(ns).second) return;
  api::Namespace n;
  n.meta.name = in_.Intern(ns);
  spec_.objects.namespaces.push_back(std::move(n));
}

// Renders and loads a pod template; returns its index in spec.pod_templates.
uint32_t OpCompiler::AddPodTemplate(const std::shared_ptr<TemplateFile>& t,
                                    const TemplateData& base, const std::string& ns, int64_t count,
                                    const Node& at) {
  TemplateData env = base;
  env["Index"] = int64_t{0};
  env["Count"] = count;
  auto text = t->tmpl.Execute(env);
  if (!text.ok()) {
    d_.Error(at, fmt::format("template {}: {}", t->path, text.error().message));
    return kNone;
  }
  auto obj = LoadRendered(*text, t->path, in_);
  if (!obj.ok()) {
    diags_.Error("", 0, "", obj.error().message);
    return kNone;
  }
  if (obj->kind != "Pod" || obj->objects.pods.empty()) {
    d_.Error(at, fmt::format("template {} is a {:?}, want a Pod", t->path, obj->kind));
    return kNone;
  }
  const Symbol ns_sym = in_.Intern(ns);
  PodTemplate pt;
  pt.name = t->path;
  pt.name_prefix = obj->generate_name.empty() ? "pod-" : obj->generate_name;
  pt.pod = obj->objects.pods[0];
  pt.pod.meta.namespace_ = ns_sym;
  if (obj->priority) pt.pod.priority = *obj->priority;
  pt.keep_rendered_name = obj->has_name;
  if (t->tmpl.has_actions()) {
    // Rendered per pod; the engine copies the result before the next call.
    struct State {
      std::shared_ptr<TemplateFile> file;
      TemplateData env;
      Interner* in;
      Symbol ns;
      std::string last_text;
      api::Pod last;
    };
    auto st = std::make_shared<State>(State{t, base, &in_, ns_sym, *text, pt.pod});
    pt.render = [st](int64_t index, int64_t cnt) -> Result<const api::Pod*> {
      st->env["Index"] = index;
      st->env["Count"] = cnt;
      auto txt = st->file->tmpl.Execute(st->env);
      if (!txt.ok())
        return Error::Invalid(fmt::format("{}: template: {}", st->file->path, txt.error().message));
      if (*txt != st->last_text) {
        auto o = LoadRendered(*txt, st->file->path, *st->in);
        if (!o.ok()) return o.error();
        if (o->objects.pods.empty())
          return Error::Invalid(fmt::format("{}: rendered no Pod", st->file->path));
        st->last = std::move(o->objects.pods[0]);
        st->last.meta.namespace_ = st->ns;
        if (o->priority) st->last.priority = *o->priority;
        st->last_text = std::move(txt).value();
      }
      return &st->last;
    };
  }
  spec_.pod_templates.push_back(std::move(pt));
  return static_cast<uint32_t>(spec_.pod_templates.size() - 1);
}

bool OpCompiler::CreateNodes(const Node& op, size_t idx) {
  CheckKeys(op, {"count", "countParam", "nodeTemplatePath", "nodeAllocatableStrategy",
                 "labelNodePrepareStrategy", "uniqueNodeLabelStrategy", "templateParams"});
  auto count = Count(op, "count", "countParam", true);
  auto path = String(op, "nodeTemplatePath");
  if (!count) return false;
  NodePool pool;
  pool.name = fmt::format("createNodes-{}", idx);
  std::shared_ptr<TemplateFile> tf;
  std::string text;
  std::string file;
  if (path) {
    auto scope = d_.Field("nodeTemplatePath");
    auto t = Template(*path, *op.Find("nodeTemplatePath"));
    if (!t.ok()) return false;
    tf = *t;
    file = tf->path;
    auto r = tf->tmpl.Execute(Env(op, 0, *count));
    if (!r.ok()) {
      diags_.Error(tf->path, 0, "", fmt::format("template: {}", r.error().message));
      return false;
    }
    text = *r;
  } else {
    text = std::string(kDefaultNode);
    file = "<scheduler_perf default node>";
  }
  auto obj = LoadRendered(text, file, in_);
  if (!obj.ok()) {
    diags_.Error("", 0, "", obj.error().message);
    return false;
  }
  if (obj->objects.nodes.empty()) {
    d_.Error(op, fmt::format("node template {} is a {:?}, want a Node", file, obj->kind));
    return false;
  }
  pool.tmpl = obj->objects.nodes[0];
  pool.name_prefix = obj->generate_name.empty() ? "scheduler-perf-" : obj->generate_name;
  const bool keep_name = obj->has_name;
  // nodeAllocatableStrategy: allocatable (and capacity) overrides.
  std::vector<std::pair<Symbol, api::Quantity>> alloc_override;
  if (const Node* s = op.Find("nodeAllocatableStrategy"); s != nullptr && s->is_map()) {
    auto sc = d_.Field("nodeAllocatableStrategy");
    if (const Node* na = s->Find("nodeAllocatable")) {
      auto sc2 = d_.Field("nodeAllocatable");
      d_.ForEachEntry(*na, [&](const Node& key, const Node& v) {
        api::Quantity q;
        if (d_.ReadQuantity(v, q)) alloc_override.emplace_back(in_.Intern(key.text()), q);
      });
    }
  }
  auto apply_alloc = [alloc_override](api::Node& n) {
    for (const auto& entry : alloc_override) {
      // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
      const Symbol name = entry.first;
      const api::Quantity& q = entry.second;
      for (auto* list : {&n.allocatable, &n.capacity}) {
        auto it = std::find_if(list->begin(), list->end(),
                               [&](const auto& e) { return e.first == name; });
        if (it != list->end()) {
          it->second = q;
        } else {
          list->emplace_back(name, q);
          std::sort(list->begin(), list->end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
        }
      }
    }
  };
  apply_alloc(pool.tmpl);
  if (const Node* s = op.Find("labelNodePrepareStrategy"); s != nullptr && s->is_map()) {
    LabelRule r;
    r.mode = LabelRule::Mode::kRandom;
    auto sc = d_.Field("labelNodePrepareStrategy");
    if (const Node* k = s->Find("labelKey")) d_.ReadSymbol(*k, r.key);
    if (const Node* v = s->Find("labelValues")) d_.ReadSymbolList(*v, r.values);
    if (r.key.empty()) d_.Required(*s, "labelKey");
    if (r.values.empty()) d_.Required(*s, "labelValues");
    pool.label_rules.push_back(std::move(r));
  }
  if (const Node* s = op.Find("uniqueNodeLabelStrategy"); s != nullptr && s->is_map()) {
    LabelRule r;
    r.mode = LabelRule::Mode::kUnique;
    auto sc = d_.Field("uniqueNodeLabelStrategy");
    if (const Node* k = s->Find("labelKey")) d_.ReadSymbol(*k, r.key);
    if (r.key.empty()) d_.Required(*s, "labelKey");
    r.prefix = "v-";
    pool.label_rules.push_back(std::move(r));
  }
  if (tf && tf->tmpl.has_actions()) {
    struct State {
      std::shared_ptr<TemplateFile> file;
      TemplateData env;
      Interner* in;
      std::function<void(api::Node&)> apply;
      bool keep_name;
    };
    auto st = std::make_shared<State>(State{tf, Env(op, 0, *count), &in_, apply_alloc, keep_name});
    const int64_t cnt = *count;
    pool.render = [st, cnt](int64_t index) -> Result<api::Node> {
      st->env["Index"] = index;
      st->env["Count"] = cnt;
      auto txt = st->file->tmpl.Execute(st->env);
      if (!txt.ok())
        return Error::Invalid(fmt::format("{}: template: {}", st->file->path, txt.error().message));
      auto o = LoadRendered(*txt, st->file->path, *st->in);
      if (!o.ok()) return o.error();
      if (o->objects.nodes.empty())
        return Error::Invalid(fmt::format("{}: rendered no Node", st->file->path));
      api::Node n = std::move(o->objects.nodes[0]);
      if (!st->keep_name) n.meta.name = Symbol{};
      st->apply(n);
      return n;
    };
  } else if (keep_name) {
    // A fixed name: render returns it as is (a second node with the same name is an error at
    // run time).
    api::Node fixed = pool.tmpl;
    pool.render = [fixed](int64_t) -> Result<api::Node> { return fixed; };
  }
  spec_.pools.push_back(std::move(pool));
  Op o;
  o.kind = Op::Kind::kCreateNodes;
  o.pool = static_cast<uint32_t>(spec_.pools.size() - 1);
  o.count = *count;
  o.line = op.line();
  o.describe = fmt::format("createNodes count={}", *count);
  spec_.program.push_back(std::move(o));
  return true;
}

bool OpCompiler::CreatePods(const Node& op, size_t idx, const std::string& ns_override) {
  CheckKeys(op, {"count", "countParam", "countMultiplierParam", "namespace", "podTemplatePath",
                 "collectMetrics", "skipWaitToCompletion", "steadyState", "duration",
                 "durationParam", "persistentVolumeTemplatePath",
                 "persistentVolumeClaimTemplatePath", "templateParams", "signatureBatchSizeParam"});
  if (Bool(op, "steadyState")) {
    unsupported = "createPods with steadyState";
    return false;
  }
  if (op.Find("persistentVolumeTemplatePath") != nullptr ||
      op.Find("persistentVolumeClaimTemplatePath") != nullptr) {
    unsupported = "createPods with persistent volumes (volumes are not modelled)";
    return false;
  }
  auto count = Count(op, "count", "countParam", true);
  if (!count) return false;
  if (const Node* m = op.Find("countMultiplierParam"); m != nullptr && !m->is_null()) {
    auto mult = Count(op, "countMultiplier", "countMultiplierParam", false);
    if (!mult) return false;
    if (*mult != 0 && *count > kMaxObjects / *mult) {
      d_.Error(*m, fmt::format("count {} × multiplier {} is beyond the limit of {}{}", *count,
                               *mult, kMaxObjects, CountLimitReason(kMaxObjects)));
      return false;
    }
    *count *= *mult;
  }
  std::string ns = !ns_override.empty()
                       ? ns_override
                       : String(op, "namespace").value_or(fmt::format("namespace-{}", idx));
  AddNamespace(ns);
  std::string tpath = String(op, "podTemplatePath").value_or(tc_.default_pod);
  uint32_t tmpl = kNone;
  TemplateData base = Env(op, 0, *count);
  for (const auto& [k, v] : w_.params) {
    if (!base.contains(k)) base[k] = v.is_int ? TemplateValue{v.i} : TemplateValue{v.s};
  }
  if (tpath.empty()) {
    auto obj = LoadRendered(std::string(kDefaultPod), "<scheduler_perf default pod>", in_);
    if (!obj.ok()) return false;
    PodTemplate pt;
    pt.name = "default pod";
    pt.name_prefix = "pod-";
    pt.pod = obj->objects.pods[0];
    pt.pod.meta.namespace_ = in_.Intern(ns);
    spec_.pod_templates.push_back(std::move(pt));
    tmpl = static_cast<uint32_t>(spec_.pod_templates.size() - 1);
  } else {
    const Node* at = op.Find("podTemplatePath");
    Result<std::shared_ptr<TemplateFile>> t = Error::Invalid("");
    if (at != nullptr) {
      auto scope = d_.Field("podTemplatePath");
      t = Template(tpath, *at);
    } else {
      t = Template(tpath, *tc_.self);  // the test case's defaultPodTemplatePath
    }
    if (!t.ok()) return false;
    tmpl = AddPodTemplate(*t, base, ns, *count, op);
    if (tmpl == kNone) return false;
  }
  Workload wk;
  wk.name = fmt::format("createPods-{}", idx);
  wk.tmpl = tmpl;
  wk.arrival.kind = Arrival::Kind::kBurst;
  wk.arrival.count = *count;
  wk.collect_metrics = Bool(op, "collectMetrics");
  wk.wait = !Bool(op, "skipWaitToCompletion");
  wk.group = ns;
  spec_.workloads.push_back(std::move(wk));
  Op o;
  o.kind = Op::Kind::kStartWorkload;
  o.workload = static_cast<uint32_t>(spec_.workloads.size() - 1);
  o.line = op.line();
  o.describe = fmt::format("createPods count={} namespace={}{}", *count, ns,
                           spec_.workloads.back().collect_metrics ? " collectMetrics" : "");
  spec_.program.push_back(std::move(o));
  return true;
}

bool OpCompiler::CreateAny(const Node& op, size_t idx) {
  CheckKeys(op, {"templatePath", "namespace", "count", "countParam", "templateParams"});
  auto path = String(op, "templatePath");
  if (!path) {
    d_.Required(op, "templatePath");
    return false;
  }
  int64_t count = Count(op, "count", "countParam", false).value_or(1);
  auto scope = d_.Field("templatePath");
  auto t = Template(*path, *op.Find("templatePath"));
  if (!t.ok()) return false;
  auto ns = String(op, "namespace");
  for (int64_t i = 0; i < count; ++i) {
    auto text = (*t)->tmpl.Execute(Env(op, i, count));
    if (!text.ok()) {
      diags_.Error((*t)->path, 0, "", fmt::format("template: {}", text.error().message));
      return false;
    }
    auto obj = LoadRendered(*text, (*t)->path, in_);
    if (!obj.ok()) {
      if (obj.error().message.find("unknown kind") != std::string::npos ||
          obj->objects.nodes.empty()) {
        // fall through to the kind check below
      }
      diags_.Error("", 0, "", obj.error().message);
      return false;
    }
    api::ObjectSet& o = obj->objects;
    if (!o.nodes.empty() || !o.pods.empty()) {
      unsupported = fmt::format("createAny of a {} (use createNodes/createPods)", obj->kind);
      return false;
    }
    size_t before = spec_.objects.namespaces.size() + spec_.objects.priority_classes.size() +
                    spec_.objects.pod_disruption_budgets.size() +
                    spec_.objects.selector_owners.size() + spec_.objects.workloads.size() +
                    spec_.objects.pod_groups.size();
    auto move_all = [&](auto& from, auto& to) {
      for (auto& x : from) {
        if (ns && !x.meta.namespace_.empty()) x.meta.namespace_ = in_.Intern(*ns);
        to.push_back(std::move(x));
      }
    };
    move_all(o.namespaces, spec_.objects.namespaces);
    move_all(o.priority_classes, spec_.objects.priority_classes);
    move_all(o.pod_disruption_budgets, spec_.objects.pod_disruption_budgets);
    move_all(o.selector_owners, spec_.objects.selector_owners);
    move_all(o.workloads, spec_.objects.workloads);
    move_all(o.pod_groups, spec_.objects.pod_groups);
    size_t after = spec_.objects.namespaces.size() + spec_.objects.priority_classes.size() +
                   spec_.objects.pod_disruption_budgets.size() +
                   spec_.objects.selector_owners.size() + spec_.objects.workloads.size() +
                   spec_.objects.pod_groups.size();
    if (after == before) {
      unsupported = fmt::format("createAny of kind {:?} (not modelled by Corral)", obj->kind);
      return false;
    }
  }
  (void)idx;
  return true;
}

bool OpCompiler::Churn(const Node& op, size_t idx) {
  CheckKeys(op, {"mode", "number", "intervalMilliseconds", "templatePaths", "namespace"});
  Op o;
  o.kind = Op::Kind::kChurn;
  o.line = op.line();
  std::string mode = String(op, "mode").value_or("create");
  if (mode == "create") {
    o.churn.mode = ChurnSpec::Mode::kCreate;
  } else if (mode == "recreate") {
    o.churn.mode = ChurnSpec::Mode::kRecreate;
  } else {
    d_.FieldError(op, "mode", fmt::format("unknown churn mode {:?} (want create, recreate)", mode));
    return false;
  }
  o.churn.number = Count(op, "number", "numberParam", false).value_or(1);
  if (o.churn.number <= 0) o.churn.number = 1;
  int64_t interval_ms = Count(op, "intervalMilliseconds", "intervalMillisecondsParam", false,
                              kMaxVirtualNs / 1'000'000)
                            .value_or(500);
  o.churn.interval_ns = interval_ms * 1'000'000;
  if (o.churn.interval_ns <= 0) o.churn.interval_ns = 500'000'000;
  std::string ns = String(op, "namespace").value_or(fmt::format("namespace-{}", idx));
  const Node* paths = op.Find("templatePaths");
  if (paths == nullptr || !paths->is_sequence() || paths->empty()) {
    d_.Required(op, "templatePaths");
    return false;
  }
  std::vector<std::string> ignored;
  for (size_t k = 0; k < paths->size(); ++k) {
    const Node& pn = paths->items()[k];
    std::string p;
    {
      auto s = d_.Field("templatePaths");
      auto s2 = d_.Index(k);
      if (!d_.ReadString(pn, p)) return false;
    }
    auto t = Template(p, pn);
    if (!t.ok()) return false;
    auto text = (*t)->tmpl.Execute(Env(op, 0, 1));
    if (!text.ok()) {
      diags_.Error((*t)->path, 0, "", fmt::format("template: {}", text.error().message));
      return false;
    }
    Diagnostics scratch;
    doc::Stream st = doc::ParseYaml(*text, (*t)->path, scratch);
    std::string kind;
    if (!st.documents().empty()) {
      if (const Node* kn = st.documents()[0].Find("kind")) kind = std::string(kn->text());
    }
    if (kind == "Node") {
      auto obj = LoadRendered(*text, (*t)->path, in_);
      if (!obj.ok()) {
        diags_.Error("", 0, "", obj.error().message);
        return false;
      }
      NodePool pool;
      pool.name = fmt::format("churn-{}-{}", idx, k);
      pool.tmpl = obj->objects.nodes[0];
      pool.name_prefix = obj->generate_name.empty() ? "churn-node-" : obj->generate_name;
      spec_.pools.push_back(std::move(pool));
      o.churn.node_pools.push_back(static_cast<uint32_t>(spec_.pools.size() - 1));
    } else if (kind == "Pod") {
      AddNamespace(ns);
      uint32_t tmpl = AddPodTemplate(*t, Env(op, 0, 1), ns, 1, pn);
      if (tmpl == kNone) return false;
      Workload wk;
      wk.name = fmt::format("churn-{}-{}", idx, k);
      wk.tmpl = tmpl;
      wk.arrival.kind = Arrival::Kind::kBurst;
      wk.arrival.count = 0;
      wk.recreate_on_evict = false;
      wk.group = ns;
      spec_.workloads.push_back(std::move(wk));
      o.churn.workloads.push_back(static_cast<uint32_t>(spec_.workloads.size() - 1));
    } else {
      ignored.push_back(fmt::format("{} ({})", (*t)->path, kind.empty() ? "unknown kind" : kind));
    }
  }
  for (const auto& i : ignored) {
    spec_.notes.push_back(fmt::format("churn: {} is not modelled and was left out", i));
  }
  o.describe = fmt::format("churn mode={} interval={}ms", mode, interval_ms);
  spec_.program.push_back(std::move(o));
  return true;
}

bool OpCompiler::Run() {
  const Node& ops = *tc_.ops;
  auto s0 = d_.Root(tc_path_);
  auto s1 = d_.Field("workloadTemplate");
  bool ok = true;
  for (size_t i = 0; i < ops.size() && unsupported.empty(); ++i) {
    const Node& op = ops.items()[i];
    auto si = d_.Index(i);
    if (!op.is_map()) {
      d_.Error(op, "want a map with an opcode");
      ok = false;
      continue;
    }
    std::string code = String(op, "opcode").value_or("");
    if (code == "createNodes") {
      ok = CreateNodes(op, i) && ok;
    } else if (code == "createPods") {
      ok = CreatePods(op, i, "") && ok;
    } else if (code == "createPodSets") {
      CheckKeys(op, {"count", "countParam", "namespacePrefix", "createPodsOp"});
      auto count = Count(op, "count", "countParam", true);
      auto prefix = String(op, "namespacePrefix").value_or("namespace");
      const Node* inner = op.Find("createPodsOp");
      if (inner == nullptr || !inner->is_map()) {
        d_.Required(op, "createPodsOp");
        ok = false;
        continue;
      }
      auto si2 = d_.Field("createPodsOp");
      for (int64_t k = 0; count && k < *count; ++k)
        ok = CreatePods(*inner, i, fmt::format("{}-{}", prefix, k)) && ok;
    } else if (code == "createNamespaces") {
      CheckKeys(op, {"prefix", "count", "countParam", "namespaceTemplatePath"});
      auto count = Count(op, "count", "countParam", true);
      auto prefix = String(op, "prefix").value_or("namespace");
      for (int64_t k = 0; count && k < *count; ++k) AddNamespace(fmt::format("{}-{}", prefix, k));
    } else if (code == "createAny") {
      ok = CreateAny(op, i) && ok;
    } else if (code == "churn") {
      ok = Churn(op, i) && ok;
    } else if (code == "barrier") {
      CheckKeys(op, {"namespaces", "labelSelector", "stageRequirement"});
      Op o;
      o.kind = Op::Kind::kBarrier;
      o.line = op.line();
      if (const Node* n = op.Find("namespaces")) {
        auto s = d_.Field("namespaces");
        d_.ReadSymbolList(*n, o.namespaces);
      }
      o.selector = MapSelector(op, "labelSelector");
      std::string stage = String(op, "stageRequirement").value_or("Scheduled");
      if (stage != "Scheduled" && stage != "Attempted") {
        d_.FieldError(op, "stageRequirement",
                      fmt::format("unknown stage {:?} (want Scheduled, Attempted)", stage));
        ok = false;
      }
      o.attempted_only = stage == "Attempted";
      o.describe = fmt::format("barrier stage={}", stage);
      spec_.program.push_back(std::move(o));
    } else if (code == "sleep") {
      CheckKeys(op, {"duration", "durationParam"});
      auto d = DurationField(op, "duration", "durationParam");
      if (!d) {
        if (op.Find("duration") == nullptr && op.Find("durationParam") == nullptr)
          d_.Required(op, "duration");
        ok = false;
        continue;
      }
      Op o;
      o.kind = Op::Kind::kSleep;
      o.duration_ns = *d;
      o.line = op.line();
      o.describe = fmt::format("sleep duration={}", FormatGoDuration(*d));
      spec_.program.push_back(std::move(o));
    } else if (code == "deletePods") {
      CheckKeys(op, {"namespace", "labelSelector", "skipWaitToCompletion", "deletePodsPerSecond"});
      Op o;
      o.kind = Op::Kind::kDeletePods;
      o.line = op.line();
      auto ns = String(op, "namespace");
      if (!ns) {
        d_.Required(op, "namespace");
        ok = false;
        continue;
      }
      o.namespaces.push_back(in_.Intern(*ns));
      o.selector = MapSelector(op, "labelSelector");
      o.rate_per_s = static_cast<double>(
          Count(op, "deletePodsPerSecond", "deletePodsPerSecondParam", false).value_or(0));
      o.wait = !Bool(op, "skipWaitToCompletion");
      o.describe = fmt::format("deletePods namespace={}", *ns);
      spec_.program.push_back(std::move(o));
    } else if (code == "startCollectingMetrics" || code == "stopCollectingMetrics") {
      CheckKeys(op, {"name", "namespaces", "labelSelector", "collectors"});
      Op o;
      o.kind =
          code == "startCollectingMetrics" ? Op::Kind::kStartCollecting : Op::Kind::kStopCollecting;
      o.line = op.line();
      o.describe = code;
      spec_.program.push_back(std::move(o));
    } else if (code == "createResourceClaims" || code == "createResourceDriver" ||
               code == "allocResourceClaims" || code == "updateAnyOp" ||
               code == "createPodGroups" || code == "waitForPodGroups") {
      unsupported = fmt::format("op {:?} (DRA and PodGroup objects are not modelled yet)", code);
    } else if (code.empty()) {
      d_.Required(op, "opcode");
      ok = false;
    } else {
      d_.FieldError(op, "opcode", fmt::format("unknown opcode {:?}", code));
      ok = false;
    }
  }
  return ok && unsupported.empty();
}

}  // namespace

Result<SimSpec> PerfConfig::Compile(const PerfWorkloadRef& ref, Interner& interner,
                                    Diagnostics& diags) const {
  const Impl& im = *impl_;
  const TestCaseIn& tc = im.cases[ref.test_case];
  const WorkloadIn& w = tc.workloads[ref.workload];
  SimSpec spec;
  spec.name = ref.name;
  spec.source = im.path;
  spec.cost.mode = CostModel::Mode::kMeasured;
  // Feature gates: the test case's, then the workload's.
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
      if (auto st = spec.gates.Set(name, v.bool_value()); !st.ok()) {
        spec.notes.push_back(fmt::format("feature gate {}={} ignored: {}", name, v.bool_value(),
                                         st.error().message));
      } else {
        spec.explicit_gates.push_back(fmt::format("{}={}", name, v.bool_value()));
      }
    }
  }
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
  if (!ok || diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  return spec;
}

}  // namespace corral::sim
