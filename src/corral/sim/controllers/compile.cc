#include "corral/sim/controllers/compile.h"

#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/sim/controllers/names.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

void AddControllers(std::vector<api::Controller> controllers, Interner& in, SimSpec& spec,
                    Diagnostics& diags, size_t position) {
  const Symbol duration_key = in.Intern(kDurationAnnotation);
  std::vector<Op> ops;
  for (api::Controller& c : controllers) {
    const std::string_view kind = api::ControllerKindName(c.kind);
    const std::string file(in.Str(c.meta.source.file));
    const uint32_t line = c.meta.source.line;
    PodTemplate t;
    t.name = fmt::format("{}/{}/{}", kind, in.Str(c.meta.namespace_), in.Str(c.meta.name));
    t.name_prefix = std::string(in.Str(c.meta.name)) + "-";
    api::Pod& pod = c.tmpl;
    const std::string hash = controllers::TemplateHash(controllers::CanonicalTemplateText(pod, in));
    switch (c.kind) {
      case api::ControllerKind::kDeployment: {
        const Symbol key = in.Intern("pod-template-hash");
        pod.meta.labels.Set(key, in.Intern(hash));
        api::SelectorOwner rs;
        rs.kind = api::SelectorOwnerKind::kReplicaSet;
        rs.meta.name = in.Intern(fmt::format("{}-{}", in.Str(c.meta.name), hash));
        rs.meta.namespace_ = c.meta.namespace_;
        rs.meta.source = c.meta.source;
        rs.selector = c.selector;
        if (rs.selector.has_value()) rs.selector->match_labels.Set(key, in.Intern(hash));
        spec.objects.selector_owners.push_back(std::move(rs));
        break;
      }
      case api::ControllerKind::kStatefulSet:
        pod.meta.labels.Set(in.Intern("controller-revision-hash"),
                            in.Intern(fmt::format("{}-{}", in.Str(c.meta.name), hash)));
        break;
      case api::ControllerKind::kDaemonSet:
        pod.meta.labels.Set(in.Intern("controller-revision-hash"), in.Intern(hash));
        pod.meta.labels.Set(in.Intern("pod-template-generation"), in.Intern("1"));
        controllers::AddDaemonSetTolerations(pod, in);
        break;
      case api::ControllerKind::kReplicaSet:
      case api::ControllerKind::kJob:
        break;
    }
    Workload wk;
    wk.name = t.name;
    wk.arrival.kind = Arrival::Kind::kBurst;
    wk.arrival.count = 1;
    wk.recreate_on_evict = false;  // the controller replaces its pods
    wk.group = std::string(in.Str(c.meta.namespace_));
    if (const std::string* d = pod.meta.Annotation(duration_key)) {
      const std::string path =
          fmt::format("spec.template.metadata.annotations[{}]", kDurationAnnotation);
      Duration v{};
      if (c.kind != api::ControllerKind::kJob) {
        diags.Error(
            file, line, path,
            fmt::format("only a Job's pods complete; the pods of a {} run until deleted", kind));
      } else if (!doc::ParseGoDuration(*d, v) || v.count() < 0) {
        diags.Error(file, line, path,
                    fmt::format("invalid duration {:?} (want a Go duration such as \"30m\")", *d));
      } else if (v.count() > kMaxVirtualNs) {
        diags.Error(file, line, path, VirtualRangeError(*d));
      } else {
        wk.duration = Distribution::Fixed(v);
      }
    }
    t.pod = std::move(pod);
    wk.tmpl = static_cast<uint32_t>(spec.pod_templates.size());
    spec.pod_templates.push_back(std::move(t));
    wk.controller = static_cast<uint32_t>(spec.controllers.size());
    Op op;
    op.kind = Op::Kind::kStartWorkload;
    op.workload = static_cast<uint32_t>(spec.workloads.size());
    op.line = line;
    op.describe = fmt::format("startWorkload workload={}", wk.name);
    ops.push_back(std::move(op));
    spec.workloads.push_back(std::move(wk));
    spec.controllers.push_back(std::move(c));
  }
  const size_t at = std::min(spec.program.size(), position);
  spec.program.insert(spec.program.begin() + static_cast<ptrdiff_t>(at),
                      std::make_move_iterator(ops.begin()), std::make_move_iterator(ops.end()));
}

}  // namespace corral::sim
