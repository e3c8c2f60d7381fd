#pragma once
// Internals of the scheduler_perf config reader (perf_config.h), shared by its three files:
// perf_config.cc decodes the file and selects workloads, perf_templates.cc renders and loads object
// templates, perf_ops.cc gives each op its meaning in a SimSpec. Not for other users.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/resource/types.h"
#include "corral/api/storage.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/sim/input/go_template.h"
#include "corral/sim/input/object_set.h"
#include "corral/sim/input/perf_config.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/spec.h"

namespace corral::sim::perf_detail {

using doc::Decoder;
using doc::Node;

// The most objects one op may create: 10,000,000 (as a scenario's op count). Every object lives in
// memory, a pod slot at about 1 KiB, so larger counts cannot be held; kube's own scheduler_perf
// workloads stay below 100,000.
inline constexpr int64_t kMaxObjects = 10'000'000;

std::string CountLimitReason(int64_t max);

struct ParamValue {
  bool is_int = true;
  bool is_bool = false;  // a YAML boolean (is_int false, s "true" or "false")
  int64_t i = 0;
  std::string s;
  const Node* complex = nullptr;  // a list or map value (is_int false, s empty)
};

// A YAML value as a template sees kube's JSON-decoded value: int, float64, string, bool, nil, a
// list or a map (perf_templates.cc).
TemplateValue NodeToTemplateValue(const doc::Node& n);

// A parameter as a template sees it: Go's int, string or bool, or a list or map.
inline TemplateValue ToTemplateValue(const ParamValue& p) {
  if (p.complex != nullptr) return NodeToTemplateValue(*p.complex);
  if (p.is_int) return TemplateValue{p.i};
  if (p.is_bool) return TemplateValue{p.s == "true"};
  return TemplateValue{p.s};
}

struct Selector {
  std::string name = "SchedulingThroughput";
  std::string bucket = "Average";
  bool expect_lower = false;
  bool set = false;
  std::vector<std::pair<std::string, std::string>> labels;  // thresholdMetricSelector.labels
};

// schedulerApiClientQPS and schedulerApiClientBurst of a test case or a workload (kube's *float32
// and *int: absent, or the value with its node for messages).
struct ApiLimitIn {
  std::optional<double> qps;
  std::optional<int64_t> burst;
  const Node* qps_node = nullptr;
  const Node* burst_node = nullptr;
  bool any() const { return qps.has_value() || burst.has_value(); }
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
  ApiLimitIn api_limit;  // overrides the test case's, field by field
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
  ApiLimitIn api_limit;
};

// A feature gate that kube's scheduler_perf sets but Corral's scheduler does not know, whose effect
// Corral states instead of modelling: the values it honours and why.
struct PerfOnlyGate {
  enum Honours : uint8_t { kAny, kFalse, kTrue };
  std::string_view name;
  Honours values;
  std::string_view effect;
  bool honours(bool value) const {
    return values == kAny || (values == kFalse && !value) || (values == kTrue && value);
  }
};
const PerfOnlyGate* FindPerfOnlyGate(std::string_view name);

// The scheduler's API client limit of one workload (perf_api_limit.cc): the workload's
// schedulerApiClientQPS/Burst over the test case's, field by field, over kube's harness default
// (5000 each) for a field neither sets; no limit when neither sets any. Values keep client-go's
// meaning (QPS 0 is 5, Burst 0 is 10, a negative QPS turns the limiter off); what Corral cannot run
// is an error at the field (a negative burst; API calls of features the limit does not model).
// Sets spec.api_client and says what it did in spec.notes.
void ResolveApiLimit(const std::string& path, const TestCaseIn& tc, const WorkloadIn& w,
                     SimSpec& spec, Diagnostics& diags);

// The default objects of scheduler_perf (util.go makeBaseNode / makeBasePod with
// testutils.MakePodSpec), as YAML.
extern const std::string_view kDefaultNode;
extern const std::string_view kDefaultPod;

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
      priority;  // a Pod's or PodGroup's spec.priority given without a class (kube's test
                 // apiserver runs without the Priority admission plugin and keeps it)
};

// Go's path/filepath.Match for names without separators: `*` any run of characters but '/', `?` one
// such character, `[...]` a class (ranges, `^` negation), `\\` escapes. False for a malformed
// pattern (Go returns ErrBadPattern then; the caller checks WellFormedGlob first).
bool GlobMatch(std::string_view pattern, std::string_view name);
bool WellFormedGlob(std::string_view pattern);

// The ResourceSlice kube's createResourceDriver op publishes for one node (scheduler_perf's
// resourceSlice(driverName, nodeName, capacity)), as resource.k8s.io/v1 YAML: pool and slice named
// after the node, `capacity` devices "instance-<i>" with its attributes and memory capacity. With
// `binding_conditions` every device also has bindsToNode, binding condition DeviceAttached and
// binding failure condition AttachmentFailed (kube's slice carries them and the API server drops
// them unless DRADeviceBindingConditions is on; see CreateResourceDriver).
std::string DriverSliceYaml(std::string_view driver, std::string_view node, int64_t capacity,
                            bool binding_conditions = false);

// kube's createPods signatureBatchSize: pod `index` of a template is labelled
// kSignatureLabel=SignatureLabelValue(index, batch), "signature-label-<index / batch>", so that
// `batch` consecutive pods share a signature for opportunistic batching.
inline constexpr std::string_view kSignatureLabel = "signature";
std::string SignatureLabelValue(int64_t index, int64_t batch);

// Loads one rendered object; a Pod's or PodGroup's spec.priority without a priorityClassName is
// kept aside (kube's test apiserver keeps it) and generateName-only objects get a placeholder name.
Result<LoadedObject> LoadRendered(const std::string& text, const std::string& file, Interner& in);

// Object `index` of `count` rendered: `env` gets Index and Count; an error names the template.
Result<std::string> RenderAt(const TemplateFile& file, TemplateData& env, int64_t index,
                             int64_t count);
// Renders object `index` of `count` of a node template (.Index and .Count set in `env`) and loads
// the Node it describes; an error when it renders anything else.
Result<api::Node> RenderNode(const TemplateFile& file, TemplateData& env, int64_t index,
                             int64_t count, Interner& in);

}  // namespace corral::sim::perf_detail

namespace corral::sim {

struct PerfConfig::Impl {
  std::string path, dir;
  std::string text;
  doc::Stream stream;
  std::vector<perf_detail::TestCaseIn> cases;
};

}  // namespace corral::sim

namespace corral::sim::perf_detail {

// Compiles one workload's ops into a SimSpec.
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
  // The template data of one op: its templateParams (a `$name` value is the workload parameter,
  // `$name|default` falls back to the default; an unset `$name` is an error) with Index and Count.
  TemplateData Env(const Node& op, int64_t index, int64_t count);
  void Err(const Node& at, std::string_view field, std::string msg) {
    if (field.empty()) {
      d_.Error(at, std::move(msg));
    } else {
      d_.FieldError(at, field, std::move(msg));
    }
  }
  void CheckKeys(const Node& op, std::initializer_list<std::string_view> allowed);

  // The ops and fields Corral refuses (updateAny but of Nodes and of Pods' resize, createPods with
  // nominatedNodeName): true when `op` is one, with
  // `unsupported` set or, for malformed fields, an error reported and `ok` cleared.
  bool Refuse(const Node& op, const std::string& code, bool& ok);
  bool CreateNodes(const Node& op, size_t idx);
  bool CreatePods(const Node& op, size_t idx, const std::string& ns_override);
  bool CreateAny(const Node& op, size_t idx);
  // updateAny of Nodes: each rendered node replaces the live node of its name, at updatePerSecond.
  bool UpdateNodes(const Node& op);
  // updateAny with subresources [resize] of Pods (perf_resize_ops.cc).
  bool UpdatePods(const Node& op);
  // updateAny of Pods without subresources (perf_pod_update.cc): each rendered pod replaces the
  // live pod of its name as kube's API server takes a pod update, at updatePerSecond.
  bool UpdatePodObjects(const Node& op);
  // The updateAny ops (without subresources) whose template renders a Pod, as Refuse found them.
  std::set<const Node*> pod_updates_;
  // The start every updateAny path shares: the op's count, then the namespace rule of the kind (a
  // Pod's op must name its namespace, which becomes the Op's pod_namespace; a Node's must not),
  // its template and environment, and an Op of `kind` with count and rate. nullopt with `ok` true
  // when the count is 0 (nothing to update), with `ok` false on an error (reported).
  struct UpdateStart {
    std::shared_ptr<TemplateFile> file;
    std::shared_ptr<TemplateData> env;
    Op op;
  };
  enum class Scope : uint8_t { kNamespaced, kRoot };
  std::optional<UpdateStart> StartUpdate(const Node& op, Op::Kind kind, Scope scope, bool& ok);
  bool Churn(const Node& op, size_t idx);
  // Renders and loads a pod template; returns its index in spec.pod_templates (kNone after an
  // error). `signature_batch` > 0 labels pod i signature=SignatureLabelValue(i, signature_batch).
  uint32_t AddPodTemplate(const std::shared_ptr<TemplateFile>& t, const TemplateData& params,
                          const std::string& ns, int64_t count, const Node& at,
                          int64_t signature_batch = 0);
  // Adds namespace `ns` once; `labels`, when given and not empty, replace its labels.
  void AddNamespace(const std::string& ns, const api::LabelSet* labels = nullptr);
  bool CreateNamespaces(const Node& op);
  // Renders the op's templatePath once per index 0..count-1 (with {Index, Count} and
  // templateParams) in the op's namespace, and hands each loaded object, which must be one object
  // of `kind`, to `take` with the namespace; `take` returns false when the object is not one
  // `kind` it can keep. False after reporting the first error.
  bool RenderEach(const Node& op, std::string_view kind,
                  const std::function<bool(LoadedObject&, Symbol)>& take);
  bool CreatePodGroups(const Node& op);
  // The spec.resourceClaims of a PodGroup rendered by createPodGroups, in namespace `ns`, join the
  // run's DRA objects; a claim from a template gets its generated claim when the template exists,
  // as kube's resourceclaim controller makes it (perf_workload_claims.cc).
  void TakePodGroupClaims(const LoadedObject& obj, Symbol ns);
  bool CreateCompositePodGroups(const Node& op);
  bool WaitForPodGroups(const Node& op);
  // DRA ops (perf_dra_ops.cc).
  bool CreateResourceDriver(const Node& op);
  bool CreateResourceClaims(const Node& op);
  bool AllocResourceClaims(const Node& op);
  // updateDeviceConditions and checkPodScheduled (DRA device binding conditions).
  bool UpdateDeviceConditions(const Node& op);
  bool CheckPodScheduled(const Node& op);
  // Moves the resource.k8s.io and storage objects of `from` into the run's objects, namespaced
  // objects into `ns` when it is given. Returns how many objects moved.
  size_t TakeDraAndStorage(api::ObjectSet& from, const std::optional<std::string>& ns);
  // The nodes the ops before this point create, rendered (a generated name stays the template's
  // placeholder; `generated` then names the pool's prefix).
  struct PlannedNode {
    api::Node node;
    std::string generated_prefix;  // non-empty: the name is generated at run time
  };
  bool PlannedNodes(const Node& at, std::vector<PlannedNode>& out);
  // Volume ops (perf_volume_ops.cc). createPods with persistentVolumeTemplatePath and
  // persistentVolumeClaimTemplatePath: per pod i a bound pair, claim "pvc-<i>" and volume
  // "<namespace>-vol-<i>", the pod's volumes replaced by one that names the claim.
  bool AddPersistentVolumes(const Node& op, const std::string& ns, int64_t count, uint32_t tmpl);
  // nodeAllocatableStrategy's csiNodeAllocatable and migratedPlugins: a CSINode for each of the
  // last `count` planned nodes.
  bool AddCsiNodes(const Node& strategy, int64_t count);
  // Publishes the DRA and storage objects collected by the ops into the spec.
  void Finish();

  const PerfConfig::Impl& im_;
  const TestCaseIn& tc_;
  const WorkloadIn& w_;
  Interner& in_;
  Diagnostics& diags_;
  SimSpec& spec_;
  Decoder d_;
  std::string tc_path_;
  std::set<const Node*> reported_params_;  // templateParams values already reported unset
  std::map<std::string, std::shared_ptr<TemplateFile>> templates_;
  std::set<std::string> namespaces_;
  std::shared_ptr<api::resource::ResourceObjects> dra_;
  std::shared_ptr<api::StorageObjects> storage_;
};

}  // namespace corral::sim::perf_detail
