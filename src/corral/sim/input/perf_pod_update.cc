// scheduler_perf's updateAny of Pods without subresources: kube's op renders each object and
// sends it as an Update (PUT) of the pod of its name, then as an UpdateStatus. The op compiles to
// Op::Kind::kUpdatePods; each update is validated against the live pod as kube's API server
// validates a pod update (api/pod_update.h), and a rejected one fails the run with kube's message
// at its position in the template.

#include <fmt/format.h>

#include "corral/api/pod_update.h"
#include "corral/doc/parse.h"
#include "corral/sim/input/perf_config_internal.h"
#include "corral/sim/input/scenario.h"

namespace corral::sim::perf_detail {

namespace {

// The line of the node at dotted `path` ("spec.containers[0]") in the rendered object, or of the
// deepest key of it that the object has (the root's first line when none).
uint32_t LineOf(const std::string& text, const std::string& file, std::string_view path) {
  Diagnostics diags;
  doc::Stream st = doc::ParseYaml(text, file, diags);
  if (st.documents().empty()) return 1;
  const Node* at = &st.documents()[0];
  uint32_t line = at->line();
  while (!path.empty() && at != nullptr) {
    const size_t dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    size_t index = SIZE_MAX;
    if (const size_t b = part.find('['); b != std::string_view::npos) {
      index = static_cast<size_t>(std::atoi(std::string(part.substr(b + 1)).c_str()));
      part = part.substr(0, b);
    }
    if (!at->is_map()) break;
    const Node* next = nullptr;
    for (size_t i = 0; i < at->size(); ++i) {
      if (at->key(i).text() == part) {
        line = at->key(i).line();
        next = &at->value(i);
        break;
      }
    }
    if (next == nullptr) break;
    at = next;
    if (index != SIZE_MAX && at->is_sequence() && index < at->items().size()) {
      at = &at->items()[index];
      line = at->line();
    }
  }
  return line;
}

// Whether the rendered object carries a status with any field (scheduler_perf's UpdateStatus
// would write it; Corral keeps the live pod's status).
const Node* StatusOf(const std::string& text, const std::string& file, doc::Stream& keep) {
  Diagnostics diags;
  keep = doc::ParseYaml(text, file, diags);
  if (keep.documents().empty() || !keep.documents()[0].is_map()) return nullptr;
  const Node* s = keep.documents()[0].Find("status");
  if (s == nullptr || (s->is_map() && s->size() == 0) || s->is_null()) return nullptr;
  return s;
}

}  // namespace

bool OpCompiler::UpdatePodObjects(const Node& op) {
  bool ok = true;
  auto u = StartUpdate(op, Op::Kind::kUpdatePods, Scope::kNamespaced, ok);
  if (!u) return ok;
  std::shared_ptr<TemplateFile> tf = u->file;
  std::shared_ptr<TemplateData> env = u->env;
  const int64_t count = u->op.count;
  Interner* in = &in_;
  Op& o = u->op;
  const Symbol ns = o.pod_namespace;
  // Object `index` rendered and loaded, with whether it gave spec.priority, and its text.
  struct Rendered {
    api::Pod pod;
    bool priority_set = false;
    std::string text;
  };
  auto render = [tf, env, count, in](int64_t index) -> Result<Rendered> {
    auto txt = RenderAt(*tf, *env, index, count);
    if (!txt.ok()) return txt.error();
    doc::Stream parsed;
    if (const Node* status = StatusOf(*txt, tf->path, parsed); status != nullptr) {
      return Error::Invalid(fmt::format(
          "{}:{}: status: Corral does not model updateAny's UpdateStatus of a pod with a status "
          "(it keeps the live pod's status)",
          tf->path, status->line()));
    }
    auto obj = LoadRendered(*txt, tf->path, *in);
    if (!obj.ok()) return obj.error();
    if (obj->objects.pods.empty()) {
      return Error::Invalid(fmt::format("{}: updateAny: rendered no Pod", tf->path));
    }
    if (!obj->has_name) {
      return Error::Invalid(
          fmt::format("{}: updateAny: object {} has no metadata.name", tf->path, index));
    }
    Rendered r{std::move(obj->objects.pods[0]), obj->priority.has_value(), std::move(*txt)};
    if (obj->priority.has_value()) r.pod.priority = *obj->priority;
    return r;
  };
  // Object 0 is checked now, so that a template kube would reject fails before the run.
  if (auto first = render(0); !first.ok()) {
    diags_.Error("", 0, "", first.error().message);
    return false;
  }
  o.update_pod = [render, tf, in, ns](
                     int64_t index,
                     const std::function<const api::Pod*(Symbol name)>& live) -> Result<api::Pod> {
    auto r = render(index);
    if (!r.ok()) return r.error();
    const api::Pod& update = r->pod;
    const api::Pod* old = live(update.meta.name);
    if (old == nullptr) {
      // kube's update of an object that does not exist fails the workload.
      return Error::Invalid(
          fmt::format("updateAny: failed to update object in namespace {:?}: pods {:?} not found",
                      in->Str(ns), in->Str(update.meta.name)));
    }
    if (auto err = api::ValidatePodUpdate(update, r->priority_set, *old, *in)) {
      const uint32_t line = LineOf(r->text, tf->path, err->changed);
      std::string where = err->changed == err->path
                              ? fmt::format("pod {}/{}", in->Str(ns), in->Str(update.meta.name))
                              : fmt::format("{} differs from pod {}/{}", err->changed, in->Str(ns),
                                            in->Str(update.meta.name));
      return Error::Invalid(
          fmt::format("{}:{}: {}: {} ({})", tf->path, line, err->path, err->message, where));
    }
    return api::ApplyPodUpdate(update, *old);
  };
  o.describe = fmt::format("updateAny Pod count={}", count);
  spec_.program.push_back(std::move(o));
  return true;
}

}  // namespace corral::sim::perf_detail
