// scheduler_perf's updateAny of Pods through the resize subresource (in-place pod resize,
// KEP-1287): each rendered object names a live pod and carries the new resources of its
// containers. The op compiles to Op::Kind::kResizePods; the simulator's ResizeAgent applies it.

#include <fmt/format.h>

#include "corral/doc/parse.h"
#include "corral/sim/input/perf_config_internal.h"
#include "corral/sim/input/scenario.h"

namespace corral::sim::perf_detail {

namespace {

// kube's pods/resize takes only containers' resources (and resizePolicy) from the object it is
// given. A template that changes anything else would have the change silently dropped by kube;
// Corral refuses it with its position, so that no input is quietly ignored. The exceptions are the
// fields kube's own resize templates carry: a container's image (kube drops it; the pod keeps its
// image, as in Corral) and spec.nodeName, which must name the pod's node (checked when the resize
// is applied). Returns "" when the object is a plain resize, else "file:line: field.path:
// message".
std::string CheckResizeObject(const std::string& text, const std::string& file) {
  Diagnostics diags;
  doc::Stream st = doc::ParseYaml(text, file, diags);
  if (diags.has_errors()) return DiagnosticsMessage(diags);
  if (st.documents().empty() || !st.documents()[0].is_map()) {
    return fmt::format("{}: want one Kubernetes object", file);
  }
  const Node& root = st.documents()[0];
  auto refuse = [&](const Node& at, std::string_view path) {
    return fmt::format(
        "{}:{}: {}: not a resize (pods/resize changes only spec.containers[*].resources and "
        "resizePolicy)",
        file, at.line(), path);
  };
  for (size_t i = 0; i < root.size(); ++i) {
    const std::string_view key = root.key(i).text();
    const Node& v = root.value(i);
    if (key == "apiVersion" || key == "kind") continue;
    if (key == "metadata" && v.is_map()) {
      for (size_t k = 0; k < v.size(); ++k) {
        const std::string_view mk = v.key(k).text();
        if (mk != "name" && mk != "namespace") {
          return refuse(v.key(k), fmt::format("metadata.{}", mk));
        }
      }
      continue;
    }
    if (key == "spec" && v.is_map()) {
      for (size_t k = 0; k < v.size(); ++k) {
        const std::string_view sk = v.key(k).text();
        const Node& sv = v.value(k);
        if (sk == "nodeName") continue;
        if (sk != "containers" || !sv.is_sequence()) {
          return refuse(v.key(k), fmt::format("spec.{}", sk));
        }
        for (size_t c = 0; c < sv.items().size(); ++c) {
          const Node& ctr = sv.items()[c];
          if (!ctr.is_map()) return refuse(ctr, fmt::format("spec.containers[{}]", c));
          for (size_t f = 0; f < ctr.size(); ++f) {
            const std::string_view ck = ctr.key(f).text();
            if (ck != "name" && ck != "image" && ck != "resources" && ck != "resizePolicy") {
              return refuse(ctr.key(f), fmt::format("spec.containers[{}].{}", c, ck));
            }
          }
        }
      }
      continue;
    }
    return refuse(root.key(i), key);
  }
  return {};
}

}  // namespace

bool OpCompiler::UpdatePods(const Node& op) {
  // Refuse() let through only an updateAny with subresources [resize] whose template renders a
  // Pod, with valid fields.
  bool ok = true;
  auto u = StartUpdate(op, Op::Kind::kResizePods, Scope::kNamespaced, ok);
  if (!u) return ok;
  std::shared_ptr<TemplateFile> tf = u->file;
  std::shared_ptr<TemplateData> env = u->env;
  const int64_t count = u->op.count;
  Interner* in = &in_;
  Op& o = u->op;
  o.render_pod = [tf, env, count, in](int64_t index) -> Result<api::Pod> {
    auto txt = RenderAt(*tf, *env, index, count);
    if (!txt.ok()) return txt.error();
    if (std::string why = CheckResizeObject(*txt, tf->path); !why.empty()) {
      return Error::Invalid(why);
    }
    auto obj = LoadRendered(*txt, tf->path, *in);
    if (!obj.ok()) return obj.error();
    if (obj->objects.pods.empty()) {
      return Error::Invalid(fmt::format("{}: updateAny pods/resize: rendered no Pod", tf->path));
    }
    if (!obj->has_name) {
      return Error::Invalid(
          fmt::format("{}: updateAny: object {} has no metadata.name", tf->path, index));
    }
    return std::move(obj->objects.pods[0]);
  };
  // Object 0 is checked now, so that a template kube would reject fails before the run.
  if (auto first = o.render_pod(0); !first.ok()) {
    diags_.Error("", 0, "", first.error().message);
    return false;
  }
  o.describe = fmt::format("updateAny Pod pods/resize count={}", count);
  spec_.program.push_back(std::move(o));
  return true;
}

}  // namespace corral::sim::perf_detail
