#include "corral/sim/input/manifests.h"

#include <utility>

#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/loader/loader.h"
#include "corral/sim/controllers/compile.h"
#include "corral/sim/input/explicit_workload.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

void AddManifestPods(const std::vector<const api::Pod*>& pods, Interner& interner, SimSpec& spec,
                     Diagnostics& diags) {
  if (pods.empty()) return;
  std::optional<TimePoint> earliest;
  for (const api::Pod* p : pods) {
    if (p->IsBound() || !p->meta.creation_timestamp.has_value()) continue;
    if (!earliest || *p->meta.creation_timestamp < *earliest)
      earliest = *p->meta.creation_timestamp;
  }
  const Symbol key = interner.Intern(kDurationAnnotation);
  Workload wk;
  wk.name = "manifests";
  wk.arrival.kind = Arrival::Kind::kExplicit;
  wk.recreate_on_evict = true;
  for (const api::Pod* p : pods) {
    ExplicitArrival a;
    a.tmpl = static_cast<uint32_t>(spec.pod_templates.size());
    a.name = p->meta.name;
    if (!p->IsBound() && earliest && p->meta.creation_timestamp.has_value()) {
      a.time_ns = (*p->meta.creation_timestamp - *earliest).count();
    }
    if (const std::string* d = p->meta.Annotation(key)) {
      Duration v{};
      if (!doc::ParseGoDuration(*d, v) || v.count() < 0) {
        diags.Error(
            std::string(interner.Str(p->meta.source.file)), p->meta.source.line,
            fmt::format("metadata.annotations[{}]", kDurationAnnotation),
            fmt::format("invalid duration {:?} (want a Go duration such as \"30m\" or \"1h30m\")",
                        *d));
      } else if (v.count() > kMaxVirtualNs) {
        diags.Error(std::string(interner.Str(p->meta.source.file)), p->meta.source.line,
                    fmt::format("metadata.annotations[{}]", kDurationAnnotation),
                    VirtualRangeError(*d));
      } else {
        a.duration_ns = v.count();
      }
    }
    PodTemplate t;
    t.name = fmt::format("{}/{}", interner.Str(p->meta.namespace_), interner.Str(p->meta.name));
    t.name_prefix = std::string(interner.Str(p->meta.name)) + "-";
    t.pod = *p;
    spec.pod_templates.push_back(std::move(t));
    wk.explicit_arrivals.push_back(a);
  }
  AppendExplicitWorkload(std::move(wk), StartAt::kFront, spec);
}

Result<SimSpec> LoadManifestsSpec(const std::vector<std::string>& paths, Interner& interner,
                                  Diagnostics& diags, bool strict,
                                  doc::FieldValidation unknown_fields) {
  loader::LoadResult loaded = loader::LoadPaths(
      paths, interner, {.strict = strict, .controllers = true, .unknown_fields = unknown_fields});
  diags.Merge(loaded.diagnostics);
  if (!loaded.ok()) return Error::Invalid(DiagnosticsMessage(diags));
  SimSpec spec;
  spec.name = "manifests";
  for (size_t i = 0; i < paths.size(); ++i) spec.source += (i > 0 ? " " : "") + paths[i];
  spec.initial_nodes = std::move(loaded.objects.nodes);
  std::vector<const api::Pod*> pods;
  for (const auto& p : loaded.objects.pods) pods.push_back(&p);
  AddManifestPods(pods, interner, spec, diags);
  spec.objects.namespaces = std::move(loaded.objects.namespaces);
  spec.objects.priority_classes = std::move(loaded.objects.priority_classes);
  spec.objects.pod_disruption_budgets = std::move(loaded.objects.pod_disruption_budgets);
  spec.objects.selector_owners = std::move(loaded.objects.selector_owners);
  spec.objects.workloads = std::move(loaded.objects.workloads);
  spec.objects.pod_groups = std::move(loaded.objects.pod_groups);
  spec.objects.composite_pod_groups = std::move(loaded.objects.composite_pod_groups);
  spec.objects.storage = std::move(loaded.objects.storage);
  spec.objects.resources = std::move(loaded.objects.resources);
  AddControllers(std::move(loaded.controllers), interner, spec, diags,
                 spec.program.empty() ? 0 : 1);
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  return spec;
}

}  // namespace corral::sim
