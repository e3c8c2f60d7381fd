// scheduler_perf object templates: the default node and pod, rendering Go templates with their
// parameters and loading the result as one Kubernetes object.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "corral/doc/input.h"
#include "corral/sim/input/perf_config_internal.h"

namespace corral::sim::perf_detail {

namespace fs = std::filesystem;

// The default objects of scheduler_perf (util.go makeBaseNode / makeBasePod
// with testutils.MakePodSpec).
const std::string_view kDefaultNode = R"(apiVersion: v1
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
const std::string_view kDefaultPod = R"(apiVersion: v1
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

namespace {

// For the loader's 'unknown field "X" (did you mean "Y"?)' where X and Y differ only in case: the
// pair (X, Y).
std::optional<std::pair<std::string, std::string>> CaseFoldedField(std::string_view message) {
  constexpr std::string_view kHead = "unknown field \"";
  constexpr std::string_view kMid = "\" (did you mean \"";
  if (!message.starts_with(kHead)) return std::nullopt;
  const size_t mid = message.find(kMid, kHead.size());
  if (mid == std::string_view::npos) return std::nullopt;
  const size_t end = message.find('"', mid + kMid.size());
  if (end == std::string_view::npos) return std::nullopt;
  std::string from(message.substr(kHead.size(), mid - kHead.size()));
  std::string to(message.substr(mid + kMid.size(), end - mid - kMid.size()));
  if (from.size() != to.size() || from == to) return std::nullopt;
  for (size_t i = 0; i < from.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(from[i])) !=
        std::tolower(static_cast<unsigned char>(to[i]))) {
      return std::nullopt;
    }
  }
  return std::make_pair(std::move(from), std::move(to));
}

}  // namespace

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
  // Rebuild the object as JSON: drop a Pod's or PodGroup's spec.priority without a
  // priorityClassName (kept aside), and
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
    } else if (key == "spec" && v.is_map() && (out.kind == "Pod" || out.kind == "PodGroup") &&
               v.Find("priority") != nullptr && v.Find("priorityClassName") == nullptr) {
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
  // kube decodes templates with yaml.UnmarshalStrict into typed objects: an unknown field is an
  // error, but field names match case-insensitively (Go's encoding/json), so "NodeAffinityPolicy"
  // sets nodeAffinityPolicy. Such keys are renamed to the spelling the loader suggests and the
  // object is loaded again; every other warning is an error.
  for (int pass = 0; pass < 2; ++pass) {
    Diagnostics loaded;
    ObjectBuilder b(in, file, false);
    b.Add(json, {{"", &root, ""}}, root.line());
    out.objects = b.Finish(loaded);
    std::vector<std::pair<std::string, std::string>> renames;
    for (const Diagnostic& d : loaded.items()) {
      // Unknown fields are errors (or warnings, by the decoder's setting) either way.
      if (auto r = CaseFoldedField(d.message); r && pass == 0) {
        renames.push_back(std::move(*r));
        continue;
      }
      diags.Error(d.file, d.line, d.path, d.message);
    }
    if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
    if (renames.empty()) return out;
    for (const auto& [from, to] : renames) {
      const std::string key = JsonString(from) + ":";
      for (size_t at = json.find(key); at != std::string::npos; at = json.find(key, at)) {
        json.replace(at, key.size(), JsonString(to) + ":");
      }
    }
  }
  return out;
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

TemplateValue NodeToTemplateValue(const doc::Node& n) {
  switch (n.kind()) {
    case doc::Kind::kNull:
      return nullptr;
    case doc::Kind::kBool:
      return n.bool_value();
    case doc::Kind::kInt:
      return n.int_value();
    case doc::Kind::kFloat:
      return n.float_value();
    case doc::Kind::kString:
      return std::string(n.text());
    case doc::Kind::kSequence: {
      TemplateList list;
      for (const doc::Node& item : n.items()) list.items.push_back(NodeToTemplateValue(item));
      return std::make_shared<const TemplateList>(std::move(list));
    }
    case doc::Kind::kMap: {
      TemplateMap map;
      for (size_t k = 0; k < n.size(); ++k) {
        map.items[std::string(n.key(k).text())] = NodeToTemplateValue(n.value(k));
      }
      return std::make_shared<const TemplateMap>(std::move(map));
    }
  }
  return nullptr;
}

namespace {

// The default of a `$name|default` template parameter as a YAML scalar would read it: an integer,
// true or false, else the text as a string.
TemplateValue DefaultParamValue(std::string_view text) {
  int64_t i = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (!text.empty() && ec == std::errc() && p == text.data() + text.size()) return i;
  if (text == "true" || text == "false") return text == "true";
  return std::string(text);
}

}  // namespace

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
      } else if (v.kind() == doc::Kind::kBool) {
        env[key] = v.bool_value();
      } else if (v.is_string() && v.text().starts_with("$")) {
        // `$name` or `$name|default`: the workload parameter, else the default after `|` (an
        // integer, true/false or a string; `$name|` is the empty string).
        std::string_view ref = v.text().substr(1);
        std::optional<std::string_view> fallback;
        if (size_t bar = ref.find('|'); bar != std::string_view::npos) {
          fallback = ref.substr(bar + 1);
          ref = ref.substr(0, bar);
        }
        if (auto it = w_.params.find(std::string(ref)); it != w_.params.end()) {
          env[key] = ToTemplateValue(it->second);
        } else if (fallback) {
          env[key] = DefaultParamValue(*fallback);
        } else if (reported_params_.insert(&v).second) {
          // kube's op fails on a parameter the workload does not set; rendering "$name" as text
          // would change the test in silence. Reported once per value, whatever the index.
          Err(v, fmt::format("templateParams.{}", key),
              fmt::format("parameter {:?} is not set by workload {:?}", ref, w_.name));
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

// Renders and loads a pod template; returns its index in spec.pod_templates.
uint32_t OpCompiler::AddPodTemplate(const std::shared_ptr<TemplateFile>& t,
                                    const TemplateData& base, const std::string& ns, int64_t count,
                                    const Node& at, int64_t signature_batch) {
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
  if (t->tmpl.has_actions() || signature_batch > 0) {
    // Rendered per pod; the engine copies the result before the next call. With a signature batch
    // size, pod i also gets kube's label signature=signature-label-<i / batch>.
    struct State {
      std::shared_ptr<TemplateFile> file;
      TemplateData env;
      Interner* in;
      Symbol ns;
      std::string last_text;
      api::Pod last;
      int64_t batch;
      Symbol key;
    };
    auto st = std::make_shared<State>(
        State{t, base, &in_, ns_sym, *text, pt.pod, signature_batch,
              signature_batch > 0 ? in_.Intern(kSignatureLabel) : Symbol{}});
    pt.render = [st](int64_t index, int64_t cnt) -> Result<const api::Pod*> {
      st->env["Index"] = index;
      st->env["Count"] = cnt;
      auto txt = st->file->tmpl.Execute(st->env);
      if (!txt.ok())
        return Error::Invalid(fmt::format("{}: template: {}", st->file->path, txt.error().message));
      if (st->batch > 0) {
        st->last.meta.labels.Set(
            st->key, st->in->Intern(SignatureLabelValue(std::max<int64_t>(index, 0), st->batch)));
      }
      if (*txt != st->last_text) {
        auto o = LoadRendered(*txt, st->file->path, *st->in);
        if (!o.ok()) return o.error();
        if (o->objects.pods.empty())
          return Error::Invalid(fmt::format("{}: rendered no Pod", st->file->path));
        st->last = std::move(o->objects.pods[0]);
        st->last.meta.namespace_ = st->ns;
        if (o->priority) st->last.priority = *o->priority;
        st->last_text = std::move(txt).value();
        if (st->batch > 0) {
          st->last.meta.labels.Set(
              st->key, st->in->Intern(SignatureLabelValue(std::max<int64_t>(index, 0), st->batch)));
        }
      }
      return &st->last;
    };
  }
  spec_.pod_templates.push_back(std::move(pt));
  return static_cast<uint32_t>(spec_.pod_templates.size() - 1);
}

std::string SignatureLabelValue(int64_t index, int64_t batch) {
  return fmt::format("signature-label-{}", index / batch);
}

}  // namespace corral::sim::perf_detail
