// apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet and batch/v1 Job as the simulator's
// workload controllers read them.

#include "corral/loader/internal/decode_controllers.h"

#include <fmt/format.h>

#include "corral/api/selectors.h"

namespace corral::loader::internal {

namespace {

struct In {
  api::Controller* c;
  PodInput* pod;
  bool has_template = false;
  bool has_selector = false;
  const Node* template_node = nullptr;
};

bool IsJob(const In& in) {
  return in.c->kind == api::ControllerKind::kJob;
}
bool HasReplicas(const In& in) {
  return in.c->kind == api::ControllerKind::kDeployment ||
         in.c->kind == api::ControllerKind::kReplicaSet ||
         in.c->kind == api::ControllerKind::kStatefulSet;
}

// The field is decoded only for the kinds that have it; others report it as unknown.
bool OnlyFor(Decoder& d, const Node& n, bool has, std::string_view kinds) {
  if (has) return true;
  d.Error(n, fmt::format("this field belongs to {} only", kinds));
  return false;
}

// A Job field whose behaviour the simulator's Job controller does not model: an error, never a
// quiet difference.
void NotModelled(Decoder& d, const Node& n, std::string_view what) {
  if (n.is_null()) return;
  d.Error(n, fmt::format("{} is not modelled by the simulator's Job controller", what));
}

void DecodeClaimTemplate(Decoder& d, const Node& n, api::PersistentVolumeClaim& out) {
  struct T {
    api::PersistentVolumeClaim* c;
  };
  static const doc::Field<T> kFields[] = {
      {"apiVersion", [](Decoder&, const Node&, T&) {}},
      {"kind", [](Decoder&, const Node&, T&) {}},
      {"metadata", [](Decoder& x, const Node& y, T& t) { DecodeMeta(x, y, t.c->meta, {}); }},
      {"spec", [](Decoder& x, const Node& y, T& t) { DecodeClaimSpec(x, y, *t.c); }},
  };
  static constexpr std::string_view kIgnored[] = {"status"};
  T t{&out};
  d.Struct(n, t, kFields, kIgnored);
  if (n.is_map()) {
    if (out.meta.name.empty()) {
      auto s = d.Field("metadata");
      const Node* m = n.Find("metadata");
      d.Required(m != nullptr && m->is_map() ? *m : n, "name");
    }
    if (n.Find("spec") == nullptr) d.Required(n, "spec");
  }
}

const doc::Field<In> kSpecFields[] = {
    {"replicas",
     [](Decoder& d, const Node& n, In& in) {
       if (OnlyFor(d, n, HasReplicas(in), "Deployment, ReplicaSet and StatefulSet"))
         d.ReadInt32(n, in.c->replicas, 0);
     }},
    {"selector",
     [](Decoder& d, const Node& n, In& in) {
       in.has_selector = !n.is_null();
       DecodeLabelSelector(d, n, in.c->selector);
     }},
    {"template",
     [](Decoder& d, const Node& n, In& in) {
       if (n.is_null()) return;
       in.has_template = true;
       in.template_node = &n;
       DecodePod(d, n, *in.pod, /*template_only=*/true);
     }},
    {"podManagementPolicy",
     [](Decoder& d, const Node& n, In& in) {
       static constexpr doc::EnumName<bool> kPolicies[] = {{"OrderedReady", false},
                                                           {"Parallel", true}};
       if (OnlyFor(d, n, in.c->kind == api::ControllerKind::kStatefulSet, "StatefulSet"))
         d.ReadEnum(n, kPolicies, "pod management policy", in.c->parallel);
     }},
    {"ordinals",
     [](Decoder& d, const Node& n, In& in) {
       if (!OnlyFor(d, n, in.c->kind == api::ControllerKind::kStatefulSet, "StatefulSet")) return;
       static const doc::Field<In> kOrdinals[] = {
           {"start",
            [](Decoder& x, const Node& y, In& i) { x.ReadInt32(y, i.c->ordinals_start, 0); }},
       };
       d.Struct(n, in, kOrdinals);
     }},
    {"volumeClaimTemplates",
     [](Decoder& d, const Node& n, In& in) {
       if (!OnlyFor(d, n, in.c->kind == api::ControllerKind::kStatefulSet, "StatefulSet")) return;
       d.ReadList(n, in.c->volume_claim_templates,
                  [&](const Node& item, api::PersistentVolumeClaim& c) {
                    DecodeClaimTemplate(d, item, c);
                  });
     }},
    {"persistentVolumeClaimRetentionPolicy",
     [](Decoder& d, const Node& n, In& in) {
       if (!OnlyFor(d, n, in.c->kind == api::ControllerKind::kStatefulSet, "StatefulSet")) return;
       static const doc::Field<In> kPolicy[] = {
           {"whenScaled",
            [](Decoder& x, const Node& y, In& i) {
              static constexpr doc::EnumName<bool> kValues[] = {{"Retain", false},
                                                                {"Delete", true}};
              x.ReadEnum(y, kValues, "retention policy", i.c->delete_claims_when_scaled);
            }},
           {"whenDeleted",
            [](Decoder& x, const Node& y, In&) {
              static constexpr doc::EnumName<bool> kValues[] = {{"Retain", false},
                                                                {"Delete", true}};
              bool v = false;
              x.ReadEnum(y, kValues, "retention policy", v);
            }},
       };
       d.Struct(n, in, kPolicy);
     }},
    {"parallelism",
     [](Decoder& d, const Node& n, In& in) {
       if (OnlyFor(d, n, IsJob(in), "Job")) d.ReadInt32(n, in.c->parallelism, 0);
     }},
    {"completions",
     [](Decoder& d, const Node& n, In& in) {
       int32_t v = 0;
       if (n.is_null()) return;
       if (OnlyFor(d, n, IsJob(in), "Job") && d.ReadInt32(n, v, 0)) in.c->completions = v;
     }},
    {"completionMode",
     [](Decoder& d, const Node& n, In& in) {
       static constexpr doc::EnumName<bool> kModes[] = {{"NonIndexed", false}, {"Indexed", true}};
       if (OnlyFor(d, n, IsJob(in), "Job")) d.ReadEnum(n, kModes, "completion mode", in.c->indexed);
     }},
    {"backoffLimit",
     [](Decoder& d, const Node& n, In& in) {
       if (OnlyFor(d, n, IsJob(in), "Job")) d.ReadInt32(n, in.c->backoff_limit, 0);
     }},
    {"suspend",
     [](Decoder& d, const Node& n, In& in) {
       if (OnlyFor(d, n, IsJob(in), "Job")) d.ReadBool(n, in.c->suspend);
     }},
    {"activeDeadlineSeconds",
     [](Decoder& d, const Node& n, In&) { NotModelled(d, n, "activeDeadlineSeconds"); }},
    {"podFailurePolicy",
     [](Decoder& d, const Node& n, In&) { NotModelled(d, n, "podFailurePolicy"); }},
    {"backoffLimitPerIndex",
     [](Decoder& d, const Node& n, In&) { NotModelled(d, n, "backoffLimitPerIndex"); }},
    {"maxFailedIndexes",
     [](Decoder& d, const Node& n, In&) { NotModelled(d, n, "maxFailedIndexes"); }},
    {"successPolicy", [](Decoder& d, const Node& n, In&) { NotModelled(d, n, "successPolicy"); }},
    {"managedBy",
     [](Decoder& d, const Node& n, In&) {
       std::string_view v;
       if (d.ReadString(n, v) && v != "kubernetes.io/job-controller") {
         d.Error(n, fmt::format("Job managed by {:?}: only kube's Job controller is simulated", v));
       }
     }},
};

// Rollout, naming and retention settings: they matter when a template changes or objects are
// deleted, which a simulation never does to a controller.
constexpr std::string_view kSpecIgnored[] = {"strategy",
                                             "minReadySeconds",
                                             "revisionHistoryLimit",
                                             "progressDeadlineSeconds",
                                             "paused",
                                             "serviceName",
                                             "updateStrategy",
                                             "manualSelector",
                                             "podReplacementPolicy",
                                             "ttlSecondsAfterFinished"};

const doc::Field<In> kFields[] = {
    {"apiVersion", [](Decoder&, const Node&, In&) {}},
    {"kind", [](Decoder&, const Node&, In&) {}},
    {"metadata",
     [](Decoder& d, const Node& n, In& in) { DecodeMeta(d, n, in.c->meta, {.namespaced = true}); }},
    {"spec", [](Decoder& d, const Node& n, In& in) { d.Struct(n, in, kSpecFields, kSpecIgnored); }},
};
constexpr std::string_view kIgnored[] = {"status"};

}  // namespace

void DecodeController(Decoder& d, const Node& root, api::ControllerKind kind,
                      ControllerInput& out) {
  out.c.kind = kind;
  In in{&out.c, nullptr};
  PodInput pod;
  in.pod = &pod;
  d.Struct(root, in, kFields, kIgnored);
  CheckMetaPresent(d, root, out.c.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
    return;
  }
  if (!spec->is_map()) return;
  auto s = d.Field("spec");
  if (!in.has_template) {
    d.Required(*spec, "template");
    return;
  }
  api::Pod& t = pod.pod;
  // apps/v1 requires a selector that selects the template's labels; a Job generates one from its
  // controller-uid label (manualSelector aside), so a Job's selector is optional.
  if (kind != api::ControllerKind::kJob && !in.has_selector) {
    d.Required(*spec, "selector");
  } else if (in.c->selector.has_value() && !api::Matches(*in.c->selector, t.meta.labels)) {
    auto f = d.Field("template");
    auto m = d.Field("metadata");
    d.Error(*in.template_node, "Invalid value: `selector` does not match template `labels`");
  }
  if (kind == api::ControllerKind::kJob) {
    if (in.c->indexed && !in.c->completions.has_value()) {
      d.Error(*spec, "completions: Required value: when completion mode is Indexed");
    }
  }
  out.prio = pod.prio;
  out.c.tmpl = std::move(t);
}

}  // namespace corral::loader::internal
