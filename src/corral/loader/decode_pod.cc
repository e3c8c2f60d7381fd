// v1 Pod.

#include <algorithm>

#include <fmt/format.h>

#include "corral/api/resource/extended_resource.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/validation.h"

namespace corral::loader::internal {

namespace {

Interner& In(Decoder& d) {
  return *d.interner();
}

// ---- containers ---------------------------------------------------------------------------------

struct ContainerIn {
  api::Container c;
  bool init = false;
  const Node* restart_policy = nullptr;
};

constexpr doc::EnumName<api::Protocol> kProtocols[] = {
    {"TCP", api::Protocol::kTCP},
    {"UDP", api::Protocol::kUDP},
    {"SCTP", api::Protocol::kSCTP},
};

const doc::Field<api::ContainerPort> kPortFields[] = {
    {"name", [](Decoder& d, const Node& n, api::ContainerPort& p) { d.ReadSymbol(n, p.name); }},
    {"containerPort", [](Decoder& d, const Node& n,
                         api::ContainerPort& p) { d.ReadInt32(n, p.container_port, 1, 65535); }},
    {"hostPort", [](Decoder& d, const Node& n,
                    api::ContainerPort& p) { d.ReadInt32(n, p.host_port, 0, 65535); }},
    {"protocol", [](Decoder& d, const Node& n,
                    api::ContainerPort& p) { d.ReadEnum(n, kProtocols, "protocol", p.protocol); }},
    {"hostIP",
     [](Decoder& d, const Node& n, api::ContainerPort& p) { d.ReadSymbol(n, p.host_ip); }},
};

constexpr doc::EnumName<api::ContainerRestartPolicy> kContainerRestartPolicies[] = {
    {"Always", api::ContainerRestartPolicy::kAlways},
    {"OnFailure", api::ContainerRestartPolicy::kUnset},
    {"Never", api::ContainerRestartPolicy::kUnset},
};

const doc::Field<ContainerIn> kContainerFields[] = {
    {"name", [](Decoder& d, const Node& n, ContainerIn& c) { d.ReadSymbol(n, c.c.name); }},
    {"image", [](Decoder& d, const Node& n, ContainerIn& c) { d.ReadSymbol(n, c.c.image); }},
    {"resources",
     [](Decoder& d, const Node& n, ContainerIn& c) { DecodeResources(d, n, c.c.resources); }},
    {"ports",
     [](Decoder& d, const Node& n, ContainerIn& c) {
       d.ReadList(n, c.c.ports, [&](const Node& item, api::ContainerPort& p) {
         d.Struct(item, p, kPortFields);
         if (item.is_map() && p.container_port == 0 && item.Find("containerPort") == nullptr) {
           d.Required(item, "containerPort", "1-65535");
         }
       });
     }},
    {"restartPolicy",
     [](Decoder& d, const Node& n, ContainerIn& c) {
       if (d.ReadEnum(n, kContainerRestartPolicies, "restartPolicy", c.c.restart_policy))
         c.restart_policy = &n;
     }},
};
// Container fields that do not affect scheduling.
constexpr std::string_view kContainerIgnored[] = {
    "command",
    "args",
    "workingDir",
    "envFrom",
    "env",
    "volumeMounts",
    "volumeDevices",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
    "resizePolicy",
    "restartPolicyRules",
};

void DecodeContainers(Decoder& d, const Node& n, std::vector<api::Container>& out, bool init) {
  d.ReadList(n, out, [&](const Node& item, api::Container& c) {
    ContainerIn in;
    in.init = init;
    d.Struct(item, in, kContainerFields, kContainerIgnored);
    if (item.is_map()) {
      if (in.c.name.empty()) {
        d.Required(item, "name");
      } else if (std::string err = CheckDns1123Label(In(d).Str(in.c.name)); !err.empty()) {
        d.FieldError(item, "name", fmt::format("invalid name {:?}: {}", In(d).Str(in.c.name), err));
      }
      if (in.restart_policy != nullptr &&
          in.c.restart_policy != api::ContainerRestartPolicy::kAlways && init) {
        auto s = d.Field("restartPolicy");
        d.Error(*in.restart_policy,
                fmt::format("unsupported value {:?} for an init container (want Always)",
                            in.restart_policy->text()));
      }
    }
    c = std::move(in.c);
  });
}

// ---- volumes ------------------------------------------------------------------------------------

const doc::Field<api::Volume> kPvcSourceFields[] = {
    {"claimName", [](Decoder& d, const Node& n, api::Volume& v) { d.ReadSymbol(n, v.claim_name); }},
};
constexpr std::string_view kPvcSourceIgnored[] = {"readOnly"};

// spec.ephemeral.volumeClaimTemplate: the claim the ephemeral volume controller creates.
struct EphemeralIn {
  api::PersistentVolumeClaim claim;
  bool has_template = false;
};
const doc::Field<EphemeralIn> kClaimTemplateFields[] = {
    {"metadata",
     [](Decoder& d, const Node& n, EphemeralIn& e) { DecodeTemplateMeta(d, n, e.claim.meta); }},
    {"spec", [](Decoder& d, const Node& n, EphemeralIn& e) { DecodeClaimSpec(d, n, e.claim); }},
};
const doc::Field<EphemeralIn> kEphemeralFields[] = {
    {"volumeClaimTemplate",
     [](Decoder& d, const Node& n, EphemeralIn& e) {
       if (n.is_null()) return;
       e.has_template = true;
       d.Struct(n, e, kClaimTemplateFields);
       if (n.is_map() && n.Find("spec") == nullptr) d.Required(n, "spec");
     }},
};

void DecodeEphemeral(Decoder& d, const Node& n, api::Volume& v) {
  v.kind = api::VolumeKind::kEphemeral;
  EphemeralIn e;
  d.Struct(n, e, kEphemeralFields);
  if (!n.is_map()) return;
  if (!e.has_template) {
    d.Required(n, "volumeClaimTemplate");
    return;
  }
  // The beta storage-class annotation of the template wins, as for any claim.
  for (const auto& [k, val] : e.claim.meta.annotations) {
    if (In(d).Str(k) == api::kAnnBetaStorageClass) {
      e.claim.storage_class_name = d.Intern(val);
      e.claim.has_storage_class = true;
    }
  }
  v.claim_template = std::make_shared<const api::PersistentVolumeClaim>(std::move(e.claim));
}

template <api::VolumeKind K>
void DecodeSourceField(Decoder& d, const Node& n, api::Volume& v) {
  v.kind = K;
  DecodeVolumeSource(d, n, K, /*inline_volume=*/true, v.source);
}

const doc::Field<api::Volume> kVolumeFields[] = {
    {"name", [](Decoder& d, const Node& n, api::Volume& v) { d.ReadSymbol(n, v.name); }},
    {"persistentVolumeClaim",
     [](Decoder& d, const Node& n, api::Volume& v) {
       v.kind = api::VolumeKind::kPersistentVolumeClaim;
       d.Struct(n, v, kPvcSourceFields, kPvcSourceIgnored);
       if (n.is_map() && v.claim_name.empty()) d.Required(n, "claimName");
     }},
    {"ephemeral", &DecodeEphemeral},
    {"csi", &DecodeSourceField<api::VolumeKind::kCsi>},
    {"gcePersistentDisk", &DecodeSourceField<api::VolumeKind::kGcePersistentDisk>},
    {"awsElasticBlockStore", &DecodeSourceField<api::VolumeKind::kAwsElasticBlockStore>},
    {"azureDisk", &DecodeSourceField<api::VolumeKind::kAzureDisk>},
    {"cinder", &DecodeSourceField<api::VolumeKind::kCinder>},
    {"rbd", &DecodeSourceField<api::VolumeKind::kRbd>},
    {"iscsi", &DecodeSourceField<api::VolumeKind::kIscsi>},
};
// Volume sources the scheduler does not look into.
constexpr std::string_view kVolumeIgnored[] = {
    "hostPath",  "emptyDir",       "gitRepo",    "secret",
    "nfs",       "glusterfs",      "flexVolume", "cephfs",
    "flocker",   "downwardAPI",    "fc",         "azureFile",
    "configMap", "vsphereVolume",  "quobyte",    "photonPersistentDisk",
    "projected", "portworxVolume", "scaleIO",    "storageos",
    "image",
};

// ---- spec ---------------------------------------------------------------------------------------

const doc::Field<api::WorkloadReference> kWorkloadRefFields[] = {
    {"name", [](Decoder& d, const Node& n, api::WorkloadReference& r) { d.ReadSymbol(n, r.name); }},
    {"podGroup",
     [](Decoder& d, const Node& n, api::WorkloadReference& r) { d.ReadSymbol(n, r.pod_group); }},
    {"podGroupReplicaKey",
     [](Decoder& d, const Node& n, api::WorkloadReference& r) {
       d.ReadSymbol(n, r.pod_group_replica_key);
     }},
};

const doc::Field<api::PodSchedulingGroup> kSchedulingGroupFields[] = {
    {"podGroupName", [](Decoder& d, const Node& n,
                        api::PodSchedulingGroup& g) { d.ReadSymbol(n, g.pod_group_name); }},
};

const doc::Field<Symbol> kSchedulingGateFields[] = {
    {"name", [](Decoder& d, const Node& n, Symbol& s) { d.ReadSymbol(n, s); }},
};

const doc::Field<api::PodResourceClaim> kResourceClaimFields[] = {
    {"name", [](Decoder& d, const Node& n, api::PodResourceClaim& c) { d.ReadSymbol(n, c.name); }},
    {"resourceClaimName", [](Decoder& d, const Node& n,
                             api::PodResourceClaim& c) { d.ReadSymbol(n, c.resource_claim_name); }},
    {"resourceClaimTemplateName",
     [](Decoder& d, const Node& n, api::PodResourceClaim& c) {
       d.ReadSymbol(n, c.resource_claim_template_name);
     }},
};

// kube's ValidatePodResourceClaims: a DNS label name, unique, and exactly one source.
void CheckPodResourceClaim(Decoder& d, const Node& item, const api::PodResourceClaim& c,
                           std::vector<Symbol>& seen) {
  if (!item.is_map()) return;
  if (c.name.empty()) {
    d.Required(item, "name");
  } else if (std::string err = CheckDns1123Label(d.interner()->Str(c.name)); !err.empty()) {
    d.FieldError(item, "name",
                 fmt::format("Invalid value: {:?}: {}", d.interner()->Str(c.name), err));
  } else if (std::find(seen.begin(), seen.end(), c.name) != seen.end()) {
    d.FieldError(item, "name", fmt::format("Duplicate value: {:?}", d.interner()->Str(c.name)));
  } else {
    seen.push_back(c.name);
  }
  if (c.resource_claim_name.empty() == c.resource_claim_template_name.empty()) {
    d.Error(item, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`");
  }
}

// status.resourceClaimStatuses[i]: the claim generated for a template claim.
struct ClaimStatusIn {
  Symbol name;
  Symbol claim_name;
};
const doc::Field<ClaimStatusIn> kClaimStatusFields[] = {
    {"name", [](Decoder& d, const Node& n, ClaimStatusIn& c) { d.ReadSymbol(n, c.name); }},
    {"resourceClaimName",
     [](Decoder& d, const Node& n, ClaimStatusIn& c) { d.ReadSymbol(n, c.claim_name); }},
};

const doc::Field<PodInput> kSpecFields[] = {
    {"initContainers", [](Decoder& d, const Node& n,
                          PodInput& p) { DecodeContainers(d, n, p.pod.init_containers, true); }},
    {"containers", [](Decoder& d, const Node& n,
                      PodInput& p) { DecodeContainers(d, n, p.pod.containers, false); }},
    {"overhead",
     [](Decoder& d, const Node& n, PodInput& p) {
       DecodeResourceList(d, n, p.pod.overhead, ResourceListUse::kPodOverhead);
     }},
    {"resources",
     [](Decoder& d, const Node& n, PodInput& p) {
       if (n.is_null()) return;
       api::ResourceRequirements r;
       DecodeResources(d, n, r);
       p.pod.resources = std::move(r);
     }},
    {"nodeSelector",
     [](Decoder& d, const Node& n, PodInput& p) { DecodeLabels(d, n, p.pod.node_selector); }},
    {"affinity",
     [](Decoder& d, const Node& n, PodInput& p) {
       if (n.is_null()) return;
       api::Affinity a;
       DecodeAffinity(d, n, a);
       p.pod.affinity = std::move(a);
     }},
    {"tolerations",
     [](Decoder& d, const Node& n, PodInput& p) {
       d.ReadList(n, p.pod.tolerations,
                  [&](const Node& item, api::Toleration& t) { DecodeToleration(d, item, t); });
     }},
    {"topologySpreadConstraints",
     [](Decoder& d, const Node& n, PodInput& p) {
       d.ReadList(n, p.pod.topology_spread_constraints,
                  [&](const Node& item, api::TopologySpreadConstraint& c) {
                    DecodeTopologySpreadConstraint(d, item, c);
                  });
     }},
    {"nodeName",
     [](Decoder& d, const Node& n, PodInput& p) {
       if (d.ReadSymbol(n, p.pod.node_name) && !p.pod.node_name.empty()) {
         if (std::string err = CheckDns1123Subdomain(n.text()); !err.empty()) {
           d.Error(n, fmt::format("invalid node name {:?}: {}", n.text(), err));
         }
       }
     }},
    {"schedulerName",
     [](Decoder& d, const Node& n, PodInput& p) { d.ReadSymbol(n, p.pod.scheduler_name); }},
    {"schedulingGates",
     [](Decoder& d, const Node& n, PodInput& p) {
       d.ReadList(n, p.pod.scheduling_gates, [&](const Node& item, Symbol& s) {
         d.Struct(item, s, kSchedulingGateFields);
         if (item.is_map()) {
           if (s.empty()) {
             d.Required(item, "name");
           } else if (const Node* name = item.Find("name")) {
             auto sc = d.Field("name");
             CheckQualifiedNameAt(d, *name, "scheduling gate name", name->text());
           }
         }
       });
     }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, PodInput& p) {
       d.ReadSymbol(n, p.pod.priority_class_name);
       p.prio.class_name_line = n.line();
     }},
    {"priority",
     [](Decoder& d, const Node& n, PodInput& p) {
       int32_t v = 0;
       if (d.ReadInt32(n, v)) p.prio.priority = v;
     }},
    {"preemptionPolicy",
     [](Decoder& d, const Node& n, PodInput& p) {
       api::PreemptionPolicy v{};
       if (d.ReadEnum(n, kPreemptionPolicies, "preemptionPolicy", v)) p.prio.preemption = v;
     }},
    {"terminationGracePeriodSeconds",
     [](Decoder& d, const Node& n, PodInput& p) {
       int64_t v = 0;
       if (d.ReadInt64(n, v)) p.pod.termination_grace_period_seconds = v;
     }},
    {"workloadRef",
     [](Decoder& d, const Node& n, PodInput& p) {
       if (n.is_null()) return;
       api::WorkloadReference r;
       d.Struct(n, r, kWorkloadRefFields);
       if (!n.is_map()) return;
       if (r.name.empty()) d.Required(n, "name");
       if (r.pod_group.empty()) d.Required(n, "podGroup");
       p.pod.workload_ref = r;
     }},
    {"schedulingGroup",
     [](Decoder& d, const Node& n, PodInput& p) {
       if (n.is_null()) return;
       api::PodSchedulingGroup g;
       d.Struct(n, g, kSchedulingGroupFields);
       if (!n.is_map()) return;
       if (g.pod_group_name.empty()) d.Required(n, "podGroupName");
       p.pod.scheduling_group = g;
     }},
    {"volumes",
     [](Decoder& d, const Node& n, PodInput& p) {
       d.ReadList(n, p.pod.volumes, [&](const Node& item, api::Volume& v) {
         d.Struct(item, v, kVolumeFields, kVolumeIgnored);
         if (item.is_map() && v.name.empty()) d.Required(item, "name");
       });
     }},
    {"resourceClaims",
     [](Decoder& d, const Node& n, PodInput& p) {
       std::vector<Symbol> seen;
       d.ReadList(n, p.pod.resource_claims, [&](const Node& item, api::PodResourceClaim& c) {
         d.Struct(item, c, kResourceClaimFields);
         CheckPodResourceClaim(d, item, c, seen);
       });
     }},
    {"hostNetwork",
     [](Decoder& d, const Node& n, PodInput& p) { d.ReadBool(n, p.pod.host_network); }},
};
// PodSpec fields that do not affect scheduling decisions.
constexpr std::string_view kSpecIgnored[] = {
    "ephemeralContainers",
    "restartPolicy",
    "activeDeadlineSeconds",
    "dnsPolicy",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "hostAliases",
    "dnsConfig",
    "readinessGates",
    "runtimeClassName",
    "enableServiceLinks",
    "setHostnameAsFQDN",
    "os",
    "hostUsers",
    "hostnameOverride",
};

// ---- status -------------------------------------------------------------------------------------

constexpr doc::EnumName<api::PodPhase> kPhases[] = {
    {"Pending", api::PodPhase::kPending},     {"Running", api::PodPhase::kRunning},
    {"Succeeded", api::PodPhase::kSucceeded}, {"Failed", api::PodPhase::kFailed},
    {"Unknown", api::PodPhase::kUnknown},
};

const doc::Field<api::PodCondition> kPodConditionFields[] = {
    {"type", [](Decoder& d, const Node& n, api::PodCondition& c) { d.ReadSymbol(n, c.type); }},
    {"status", [](Decoder& d, const Node& n, api::PodCondition& c) { d.ReadSymbol(n, c.status); }},
    {"reason", [](Decoder& d, const Node& n, api::PodCondition& c) { d.ReadSymbol(n, c.reason); }},
};
constexpr std::string_view kConditionIgnored[] = {"lastProbeTime", "lastTransitionTime", "message",
                                                  "observedGeneration"};

const doc::Field<api::Pod> kStatusFields[] = {
    {"phase",
     [](Decoder& d, const Node& n, api::Pod& p) { d.ReadEnum(n, kPhases, "phase", p.phase); }},
    {"nominatedNodeName",
     [](Decoder& d, const Node& n, api::Pod& p) { d.ReadSymbol(n, p.nominated_node_name); }},
    {"startTime",
     [](Decoder& d, const Node& n, api::Pod& p) {
       TimePoint t;
       if (d.ReadTime(n, t)) p.start_time = t;
     }},
    {"conditions",
     [](Decoder& d, const Node& n, api::Pod& p) {
       d.ReadList(n, p.conditions, [&](const Node& item, api::PodCondition& c) {
         d.Struct(item, c, kPodConditionFields, kConditionIgnored);
       });
     }},
};
// PodStatus fields written by the kubelet that the scheduler does not read.
constexpr std::string_view kStatusIgnored[] = {
    "observedGeneration",
    "message",
    "reason",
    "hostIP",
    "hostIPs",
    "podIP",
    "podIPs",
    "initContainerStatuses",
    "containerStatuses",
    "ephemeralContainerStatuses",
    "qosClass",
    "resize",
    "resourceClaimStatuses",
    "extendedResourceClaimStatus",
    "allocatedResources",
    "resources",
};

// ---- object -------------------------------------------------------------------------------------

const doc::Field<PodInput> kPodFields[] = {
    {"apiVersion", [](Decoder&, const Node&, PodInput&) {}},
    {"kind", [](Decoder&, const Node&, PodInput&) {}},
    {"metadata", [](Decoder& d, const Node& n,
                    PodInput& p) { DecodeMeta(d, n, p.pod.meta, {.namespaced = true}); }},
    {"spec",
     [](Decoder& d, const Node& n, PodInput& p) { d.Struct(n, p, kSpecFields, kSpecIgnored); }},
    {"status", [](Decoder& d, const Node& n,
                  PodInput& p) { d.Struct(n, p.pod, kStatusFields, kStatusIgnored); }},
};

void DefaultHostNetworkPorts(std::vector<api::Container>& containers) {
  for (auto& c : containers) {
    for (auto& port : c.ports) {
      if (port.host_port == 0) port.host_port = port.container_port;
    }
  }
}

// The two pod inputs from which kube v1.37's node-feature registry infers, at scheduling time, a
// feature the node must declare (NodeDeclaredFeatures): a restartPolicyRules entry with action
// RestartAllContainers, and hostUsers false with hostNetwork true. Corral's nodes carry no declared
// features, so such a pod is refused at its position rather than scheduled as if it needed none.
void RefuseDeclaredFeatureInputs(Decoder& d, const Node& spec, const api::Pod& pod) {
  if (const Node* hu = spec.Find("hostUsers");
      hu != nullptr && hu->kind() == doc::Kind::kBool && !hu->bool_value() && pod.host_network) {
    auto f = d.Field("hostUsers");
    d.Error(*hu,
            "not modelled by Corral: hostUsers false with hostNetwork true needs a node that "
            "declares UserNamespacesHostNetworkSupport (NodeDeclaredFeatures)");
  }
  for (std::string_view field : {"initContainers", "containers"}) {
    const Node* list = spec.Find(field);
    if (list == nullptr || !list->is_sequence()) continue;
    auto f = d.Field(field);
    for (size_t i = 0; i < list->size(); ++i) {
      const Node& c = list->items()[i];
      const Node* rules = c.is_map() ? c.Find("restartPolicyRules") : nullptr;
      if (rules == nullptr || !rules->is_sequence()) continue;
      auto idx = d.Index(i);
      auto r = d.Field("restartPolicyRules");
      for (size_t j = 0; j < rules->size(); ++j) {
        const Node& rule = rules->items()[j];
        const Node* action = rule.is_map() ? rule.Find("action") : nullptr;
        if (action == nullptr || action->text() != "RestartAllContainers") continue;
        auto ri = d.Index(j);
        auto a = d.Field("action");
        d.Error(*action,
                "not modelled by Corral: a RestartAllContainers rule needs a node that declares "
                "RestartAllContainersOnContainerExits (NodeDeclaredFeatures)");
      }
    }
  }
}

// DRAExtendedResource: the names DynamicResources gives the device requests of a pod's extended
// resources when DRA backs them on a node, interned here because a scheduling cycle only reads
// the interner. Only containers that request a DRA extended-resource name get any.
void InternExtendedResourceNames(Decoder& d, const api::Pod& pod) {
  namespace res = api::resource;
  const Interner& in = *d.interner();
  std::vector<std::string_view> names;
  size_t index = 0;
  bool any = false;
  for (const auto* list : {&pod.init_containers, &pod.containers}) {
    for (const api::Container& c : *list) {
      names.clear();
      bool has = false;
      for (const auto& [name, q] : c.resources.requests) {
        names.push_back(in.Str(name));
        has |= res::IsDraExtendedResourceName(in.Str(name));
      }
      if (has) {
        std::sort(names.begin(), names.end());
        for (size_t j = 0; j < names.size(); ++j) {
          if (res::IsDraExtendedResourceName(names[j])) {
            d.Intern(res::ExtendedResourceRequestName(index, j));
          }
        }
        any = true;
      }
      ++index;
    }
  }
  if (any) {
    d.Intern(res::kSpecialClaimInMemName);
    d.Intern(res::kExtendedResourceClaimAnnotation);
    d.Intern("true");
    d.Intern("Pod");
  }
}

}  // namespace

void DecodePod(Decoder& d, const Node& root, PodInput& out, bool template_only) {
  d.Struct(root, out, kPodFields);
  api::Pod& pod = out.pod;
  if (!template_only) CheckMetaPresent(d, root, pod.meta);
  const Node* spec = root.Find("spec");
  if (spec == nullptr || spec->is_null()) {
    d.Required(root, "spec");
  } else if (spec->is_map()) {
    auto s = d.Field("spec");
    if (pod.containers.empty()) d.Required(*spec, "containers", "at least one container");
    // Container names are unique across init and regular containers.
    std::vector<Symbol> names;
    auto check = [&](const std::vector<api::Container>& cs, std::string_view field) {
      for (size_t i = 0; i < cs.size(); ++i) {
        if (cs[i].name.empty()) continue;
        if (std::find(names.begin(), names.end(), cs[i].name) != names.end()) {
          const Node* list = spec->Find(field);
          auto f = d.Field(field);
          auto idx = d.Index(i);
          d.Error(
              list != nullptr && list->is_sequence() && i < list->size() ? list->items()[i] : *spec,
              fmt::format("duplicate container name {:?}", In(d).Str(cs[i].name)));
        }
        names.push_back(cs[i].name);
      }
    };
    check(pod.init_containers, "initContainers");
    check(pod.containers, "containers");
    RefuseDeclaredFeatureInputs(d, *spec, pod);
  }
  // status.resourceClaimStatuses names the claims generated for template claims (read after the
  // spec, whatever the key order).
  const Node* status = root.Find("status");
  const Node* claim_statuses =
      status != nullptr && status->is_map() ? status->Find("resourceClaimStatuses") : nullptr;
  if (claim_statuses != nullptr && !claim_statuses->is_null()) {
    auto s1 = d.Field("status");
    auto s2 = d.Field("resourceClaimStatuses");
    std::vector<ClaimStatusIn> statuses;
    d.ReadList(*claim_statuses, statuses, [&](const Node& item, ClaimStatusIn& c) {
      d.Struct(item, c, kClaimStatusFields);
      if (!item.is_map()) return;
      if (c.name.empty()) {
        d.Required(item, "name");
        return;
      }
      for (api::PodResourceClaim& pc : pod.resource_claims) {
        if (pc.name != c.name) continue;
        if (!pc.resource_claim_template_name.empty()) pc.generated_claim_name = c.claim_name;
        return;
      }
      d.FieldError(item, "name",
                   fmt::format("Invalid value: {:?}: must match the name of an entry in "
                               "`spec.resourceClaims`",
                               In(d).Str(c.name)));
    });
  }
  if (out.prio.class_name_line == 0)
    out.prio.class_name_line = spec != nullptr ? spec->line() : root.line();

  InternExtendedResourceNames(d, pod);

  // API server defaulting (SetDefaults_Pod / SetDefaults_PodSpec).
  if (pod.scheduler_name.empty()) pod.scheduler_name = d.Intern("default-scheduler");
  if (!pod.termination_grace_period_seconds) pod.termination_grace_period_seconds = 30;
  if (pod.host_network) {
    DefaultHostNetworkPorts(pod.init_containers);
    DefaultHostNetworkPorts(pod.containers);
  }
}

}  // namespace corral::loader::internal
