#include "corral/loader/loader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/loader/internal/decode.h"
#include "corral/loader/internal/decode_controllers.h"
#include "corral/loader/internal/decode_device_taints.h"
#include "corral/loader/internal/decode_resource.h"
#include "corral/loader/internal/priority_admission.h"

namespace corral::loader {

namespace {

namespace fs = std::filesystem;
using doc::Decoder;
using doc::Node;

enum class KindId {
  kNode,
  kPod,
  kNamespace,
  kService,
  kReplicationController,
  kReplicaSet,
  kStatefulSet,
  kPriorityClass,
  kPodDisruptionBudget,
  kWorkloadV1Alpha1,
  kWorkload,
  kPodGroup,
  kCompositePodGroup,
  kPersistentVolume,
  kPersistentVolumeClaim,
  kStorageClass,
  kCSINode,
  kCSIDriver,
  kCSIStorageCapacity,
  kDeviceClass,
  kResourceSlice,
  kResourceClaim,
  kResourceClaimTemplate,
  kDeviceTaintRule,
};

struct KindEntry {
  std::string_view api_version;
  std::string_view kind;
  KindId id;
};

constexpr KindEntry kKinds[] = {
    {"v1", "Node", KindId::kNode},
    {"v1", "Pod", KindId::kPod},
    {"v1", "Namespace", KindId::kNamespace},
    {"v1", "Service", KindId::kService},
    {"v1", "ReplicationController", KindId::kReplicationController},
    {"apps/v1", "ReplicaSet", KindId::kReplicaSet},
    {"apps/v1", "StatefulSet", KindId::kStatefulSet},
    {"scheduling.k8s.io/v1", "PriorityClass", KindId::kPriorityClass},
    {"policy/v1", "PodDisruptionBudget", KindId::kPodDisruptionBudget},
    {"scheduling.k8s.io/v1alpha1", "Workload", KindId::kWorkloadV1Alpha1},
    {"scheduling.k8s.io/v1alpha2", "Workload", KindId::kWorkload},
    {"scheduling.k8s.io/v1beta1", "Workload", KindId::kWorkload},
    {"scheduling.k8s.io/v1alpha2", "PodGroup", KindId::kPodGroup},
    {"scheduling.k8s.io/v1alpha3", "PodGroup", KindId::kPodGroup},
    {"scheduling.k8s.io/v1beta1", "PodGroup", KindId::kPodGroup},
    {"scheduling.k8s.io/v1alpha3", "CompositePodGroup", KindId::kCompositePodGroup},
    {"v1", "PersistentVolume", KindId::kPersistentVolume},
    {"v1", "PersistentVolumeClaim", KindId::kPersistentVolumeClaim},
    {"storage.k8s.io/v1", "StorageClass", KindId::kStorageClass},
    {"storage.k8s.io/v1", "CSINode", KindId::kCSINode},
    {"storage.k8s.io/v1", "CSIDriver", KindId::kCSIDriver},
    {"storage.k8s.io/v1", "CSIStorageCapacity", KindId::kCSIStorageCapacity},
    {"resource.k8s.io/v1", "DeviceClass", KindId::kDeviceClass},
    {"resource.k8s.io/v1", "ResourceSlice", KindId::kResourceSlice},
    {"resource.k8s.io/v1", "ResourceClaim", KindId::kResourceClaim},
    {"resource.k8s.io/v1", "ResourceClaimTemplate", KindId::kResourceClaimTemplate},
    // v1beta2 has v1's schema.
    {"resource.k8s.io/v1beta2", "DeviceClass", KindId::kDeviceClass},
    {"resource.k8s.io/v1beta2", "ResourceSlice", KindId::kResourceSlice},
    {"resource.k8s.io/v1beta2", "ResourceClaim", KindId::kResourceClaim},
    {"resource.k8s.io/v1beta2", "ResourceClaimTemplate", KindId::kResourceClaimTemplate},
    // v1beta1 and v1alpha3 claims carry their request fields inline (decode_resource.cc).
    {"resource.k8s.io/v1beta1", "ResourceClaim", KindId::kResourceClaim},
    {"resource.k8s.io/v1beta1", "ResourceClaimTemplate", KindId::kResourceClaimTemplate},
    {"resource.k8s.io/v1alpha3", "ResourceClaim", KindId::kResourceClaim},
    {"resource.k8s.io/v1alpha3", "ResourceClaimTemplate", KindId::kResourceClaimTemplate},
    {"resource.k8s.io/v1alpha3", "DeviceTaintRule", KindId::kDeviceTaintRule},
    {"resource.k8s.io/v1beta2", "DeviceTaintRule", KindId::kDeviceTaintRule},
};

std::string SupportedVersions(std::string_view kind) {
  std::string out;
  for (const auto& k : kKinds) {
    if (k.kind != kind) continue;
    if (!out.empty()) out += ", ";
    out += k.api_version;
  }
  return out;
}

bool HasExtension(const fs::path& p, std::initializer_list<std::string_view> exts) {
  std::string e = p.extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(exts.begin(), exts.end(), e) != exts.end();
}

// Container-valued fields that every decoder ignores where they occur (see the ignored lists in
// decode_*.cc): the JSON parser skips them without building nodes. Large dumps are mostly these.
constexpr doc::DropRule kDropRules[] = {
    {"metadata", "managedFields"},
    {"status", "containerStatuses"},
    {"status", "initContainerStatuses"},
    {"status", "ephemeralContainerStatuses"},
    {"status", "podIPs"},
    {"status", "hostIPs"},
    {"status", "addresses"},
    {"status", "daemonEndpoints"},
    {"status", "nodeInfo"},
    {"status", "volumesAttached"},
    {"status", "volumesInUse"},
    {"status", "runtimeHandlers"},
    {"status", "features"},
    {"status", "config"},
    {"spec", "securityContext"},
    {"spec", "hostAliases"},
    {"spec", "dnsConfig"},
    {"spec", "imagePullSecrets"},
    {"spec", "readinessGates"},
    {"spec", "ephemeralContainers"},
    {"spec", "os"},
    {"containers", "env"},
    {"containers", "envFrom"},
    {"containers", "volumeMounts"},
    {"containers", "volumeDevices"},
    {"containers", "livenessProbe"},
    {"containers", "readinessProbe"},
    {"containers", "startupProbe"},
    {"containers", "lifecycle"},
    {"containers", "securityContext"},
    {"containers", "resizePolicy"},
    {"initContainers", "env"},
    {"initContainers", "envFrom"},
    {"initContainers", "volumeMounts"},
    {"initContainers", "volumeDevices"},
    {"initContainers", "livenessProbe"},
    {"initContainers", "readinessProbe"},
    {"initContainers", "startupProbe"},
    {"initContainers", "lifecycle"},
    {"initContainers", "securityContext"},
    {"initContainers", "resizePolicy"},
    {"volumes", "projected"},
    {"volumes", "configMap"},
    {"volumes", "secret"},
    {"volumes", "downwardAPI"},
    {"volumes", "hostPath"},
    {"volumes", "emptyDir"},
    {"volumes", "csi"},
};

using internal::Admission;
using internal::Origin;

}  // namespace

class Loader::Impl {
 public:
  Impl(Interner& interner, LoadOptions opts)
      : in_(interner),
        opts_(opts),
        default_ns_(in_.Intern("default")),
        admission_(interner, opts.strict) {}

  void AddPath(const std::string& path) {
    std::error_code ec;
    fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
      Diags().Error(path, 0, "", "no such file or directory");
      return;
    }
    if (!fs::is_directory(st)) {
      AddFile(path, /*named=*/true);
      return;
    }
    std::vector<std::string> files;
    fs::recursive_directory_iterator it(path, fs::directory_options::none, ec), end;
    if (ec) {
      Diags().Error(path, 0, "", fmt::format("cannot read directory: {}", ec.message()));
      return;
    }
    for (; it != end; it.increment(ec)) {
      if (ec) {
        Diags().Error(path, 0, "", fmt::format("cannot read directory: {}", ec.message()));
        break;
      }
      const fs::path& p = it->path();
      if (p.filename().string().starts_with(
              ".")) {  // hidden files and directories (.git, editor files)
        if (it->is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      if (it->is_directory(ec)) continue;
      files.push_back(p.string());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      // A FIFO, socket or device found in a directory is skipped with a note before it is opened
      // (opening a FIFO blocks until a writer appears). A path named on the command line is read
      // whatever its type, so `corral validate <(kubectl get ... -o yaml)` works.
      if (std::error_code tec; !fs::is_regular_file(f, tec)) {
        if (fs::exists(f, tec)) {
          Diags().Warning(f, 0, "", "note: skipped (not a regular file)");
          continue;
        }
      }
      if (HasExtension(f, {".yaml", ".yml", ".json"})) {
        AddFile(f, /*named=*/false);
      } else {
        Diags().Warning(f, 0, "", "note: skipped (not a .yaml, .yml or .json file)");
      }
    }
  }

  void AddFile(const std::string& path, bool named) {
    Result<doc::InputBuffer> input = doc::InputBuffer::ReadFile(path);
    if (!input.ok()) {
      Diags().Error(path, 0, "", input.error().message);
      return;
    }
    Format format = Format::kAuto;
    if (HasExtension(path, {".json"})) {
      format = Format::kJson;
    } else if (HasExtension(path, {".yaml", ".yml"})) {
      format = Format::kYaml;
    }
    (void)named;  // named files of any extension are sniffed (kAuto)
    AddContent(std::move(*input), path, format);
  }

  void AddString(std::string_view content, std::string_view filename, Format format) {
    AddContent(doc::InputBuffer::Copy(content), filename, format);
  }

  void AddContent(doc::InputBuffer content, std::string_view filename, Format format) {
    ++result_.counts.files;
    if (content.text().starts_with("\xEF\xBB\xBF"))
      content.RemovePrefix(3);  // UTF-8 byte order mark
    if (format == Format::kAuto) {
      format = HasExtension(fs::path(filename), {".json"}) || doc::LooksLikeJson(content.text())
                   ? Format::kJson
                   : Format::kYaml;
    }
    doc::Stream stream =
        format == Format::kJson
            ? doc::ParseJsonAdopt(std::move(content), filename, Diags(), {.drop = kDropRules})
            : doc::ParseYamlAdopt(std::move(content), filename, Diags());
    Decoder d(filename, Diags(), &in_,
              {.strict = opts_.strict, .unknown_fields = opts_.unknown_fields});
    file_sym_ = in_.Intern(filename);
    for (const Node& root : stream.documents()) {
      if (root.is_null()) continue;  // empty document (e.g. a trailing `---`)
      ++result_.counts.documents;
      if (!root.is_map()) {
        d.Error(root, fmt::format("expected an object (a map with apiVersion and kind), got {}",
                                  Decoder::Describe(root)));
        ++result_.counts.rejected;
        continue;
      }
      DecodeObject(d, root, {}, {});
    }
    result_.counts.unknown_fields += d.unknown_field_count();
  }

  LoadResult Finish() {
    admission_.AdmitClasses(result_.objects.priority_classes, pc_origin_, Diags());
    AdmitPods();
    AdmitPodGroups();
    AdmitControllers();
    CreateEphemeralClaims();
    internal::GenerateTemplateClaims(in_, result_.objects.pods, dra_);
    internal::GenerateGroupTemplateClaims(in_, dra_);
    if (!dra_.empty()) {
      result_.objects.resources =
          std::make_shared<const api::resource::ResourceObjects>(std::move(dra_));
    }
    for (auto& r : rejected_) {  // already rejected: only report what admission would say too
      int32_t priority = 0;
      api::PreemptionPolicy policy{};
      admission_.Admit(r.admission, r.class_name, priority, r.kind == "Pod" ? &policy : nullptr,
                       r.kind, r.ns, r.name, Diags());
    }
    result_.counts.objects = 0;
    for (const auto& [kind, n] : result_.counts.per_kind) result_.counts.objects += n;
    SortDiagnostics();
    return std::move(result_);
  }

 private:
  Diagnostics& Diags() { return result_.diagnostics; }

  // Groups diagnostics by file (in load order) and orders each file's by line, so that checks that
  // run after all files were read (admission, duplicates) appear next to the file's other messages.
  void SortDiagnostics() {
    const auto& items = result_.diagnostics.items();
    absl::flat_hash_map<std::string_view, size_t> file_rank;
    for (const auto& d : items) file_rank.try_emplace(d.file, file_rank.size());
    std::vector<size_t> order(items.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::pair(file_rank.at(items[a].file), items[a].line) <
             std::pair(file_rank.at(items[b].file), items[b].line);
    });
    Diagnostics sorted;
    for (size_t i : order) {
      const Diagnostic& d = items[i];
      if (d.severity == Severity::kError) {
        sorted.Error(d.file, d.line, d.path, d.message);
      } else {
        sorted.Warning(d.file, d.line, d.path, d.message);
      }
    }
    result_.diagnostics = std::move(sorted);
  }

  static std::string_view TextOf(const Node* n) {
    return n != nullptr && n->is_string() ? n->text() : "";
  }

  // Decodes one object (or a List) at `root`. `default_version`/`default_kind` apply to List items
  // that omit them (typed lists such as NodeList).
  void DecodeObject(Decoder& d, const Node& root, std::string_view default_version,
                    std::string_view default_kind) {
    const Node* version_node = root.Find("apiVersion");
    const Node* kind_node = root.Find("kind");
    std::string_view api_version = TextOf(version_node);
    std::string_view kind = TextOf(kind_node);
    for (const Node* n : {version_node, kind_node}) {
      if (n != nullptr && !n->is_null() && !n->is_string()) {
        auto s = d.Field(n == version_node ? "apiVersion" : "kind");
        d.Error(*n, "expected a string, got " + Decoder::Describe(*n));
        ++result_.counts.rejected;
        return;
      }
    }
    if (kind.empty()) kind = default_kind;
    if (api_version.empty()) api_version = default_version;
    if (kind.empty()) {
      d.Required(root, "kind");
      ++result_.counts.rejected;
      return;
    }
    if (kind == "List" ||
        (kind.ends_with("List") && kind.size() > 4 && root.Find("items") != nullptr)) {
      DecodeList(d, root, api_version, kind);
      return;
    }
    if (api_version.empty()) {
      d.Required(root, "apiVersion",
                 SupportedVersions(kind).empty() ? "" : SupportedVersions(kind));
      ++result_.counts.rejected;
      return;
    }
    const KindEntry* entry = nullptr;
    for (const auto& k : kKinds) {
      if (k.kind == kind && k.api_version == api_version) entry = &k;
    }
    if (opts_.controllers) {
      std::optional<api::ControllerKind> ck = ControllerKindOf(api_version, kind);
      if (ck.has_value()) {
        Origin origin{in_.Str(file_sym_), root.line(), d.path()};
        DecodeControllerObject(d, root, *ck, origin);
        // ReplicaSets and StatefulSets are also selector owners (default spreading).
        if (entry == nullptr) return;
      }
    }
    if (entry == nullptr) {
      std::string supported = SupportedVersions(kind);
      auto s = d.Field(supported.empty() ? "kind" : "apiVersion");
      const Node& at = supported.empty() ? (kind_node != nullptr ? *kind_node : root)
                                         : (version_node != nullptr ? *version_node : root);
      if (!supported.empty()) {
        d.Error(at, fmt::format("apiVersion {:?} is not supported for {} (want {})", api_version,
                                kind, supported));
        ++result_.counts.rejected;
      } else {
        d.Warning(at,
                  fmt::format("unknown kind {:?} (apiVersion {:?}): not used by Corral, skipped",
                              kind, api_version));
        ++result_.counts.skipped_kinds[fmt::format("{} {}", api_version, kind)];
      }
      return;
    }
    Origin origin{in_.Str(file_sym_), root.line(), d.path()};
    size_t errors_before = d.error_count();
    auto ok = [&] { return d.error_count() == errors_before; };
    switch (entry->id) {
      case KindId::kNode: {
        api::Node o;
        internal::DecodeNode(d, root, o);
        Add(d, ok(), o.meta, "Node", false, origin, result_.objects.nodes, std::move(o));
        break;
      }
      case KindId::kPod: {
        internal::PodInput in;
        internal::DecodePod(d, root, in);
        bool decoded = ok();
        Symbol class_name = in.pod.priority_class_name;
        Symbol ns = in.pod.meta.namespace_.empty() ? default_ns_ : in.pod.meta.namespace_,
               name = in.pod.meta.name;
        if (Add(d, decoded, in.pod.meta, "Pod", true, origin, result_.objects.pods,
                std::move(in.pod))) {
          pod_prio_.push_back({in.prio, std::move(origin)});
        } else if (!decoded) {
          // Still check its priority class at the end, so that all mistakes of the object
          // are reported.
          rejected_.push_back({{in.prio, std::move(origin)}, class_name, "Pod", ns, name});
        }
        break;
      }
      case KindId::kNamespace: {
        api::Namespace o;
        internal::DecodeNamespace(d, root, o);
        Add(d, ok(), o.meta, "Namespace", false, origin, result_.objects.namespaces, std::move(o));
        break;
      }
      case KindId::kService:
      case KindId::kReplicationController:
      case KindId::kReplicaSet:
      case KindId::kStatefulSet: {
        api::SelectorOwner o;
        o.kind = entry->id == KindId::kService ? api::SelectorOwnerKind::kService
                 : entry->id == KindId::kReplicationController
                     ? api::SelectorOwnerKind::kReplicationController
                 : entry->id == KindId::kReplicaSet ? api::SelectorOwnerKind::kReplicaSet
                                                    : api::SelectorOwnerKind::kStatefulSet;
        internal::DecodeSelectorOwner(d, root, o);
        Add(d, ok(), o.meta, entry->kind, true, origin, result_.objects.selector_owners,
            std::move(o));
        break;
      }
      case KindId::kPriorityClass: {
        api::PriorityClass o;
        internal::DecodePriorityClass(d, root, o);
        if (Add(d, ok(), o.meta, "PriorityClass", false, origin, result_.objects.priority_classes,
                std::move(o))) {
          pc_origin_.push_back(std::move(origin));
        }
        break;
      }
      case KindId::kPodDisruptionBudget: {
        api::PodDisruptionBudget o;
        internal::DecodePodDisruptionBudget(d, root, o);
        Add(d, ok(), o.meta, "PodDisruptionBudget", true, origin,
            result_.objects.pod_disruption_budgets, std::move(o));
        break;
      }
      case KindId::kWorkloadV1Alpha1:
      case KindId::kWorkload: {
        api::Workload o;
        o.generation = entry->id == KindId::kWorkloadV1Alpha1
                           ? api::WorkloadApiGeneration::kV1Alpha1
                           : api::WorkloadApiGeneration::kCurrent;
        internal::DecodeWorkload(d, root, o);
        Add(d, ok(), o.meta, "Workload", true, origin, result_.objects.workloads, std::move(o));
        break;
      }
      case KindId::kPersistentVolume:
        DecodeStorage(d, root, &internal::DecodePersistentVolume, "PersistentVolume", false, origin,
                      &api::StorageObjects::volumes, errors_before);
        break;
      case KindId::kPersistentVolumeClaim:
        DecodeStorage(d, root, &internal::DecodePersistentVolumeClaim, "PersistentVolumeClaim",
                      true, origin, &api::StorageObjects::claims, errors_before);
        break;
      case KindId::kStorageClass:
        DecodeStorage(d, root, &internal::DecodeStorageClass, "StorageClass", false, origin,
                      &api::StorageObjects::classes, errors_before);
        break;
      case KindId::kCSINode:
        DecodeStorage(d, root, &internal::DecodeCSINode, "CSINode", false, origin,
                      &api::StorageObjects::csi_nodes, errors_before);
        break;
      case KindId::kCSIDriver:
        DecodeStorage(d, root, &internal::DecodeCSIDriver, "CSIDriver", false, origin,
                      &api::StorageObjects::csi_drivers, errors_before);
        break;
      case KindId::kCSIStorageCapacity:
        DecodeStorage(d, root, &internal::DecodeCSIStorageCapacity, "CSIStorageCapacity", true,
                      origin, &api::StorageObjects::capacities, errors_before);
        break;
      case KindId::kPodGroup: {
        internal::PodGroupInput in;
        internal::DecodePodGroup(d, root, in);
        bool decoded = ok();
        Symbol class_name = in.group.priority_class_name;
        Symbol ns = in.group.meta.namespace_.empty() ? default_ns_ : in.group.meta.namespace_;
        Symbol name = in.group.meta.name;
        if (Add(d, decoded, in.group.meta, "PodGroup", true, origin, result_.objects.pod_groups,
                std::move(in.group))) {
          group_prio_.push_back({in.prio, std::move(origin)});
          if (!in.claims.empty()) {
            const api::ObjectMeta& m = result_.objects.pod_groups.back().meta;
            dra_.pod_group_claims.push_back({m.namespace_, m.name, m.uid, std::move(in.claims)});
          }
        } else if (!decoded) {
          rejected_.push_back({{in.prio, std::move(origin)}, class_name, "PodGroup", ns, name});
        }
        break;
      }
      case KindId::kCompositePodGroup: {
        api::CompositePodGroup o;
        internal::DecodeCompositePodGroup(d, root, o);
        Add(d, ok(), o.meta, "CompositePodGroup", true, origin,
            result_.objects.composite_pod_groups, std::move(o));
        break;
      }
      case KindId::kDeviceClass: {
        api::resource::DeviceClass o;
        internal::DecodeDeviceClass(d, root, o);
        Add(d, ok(), o.meta, "DeviceClass", false, origin, dra_.device_classes, std::move(o));
        break;
      }
      case KindId::kResourceSlice: {
        api::resource::ResourceSlice o;
        internal::DecodeResourceSlice(d, root, o);
        Add(d, ok(), o.meta, "ResourceSlice", false, origin, dra_.resource_slices, std::move(o));
        break;
      }
      case KindId::kResourceClaim: {
        api::resource::ResourceClaim o;
        internal::DecodeResourceClaim(d, root, o);
        Add(d, ok(), o.meta, "ResourceClaim", true, origin, dra_.resource_claims, std::move(o));
        break;
      }
      case KindId::kResourceClaimTemplate: {
        api::resource::ResourceClaimTemplate o;
        internal::DecodeResourceClaimTemplate(d, root, o);
        Add(d, ok(), o.meta, "ResourceClaimTemplate", true, origin, dra_.resource_claim_templates,
            std::move(o));
        break;
      }
      case KindId::kDeviceTaintRule: {
        api::resource::DeviceTaintRule o;
        internal::DecodeDeviceTaintRule(d, root, o);
        Add(d, ok(), o.meta, "DeviceTaintRule", false, origin, dra_.device_taint_rules,
            std::move(o));
        break;
      }
    }
  }

  static std::optional<api::ControllerKind> ControllerKindOf(std::string_view api_version,
                                                             std::string_view kind) {
    if (api_version == "apps/v1") {
      if (kind == "Deployment") return api::ControllerKind::kDeployment;
      if (kind == "ReplicaSet") return api::ControllerKind::kReplicaSet;
      if (kind == "StatefulSet") return api::ControllerKind::kStatefulSet;
      if (kind == "DaemonSet") return api::ControllerKind::kDaemonSet;
    }
    if (api_version == "batch/v1" && kind == "Job") return api::ControllerKind::kJob;
    return std::nullopt;
  }

  // A workload controller (LoadOptions::controllers): its pod template is admitted at Finish.
  void DecodeControllerObject(Decoder& d, const Node& root, api::ControllerKind kind,
                              const Origin& origin) {
    internal::ControllerInput in;
    const size_t errors_before = d.error_count();
    internal::DecodeController(d, root, kind, in);
    // A ReplicaSet or StatefulSet is counted once, as the selector owner it also is; the duplicate
    // check has a key of its own for the controller.
    static constexpr std::string_view kSeenKeys[] = {
        "controller Deployment", "controller ReplicaSet", "controller StatefulSet",
        "controller DaemonSet", "controller Job"};
    const bool owner =
        kind == api::ControllerKind::kReplicaSet || kind == api::ControllerKind::kStatefulSet;
    if (d.error_count() != errors_before) {
      if (!owner) ++result_.counts.rejected;
      return;
    }
    api::ObjectMeta& meta = in.c.meta;
    if (meta.namespace_.empty()) meta.namespace_ = default_ns_;
    meta.source = {file_sym_, origin.line};
    auto [it, inserted] = seen_.try_emplace(
        std::make_tuple(kSeenKeys[static_cast<size_t>(kind)], meta.namespace_, meta.name),
        Origin{origin.file, origin.line, {}});
    if (!inserted) {
      if (!owner) {  // the selector owner's Add reports the duplicate of those
        Diags().Error(std::string(origin.file), origin.line, origin.path,
                      fmt::format("duplicate object: {} {}/{} is already defined at {}:{}",
                                  api::ControllerKindName(kind), in_.Str(meta.namespace_),
                                  in_.Str(meta.name), it->second.file, it->second.line));
        ++result_.counts.rejected;
      }
      return;
    }
    if (!owner) ++result_.counts.per_kind[std::string(api::ControllerKindName(kind))];
    result_.controllers.push_back(std::move(in.c));
    api::Controller& c = result_.controllers.back();
    c.tmpl.meta.namespace_ = c.meta.namespace_;
    c.tmpl.meta.source = c.meta.source;
    controller_prio_.push_back({in.prio, origin});
  }

  void AdmitControllers() {
    auto& cs = result_.controllers;
    std::vector<api::Controller> kept;
    kept.reserve(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) {
      api::Pod& p = cs[i].tmpl;
      if (!admission_.Admit(controller_prio_[i], p.priority_class_name, p.priority,
                            &p.preemption_policy, api::ControllerKindName(cs[i].kind),
                            cs[i].meta.namespace_, cs[i].meta.name, Diags())) {
        ++result_.counts.rejected;
        continue;
      }
      kept.push_back(std::move(cs[i]));
    }
    cs = std::move(kept);
  }

  api::StorageObjects& Storage() {
    if (!result_.objects.storage) result_.objects.storage = std::make_shared<api::StorageObjects>();
    return *result_.objects.storage;
  }

  // Decodes a storage kind into its list of the ObjectSet's storage objects.
  template <class T>
  void DecodeStorage(Decoder& d, const Node& root, void (*decode)(Decoder&, const Node&, T&),
                     std::string_view kind, bool namespaced, const Origin& origin,
                     std::vector<T> api::StorageObjects::*list, size_t errors_before) {
    T o;
    decode(d, root, o);
    Add(d, d.error_count() == errors_before, o.meta, kind, namespaced, origin, Storage().*list,
        std::move(o));
  }

  // kube's ephemeral volume controller: every generic ephemeral volume of a pod gets the claim
  // "<pod>-<volume>" from its template, owned by the pod, unless a claim of that name exists (the
  // binder then checks that the pod owns it).
  void CreateEphemeralClaims() {
    for (const auto& pod : result_.objects.pods) {
      for (const auto& v : pod.volumes) {
        if (v.kind != api::VolumeKind::kEphemeral || v.claim_template == nullptr) continue;
        Symbol name = in_.Intern(api::EphemeralClaimName(in_.Str(pod.meta.name), in_.Str(v.name)));
        auto key =
            std::make_tuple(std::string_view("PersistentVolumeClaim"), pod.meta.namespace_, name);
        if (seen_.contains(key)) continue;
        api::PersistentVolumeClaim c = *v.claim_template;
        c.meta.name = name;
        c.meta.namespace_ = pod.meta.namespace_;
        c.meta.source = pod.meta.source;
        c.meta.owner_references.push_back({in_.Intern("v1"), in_.Intern("Pod"), pod.meta.name,
                                           pod.meta.uid, /*controller=*/true});
        seen_.try_emplace(key, Origin{in_.Str(pod.meta.source.file), pod.meta.source.line, {}});
        Storage().claims.push_back(std::move(c));
      }
    }
  }

  void DecodeList(Decoder& d, const Node& root, std::string_view api_version,
                  std::string_view kind) {
    std::string_view item_kind =
        kind == "List" ? std::string_view() : kind.substr(0, kind.size() - 4);
    std::string_view item_version = kind == "List" ? std::string_view() : api_version;
    for (size_t i = 0; i < root.size(); ++i) {
      std::string_view key = root.key(i).text();
      if (key == "apiVersion" || key == "kind" || key == "metadata") continue;
      if (key != "items") {
        d.UnknownField(root.key(i), std::initializer_list<std::string_view>{"apiVersion", "kind",
                                                                            "metadata", "items"});
        continue;
      }
      const Node& items = root.value(i);
      auto s = d.Field("items");
      d.ForEachItem(items, [&](const Node& item) {
        if (item.is_null()) return;
        if (!item.is_map()) {
          d.Error(item, "expected an object, got " + Decoder::Describe(item));
          ++result_.counts.rejected;
          return;
        }
        DecodeObject(d, item, item_version, item_kind);
      });
    }
  }

  // Finishes an object: namespace default, source, duplicate check. Returns true when it was added.
  template <class T>
  bool Add(Decoder& d, bool ok, api::ObjectMeta& meta, std::string_view kind, bool namespaced,
           const Origin& origin, std::vector<T>& out, T&& obj) {
    if (!ok) {
      ++result_.counts.rejected;
      return false;
    }
    if (namespaced && meta.namespace_.empty()) meta.namespace_ = default_ns_;
    meta.source = {file_sym_, origin.line};
    auto [it, inserted] = seen_.try_emplace(std::make_tuple(kind, meta.namespace_, meta.name),
                                            Origin{origin.file, origin.line, {}});
    if (!inserted) {
      std::string what =
          namespaced ? fmt::format("{} {}/{}", kind, in_.Str(meta.namespace_), in_.Str(meta.name))
                     : fmt::format("{} {}", kind, in_.Str(meta.name));
      Diags().Error(std::string(origin.file), origin.line, origin.path,
                    fmt::format("duplicate object: {} is already defined at {}:{}", what,
                                it->second.file, it->second.line));
      ++result_.counts.rejected;
      (void)d;
      return false;
    }
    out.push_back(std::move(obj));
    ++result_.counts.per_kind[std::string(kind)];
    return true;
  }

  // ---- priority admission: PriorityAdmission decides, these keep the counts ---------------------

  void AdmitPods() {
    auto& pods = result_.objects.pods;
    std::vector<api::Pod> kept;
    bool any_rejected = false;
    for (size_t i = 0; i < pods.size(); ++i) {
      api::Pod& p = pods[i];
      if (!admission_.Admit(pod_prio_[i], p.priority_class_name, p.priority, &p.preemption_policy,
                            "Pod", p.meta.namespace_, p.meta.name, Diags())) {
        if (!any_rejected) {
          kept.reserve(pods.size());
          for (size_t j = 0; j < i; ++j) kept.push_back(std::move(pods[j]));
          any_rejected = true;
        }
        ++result_.counts.rejected;
        --result_.counts.per_kind["Pod"];
        continue;
      }
      if (any_rejected) kept.push_back(std::move(p));
    }
    if (any_rejected) pods = std::move(kept);
  }

  void AdmitPodGroups() {
    auto& groups = result_.objects.pod_groups;
    std::vector<api::PodGroup> kept;
    kept.reserve(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      api::PodGroup& g = groups[i];
      int32_t priority = 0;
      bool has_class = !g.priority_class_name.empty() || admission_.has_default();
      if (!admission_.Admit(group_prio_[i], g.priority_class_name, priority, nullptr, "PodGroup",
                            g.meta.namespace_, g.meta.name, Diags())) {
        ++result_.counts.rejected;
        --result_.counts.per_kind["PodGroup"];
        continue;
      }
      if (has_class || group_prio_[i].prio.priority) g.priority = priority;
      kept.push_back(std::move(g));
    }
    groups = std::move(kept);
  }

  Interner& in_;
  LoadOptions opts_;
  LoadResult result_;
  Symbol file_sym_;
  Symbol default_ns_;
  // (kind, namespace, name) of every object added, for duplicate detection.
  absl::flat_hash_map<std::tuple<std::string_view, Symbol, Symbol>, Origin> seen_;
  std::vector<Admission> pod_prio_;         // parallel to objects.pods
  std::vector<Admission> controller_prio_;  // parallel to result_.controllers
  std::vector<Admission> group_prio_;       // parallel to objects.pod_groups
  api::resource::ResourceObjects dra_;      // resource.k8s.io objects, shared at Finish
  struct Rejected {
    Admission admission;
    Symbol class_name;
    std::string_view kind;
    Symbol ns, name;
  };
  std::vector<Rejected> rejected_;  // objects with decode errors, for the admission messages
  std::vector<Origin> pc_origin_;   // parallel to the input priority classes
  internal::PriorityAdmission admission_;
};

Loader::Loader(Interner& interner, LoadOptions opts)
    : impl_(std::make_unique<Impl>(interner, opts)) {}
Loader::~Loader() = default;
void Loader::AddPath(const std::string& path) {
  impl_->AddPath(path);
}
void Loader::AddString(std::string_view content, std::string_view filename, Format format) {
  impl_->AddString(content, filename, format);
}
LoadResult Loader::Finish() {
  return impl_->Finish();
}

LoadResult LoadPaths(std::span<const std::string> paths, Interner& interner,
                     const LoadOptions& opts) {
  Loader l(interner, opts);
  for (const auto& p : paths) l.AddPath(p);
  return l.Finish();
}

LoadResult LoadString(std::string_view content, std::string_view filename, Interner& interner,
                      const LoadOptions& opts, Format format) {
  Loader l(interner, opts);
  l.AddString(content, filename, format);
  return l.Finish();
}

}  // namespace corral::loader
