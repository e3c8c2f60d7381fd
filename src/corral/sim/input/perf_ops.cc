// scheduler_perf ops: what each opcode of a workloadTemplate means as SimSpec nodes, pods, objects
// and program steps.

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "corral/doc/input.h"
#include "corral/sim/input/perf_config_internal.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim::perf_detail {

namespace fs = std::filesystem;

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
      d_.Error(
          *n, fmt::format("parameter {:?} of workload {:?} is a {}; want an integer", ref.substr(1),
                          w_.name, it->second.complex != nullptr ? "list or map" : "string"));
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
    if (it->second.complex != nullptr) {
      d_.Error(*p, fmt::format("parameter {:?} is a list or map; want a duration", ref));
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

bool OpCompiler::CreateNamespaces(const Node& op) {
  CheckKeys(op, {"prefix", "count", "countParam", "namespaceTemplatePath"});
  auto count = Count(op, "count", "countParam", true);
  auto prefix = String(op, "prefix");
  if (!prefix) {
    d_.Required(op, "prefix");
    return false;
  }
  if (!count) return false;
  // kube reads the template as a plain YAML Namespace (no Go template) and gives each copy the name
  // "<prefix>-<i>"; its labels are what NamespaceSelector affinity terms match.
  api::LabelSet labels;
  if (auto path = String(op, "namespaceTemplatePath")) {
    const Node& at = *op.Find("namespaceTemplatePath");
    auto scope = d_.Field("namespaceTemplatePath");
    const std::string full = fs::path(*path).is_absolute()
                                 ? *path
                                 : (fs::path(im_.dir) / *path).lexically_normal().string();
    auto input = doc::InputBuffer::ReadFile(full);
    if (!input.ok()) {
      d_.Error(at, fmt::format("cannot read template {:?}", full));
      return false;
    }
    auto obj = LoadRendered(std::string(input->text()), full, in_);
    if (!obj.ok()) {
      diags_.Error("", 0, "", obj.error().message);
      return false;
    }
    if (obj->kind != "Namespace" || obj->objects.namespaces.empty()) {
      d_.Error(at, fmt::format("template {} is a {:?}, want a Namespace", full, obj->kind));
      return false;
    }
    labels = obj->objects.namespaces[0].meta.labels;
  }
  for (int64_t k = 0; k < *count; ++k) AddNamespace(fmt::format("{}-{}", *prefix, k), &labels);
  return true;
}

void OpCompiler::AddNamespace(const std::string& ns, const api::LabelSet* labels) {
  if (labels != nullptr && !labels->empty()) {
    const Symbol name = in_.Intern(ns);
    if (!namespaces_.insert(ns).second) {
      for (auto& n : spec_.objects.namespaces) {
        if (n.meta.name == name) n.meta.labels = *labels;
      }
      return;
    }
    api::Namespace n;
    n.meta.name = name;
    n.meta.labels = *labels;
    spec_.objects.namespaces.push_back(std::move(n));
    return;
  }
  if (!namespaces_.insert(ns).second) return;
  api::Namespace n;
  n.meta.name = in_.Intern(ns);
  spec_.objects.namespaces.push_back(std::move(n));
}

Result<std::string> RenderAt(const TemplateFile& file, TemplateData& env, int64_t index,
                             int64_t count) {
  env["Index"] = index;
  env["Count"] = count;
  auto txt = file.tmpl.Execute(env);
  if (!txt.ok()) {
    return Error::Invalid(fmt::format("{}: template: {}", file.path, txt.error().message));
  }
  return txt;
}

Result<api::Node> RenderNode(const TemplateFile& file, TemplateData& env, int64_t index,
                             int64_t count, Interner& in) {
  auto txt = RenderAt(file, env, index, count);
  if (!txt.ok()) return txt.error();
  auto o = LoadRendered(*txt, file.path, in);
  if (!o.ok()) return o.error();
  if (o->objects.nodes.empty())
    return Error::Invalid(fmt::format("{}: rendered no Node", file.path));
  return std::move(o->objects.nodes[0]);
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
  const Node* csi_strategy = nullptr;
  if (const Node* s = op.Find("nodeAllocatableStrategy"); s != nullptr && s->is_map()) {
    auto sc = d_.Field("nodeAllocatableStrategy");
    CheckKeys(*s, {"nodeAllocatable", "csiNodeAllocatable", "migratedPlugins"});
    if (const Node* na = s->Find("nodeAllocatable")) {
      auto sc2 = d_.Field("nodeAllocatable");
      d_.ForEachEntry(*na, [&](const Node& key, const Node& v) {
        api::Quantity q;
        if (d_.ReadQuantity(v, q)) alloc_override.emplace_back(in_.Intern(key.text()), q);
      });
    }
    if (s->Find("csiNodeAllocatable") != nullptr || s->Find("migratedPlugins") != nullptr) {
      csi_strategy = s;
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
      auto n = RenderNode(*st->file, st->env, index, cnt, *st->in);
      if (!n.ok()) return n;
      if (!st->keep_name) n->meta.name = Symbol{};
      st->apply(*n);
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
  if (csi_strategy != nullptr) {
    auto sc = d_.Field("nodeAllocatableStrategy");
    return AddCsiNodes(*csi_strategy, *count);
  }
  return true;
}

bool OpCompiler::CreatePods(const Node& op, size_t idx, const std::string& ns_override) {
  CheckKeys(
      op, {"count", "countParam", "countMultiplierParam", "namespace", "podTemplatePath",
           "collectMetrics", "skipWaitToCompletion", "steadyState", "steadyStateParam", "duration",
           "durationParam", "persistentVolumeTemplatePath", "persistentVolumeClaimTemplatePath",
           "templateParams", "signatureBatchSize", "signatureBatchSizeParam", "nominatedNodeName"});
  // kube's createPodsOp.isValid and patchParams, in their order.
  auto batch = Count(op, "signatureBatchSize", "signatureBatchSizeParam", false);
  if (!batch &&
      (op.Find("signatureBatchSize") != nullptr || op.Find("signatureBatchSizeParam") != nullptr)) {
    return false;
  }
  if (batch && *batch == 0) batch = 1;  // kube: 0 means 1, each pod its own signature
  bool steady = Bool(op, "steadyState");
  if (const Node* p = op.Find("steadyStateParam"); p != nullptr && !p->is_null()) {
    auto s = d_.Field("steadyStateParam");
    std::string_view ref;
    if (!d_.ReadString(*p, ref)) return false;
    auto it = w_.params.find(std::string(ref.starts_with("$") ? ref.substr(1) : ref));
    if (!ref.starts_with("$") || it == w_.params.end()) {
      d_.Error(*p, fmt::format("parameter {:?} is not set by workload {:?}", ref, w_.name));
      return false;
    }
    if (it->second.is_int || (it->second.s != "true" && it->second.s != "false")) {
      d_.Error(*p, fmt::format("parameter {:?} of workload {:?} is not a boolean", ref.substr(1),
                               w_.name));
      return false;
    }
    steady = it->second.s == "true";
  }
  const bool collect = Bool(op, "collectMetrics");
  const bool skip_wait = Bool(op, "skipWaitToCompletion");
  if (collect && skip_wait) {
    d_.FieldError(op, "skipWaitToCompletion",
                  "collectMetrics and skipWaitToCompletion cannot be true at the same time");
    return false;
  }
  if (skip_wait && steady) {
    d_.FieldError(op, "skipWaitToCompletion",
                  "skipWaitToCompletion and steadyState cannot be true at the same time");
    return false;
  }
  // nominatedNodeName (kube's runCreatePodsOp): the pods are created, their
  // status.nominatedNodeName patched to the named node, and their scheduling gates cleared once
  // the metrics collection has started. Corral creates them at that point with the nomination and
  // without gates, which is what the scheduler sees when kube's gates are lifted.
  std::optional<std::string> nominated;
  if (const Node* nn = op.Find("nominatedNodeName"); nn != nullptr && !nn->is_null()) {
    auto sc = d_.Field("nominatedNodeName");
    std::string_view v;
    if (!d_.ReadString(*nn, v)) return false;
    if (!v.empty()) nominated = std::string(v);
  }
  if (nominated && steady) {
    d_.FieldError(op, "nominatedNodeName",
                  "nominatedNodeName and steadyState cannot be used together");
    return false;
  }
  if (nominated && skip_wait) {
    d_.FieldError(op, "nominatedNodeName",
                  "nominatedNodeName and skipWaitToCompletion cannot be used together");
    return false;
  }
  std::optional<int64_t> steady_ns;
  if (op.Find("duration") != nullptr || op.Find("durationParam") != nullptr) {
    steady_ns = DurationField(op, "duration", "durationParam");
    if (!steady_ns) return false;
  }
  if (steady && steady_ns.value_or(0) <= 0) {
    d_.FieldError(op, op.Find("durationParam") != nullptr ? "durationParam" : "duration",
                  "when creating pods in a steady state, the test duration must be > 0");
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
    if (!base.contains(k)) base[k] = ToTemplateValue(v);
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
    tmpl = AddPodTemplate(*t, base, ns, *count, op, batch.value_or(0));
    if (tmpl == kNone) return false;
  }
  if (nominated) {
    PodTemplate& pt = spec_.pod_templates[tmpl];
    const Symbol node = in_.Intern(*nominated);
    pt.pod.nominated_node_name = node;
    pt.pod.scheduling_gates.clear();
    if (pt.render) {
      auto buf = std::make_shared<api::Pod>();
      pt.render = [inner = std::move(pt.render), buf, node](
                      int64_t index, int64_t cnt) -> Result<const api::Pod*> {
        auto r = inner(index, cnt);
        if (!r.ok()) return r;
        *buf = **r;
        buf->nominated_node_name = node;
        buf->scheduling_gates.clear();
        return buf.get();
      };
    }
  }
  if ((op.Find("persistentVolumeTemplatePath") != nullptr ||
       op.Find("persistentVolumeClaimTemplatePath") != nullptr) &&
      !AddPersistentVolumes(op, ns, *count, tmpl)) {
    return false;
  }
  Workload wk;
  wk.name = fmt::format("createPods-{}", idx);
  wk.tmpl = tmpl;
  wk.arrival.kind = Arrival::Kind::kBurst;
  wk.arrival.count = *count;
  wk.collect_metrics = collect;
  wk.wait = !skip_wait;
  wk.group = ns;
  if (steady) {
    // Each bound pod is deleted at once (kube deletes it when its informer sees the binding) and
    // replaced, for the op's duration.
    wk.steady_ns = *steady_ns;
    wk.duration = Distribution::Fixed(Duration{0});
    wk.recreate_on_evict = false;
  }
  spec_.workloads.push_back(std::move(wk));
  Op o;
  o.kind = Op::Kind::kStartWorkload;
  o.workload = static_cast<uint32_t>(spec_.workloads.size() - 1);
  o.line = op.line();
  o.describe = fmt::format("createPods count={} namespace={}{}{}", *count, ns,
                           spec_.workloads.back().collect_metrics ? " collectMetrics" : "",
                           steady ? " steadyState duration=" + FormatGoDuration(*steady_ns) : "");
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
                    spec_.objects.pod_groups.size() + spec_.objects.composite_pod_groups.size();
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
    move_all(o.composite_pod_groups, spec_.objects.composite_pod_groups);
    const size_t dra_and_storage = TakeDraAndStorage(o, ns);
    size_t after = spec_.objects.namespaces.size() + spec_.objects.priority_classes.size() +
                   spec_.objects.pod_disruption_budgets.size() +
                   spec_.objects.selector_owners.size() + spec_.objects.workloads.size() +
                   spec_.objects.pod_groups.size() + spec_.objects.composite_pod_groups.size();
    if (after == before && dra_and_storage == 0) {
      unsupported = fmt::format("createAny of kind {:?} (not modelled by Corral)", obj->kind);
      return false;
    }
  }
  (void)idx;
  return true;
}

std::optional<OpCompiler::UpdateStart> OpCompiler::StartUpdate(const Node& op, Op::Kind kind,
                                                               Scope scope, bool& ok) {
  ok = true;
  auto path = String(op, "templatePath");
  int64_t count = Count(op, "count", "countParam", false).value_or(1);
  if (count == 0) return std::nullopt;
  auto ns = String(op, "namespace");
  const bool has_ns = ns && !ns->empty();
  if (scope == Scope::kNamespaced && !has_ns) {
    d_.FieldError(
        op, "namespace",
        fmt::format("namespace not set for {:?}, but a Pod has scope \"namespace\"", *path));
    ok = false;
    return std::nullopt;
  }
  if (scope == Scope::kRoot && has_ns) {
    d_.FieldError(
        op, "namespace",
        fmt::format("namespace {:?} set for {:?}, but a Node has scope \"root\"", *ns, *path));
    ok = false;
    return std::nullopt;
  }
  auto field = d_.Field("templatePath");
  auto t = Template(*path, *op.Find("templatePath"));
  if (!t.ok()) {
    ok = false;
    return std::nullopt;
  }
  UpdateStart u;
  u.file = *t;
  u.env = std::make_shared<TemplateData>(Env(op, 0, count));
  u.op.kind = kind;
  u.op.count = count;
  u.op.rate_per_s =
      static_cast<double>(Count(op, "updatePerSecond", "updatePerSecondParam", false).value_or(0));
  u.op.line = op.line();
  if (has_ns) u.op.pod_namespace = in_.Intern(*ns);
  return u;
}

bool OpCompiler::UpdateNodes(const Node& op) {
  // Refuse() let through only an updateAny whose template renders a Node, with valid fields.
  bool ok = true;
  auto u = StartUpdate(op, Op::Kind::kUpdateNodes, Scope::kRoot, ok);
  if (!u) return ok;
  std::shared_ptr<TemplateFile> tf = u->file;
  std::shared_ptr<TemplateData> env = u->env;
  const int64_t count = u->op.count;
  Interner* in = &in_;
  Op& o = u->op;
  o.render_node = [tf, env, count, in](int64_t index) -> Result<api::Node> {
    auto n = RenderNode(*tf, *env, index, count, *in);
    if (n.ok() && n->meta.name.empty()) {
      return Error::Invalid(
          fmt::format("{}: updateAny: object {} has no metadata.name", tf->path, index));
    }
    return n;
  };
  o.describe = fmt::format("updateAny Node count={}", count);
  spec_.program.push_back(std::move(o));
  return true;
}

bool OpCompiler::RenderEach(const Node& op, std::string_view kind,
                            const std::function<bool(LoadedObject&, Symbol)>& take) {
  CheckKeys(op, {"count", "countParam", "namespace", "templatePath", "templateParams"});
  auto count = Count(op, "count", "countParam", true);
  auto path = String(op, "templatePath");
  auto ns = String(op, "namespace");
  if (!path) d_.Required(op, "templatePath");
  if (!ns) d_.Required(op, "namespace");
  if (!count || !path || !ns) return false;
  AddNamespace(*ns);
  auto scope = d_.Field("templatePath");
  auto t = Template(*path, *op.Find("templatePath"));
  if (!t.ok()) return false;
  const Symbol ns_sym = in_.Intern(*ns);
  for (int64_t i = 0; i < *count; ++i) {
    auto text = (*t)->tmpl.Execute(Env(op, i, *count));
    if (!text.ok()) {
      diags_.Error((*t)->path, 0, "", fmt::format("template: {}", text.error().message));
      return false;
    }
    auto obj = LoadRendered(*text, (*t)->path, in_);
    if (!obj.ok()) {
      diags_.Error("", 0, "", obj.error().message);
      return false;
    }
    if (obj->kind != kind || !take(*obj, ns_sym)) {
      d_.Error(*op.Find("templatePath"),
               fmt::format("template {} is a {:?}, want a {}", (*t)->path, obj->kind, kind));
      return false;
    }
  }
  return true;
}

// One PodGroup per index, rendered with {Index, Count} and templateParams, in the op's namespace
// (kube creates them before the pods that name them, so they exist from the start here).
bool OpCompiler::CreatePodGroups(const Node& op) {
  return RenderEach(op, "PodGroup", [&](LoadedObject& obj, Symbol ns) {
    if (obj.objects.pod_groups.size() != 1) return false;
    api::PodGroup& g = obj.objects.pod_groups[0];
    g.meta.namespace_ = ns;
    if (obj.priority) g.priority = *obj.priority;
    TakePodGroupClaims(obj, ns);
    spec_.objects.pod_groups.push_back(std::move(g));
    return true;
  });
}

// One CompositePodGroup per index, as createPodGroups renders PodGroups; they exist from the
// start (kube's op creates them before the PodGroups and pods that name them).
bool OpCompiler::CreateCompositePodGroups(const Node& op) {
  return RenderEach(op, "CompositePodGroup", [&](LoadedObject& obj, Symbol ns) {
    if (obj.objects.composite_pod_groups.size() != 1) return false;
    api::CompositePodGroup& g = obj.objects.composite_pod_groups[0];
    g.meta.namespace_ = ns;
    spec_.objects.composite_pod_groups.push_back(std::move(g));
    return true;
  });
}

bool OpCompiler::WaitForPodGroups(const Node& op) {
  CheckKeys(op, {"namespace", "count", "countParam"});
  auto count = Count(op, "count", "countParam", true);
  auto ns = String(op, "namespace");
  if (!ns) d_.Required(op, "namespace");
  if (!count || !ns) return false;
  // kube waits until the scheduler's informer holds `count` PodGroups of the namespace. Corral's
  // scheduler sees every object of the run from its start, so the wait is over at once when the ops
  // before it created them; with fewer, kube's wait would time out, which is an error here.
  const Symbol ns_sym = in_.Intern(*ns);
  int64_t have = 0;
  for (const auto& g : spec_.objects.pod_groups) have += g.meta.namespace_ == ns_sym ? 1 : 0;
  if (have < *count) {
    d_.Error(op, fmt::format("waitForPodGroups: the ops before it create {} PodGroups in namespace "
                             "{:?}, want {} (kube's wait would time out)",
                             have, *ns, *count));
    return false;
  }
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
    o.churn.mode = ChurnSpec::Mode::kRing;  // kube's Recreate (sim/spec.h)
  } else {
    d_.FieldError(op, "mode", fmt::format("unknown churn mode {:?} (want create, recreate)", mode));
    return false;
  }
  // kube's churnOp: in Create mode `number` bounds the ticks (0 or absent: no bound); in Recreate
  // mode it is the ring size, and kube's ring of size 0 would fail at the first tick.
  o.churn.number = Count(op, "number", "numberParam", false).value_or(0);  // Count rejects < 0
  if (o.churn.mode == ChurnSpec::Mode::kRing && o.churn.number == 0) {
    d_.FieldError(op, "number", "churn mode recreate needs number > 0 (the ring of objects kept)");
    return false;
  }
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

bool OpCompiler::Refuse(const Node& op, const std::string& code, bool& ok) {
  if (code == "updateAny") {
    // kube's updateAny: its fields are checked as kube's isValid does; the template's kind picks
    // the step (a Node, a Pod, a Pod's resize), and any other kind refuses the workload.
    CheckKeys(op, {"namespace", "templatePath", "count", "countParam", "updatePerSecond",
                   "subresources"});
    if (diags_.has_errors()) {
      ok = false;
      return true;
    }
    if (!String(op, "templatePath")) {
      d_.Required(op, "templatePath");
      ok = false;
      return true;
    }
    if (const Node* n = op.Find("updatePerSecond"); n != nullptr) {
      auto s = d_.Field("updatePerSecond");
      int64_t v = 0;
      if (!d_.ReadInt64(*n, v, 0, 1'000'000'000)) {
        ok = false;
        return true;
      }
    }
    // kube updates through the named subresources: a pod's "resize" (in-place pod resize) is
    // modelled; any other subresource is not.
    bool resize = false;
    if (const Node* n = op.Find("subresources"); n != nullptr) {
      auto sub = d_.Field("subresources");
      std::vector<Symbol> subs;
      if (!d_.ReadSymbolList(*n, subs)) {
        ok = false;
        return true;
      }
      for (Symbol sym : subs) {
        if (in_.Str(sym) != "resize") {
          unsupported = fmt::format(
              "op \"updateAny\" with subresource {:?} (only pods' \"resize\" is modelled)",
              in_.Str(sym));
          return true;
        }
        resize = true;
      }
    }
    auto count = Count(op, "count", "countParam", false);
    if (diags_.has_errors()) {
      ok = false;
      return true;
    }
    if (count.value_or(1) == 0) return false;  // nothing to update (kube renders nothing)
    auto scope = d_.Field("templatePath");
    auto t = Template(*String(op, "templatePath"), *op.Find("templatePath"));
    if (!t.ok()) {
      ok = false;
      return true;
    }
    auto text = (*t)->tmpl.Execute(Env(op, 0, count.value_or(1)));
    if (!text.ok()) {
      diags_.Error((*t)->path, 0, "", fmt::format("template: {}", text.error().message));
      ok = false;
      return true;
    }
    auto obj = LoadRendered(*text, (*t)->path, in_);
    if (!obj.ok()) {
      diags_.Error("", 0, "", obj.error().message);
      ok = false;
      return true;
    }
    if (resize) {
      if (!obj->objects.pods.empty()) return false;  // compiled by UpdatePods
      diags_.Error((*t)->path, 0, "",
                   fmt::format("updateAny: subresource \"resize\" of a {}: the server could not "
                               "find the requested resource (only a Pod has it)",
                               obj->kind));
      ok = false;
      return true;
    }
    if (!obj->objects.nodes.empty()) return false;  // compiled by UpdateNodes
    if (!obj->objects.pods.empty()) {
      pod_updates_.insert(&op);
      return false;  // compiled by UpdatePodObjects
    }
    unsupported = fmt::format(
        "op \"updateAny\" of a {} (an existing {} replaced mid-run: Corral's simulator updates "
        "the nodes and pods it holds only)",
        obj->kind, obj->kind);
    return true;
  }
  return false;
}

bool OpCompiler::Run() {
  const Node& ops = *tc_.ops;
  auto s0 = d_.Root(tc_path_);
  auto s1 = d_.Field("workloadTemplate");
  bool ok = true;
  // Ops Corral refuses are found first, so a refused workload is reported as such without reading
  // the templates of the ops before them.
  for (size_t i = 0; i < ops.size() && unsupported.empty() && ok; ++i) {
    const Node& op = ops.items()[i];
    if (!op.is_map()) continue;
    auto si = d_.Index(i);
    Refuse(op, String(op, "opcode").value_or(""), ok);
  }
  if (!ok || !unsupported.empty()) return false;
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
      ok = CreateNamespaces(op) && ok;
    } else if (code == "createAny") {
      ok = CreateAny(op, i) && ok;
    } else if (code == "updateAny") {
      if (op.Find("subresources") != nullptr) {
        ok = UpdatePods(op) && ok;
      } else if (pod_updates_.contains(&op)) {
        ok = UpdatePodObjects(op) && ok;
      } else {
        ok = UpdateNodes(op) && ok;
      }
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
      if (o.kind == Op::Kind::kStartCollecting) {
        // kube's throughput collector counts the pods of these namespaces (all when none) that
        // match the selector.
        if (const Node* n = op.Find("namespaces")) {
          auto s = d_.Field("namespaces");
          d_.ReadSymbolList(*n, o.namespaces);
        }
        o.selector = MapSelector(op, "labelSelector");
      }
      o.describe = code;
      spec_.program.push_back(std::move(o));
    } else if (code == "createPodGroups") {
      ok = CreatePodGroups(op) && ok;
    } else if (code == "createCompositePodGroups") {
      ok = CreateCompositePodGroups(op) && ok;
    } else if (code == "waitForPodGroups") {
      ok = WaitForPodGroups(op) && ok;
    } else if (code == "createResourceDriver") {
      ok = CreateResourceDriver(op) && ok;
    } else if (code == "createResourceClaims") {
      ok = CreateResourceClaims(op) && ok;
    } else if (code == "allocResourceClaims") {
      ok = AllocResourceClaims(op) && ok;
    } else if (code == "updateDeviceConditions") {
      ok = UpdateDeviceConditions(op) && ok;
    } else if (code == "checkPodScheduled") {
      ok = CheckPodScheduled(op) && ok;
    } else if (code == "startCollectingProfile" || code == "stopCollectingProfile") {
      // A Go CPU profile of kube's test process: no effect on scheduling. Corral's own profile
      // comes from `perf record` of the corral process.
      CheckKeys(op, {"type", "filePath"});
      spec_.notes.push_back(fmt::format(
          "{}: a Go CPU profile of kube's test process; not taken (profile corral with perf)",
          code));
    } else if (code.empty()) {
      d_.Required(op, "opcode");
      ok = false;
    } else {
      d_.FieldError(op, "opcode", fmt::format("unknown opcode {:?}", code));
      ok = false;
    }
  }
  if (ok && unsupported.empty()) Finish();
  return ok && unsupported.empty();
}

}  // namespace corral::sim::perf_detail
