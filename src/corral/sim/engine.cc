#include "corral/sim/engine.h"

#include <algorithm>
#include <array>
#include <map>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/api/well_known.h"
#include "corral/core/rng.h"
#include "corral/scheduler/batch.h"
#include "corral/sim/event_queue.h"

namespace corral::sim {

std::string FormatClock(int64_t ns) {
  int64_t ms = ns / 1'000'000;
  int64_t h = ms / 3'600'000, m = (ms / 60'000) % 60, s = (ms / 1000) % 60, r = ms % 1000;
  return fmt::format("{:02}:{:02}:{:02}.{:03}", h, m, s, r);
}

void TextEventLog::Event(int64_t t_ns, std::string_view kind, std::string_view detail) {
  line_.clear();
  fmt::format_to(std::back_inserter(line_), "{} {} {}", FormatClock(t_ns), kind, detail);
  Line(line_);
}

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kFlushIntervalNs = 30 * kSecond;
constexpr int64_t kStallNs = 6 * 60 * kSecond;
constexpr size_t kMaxSamples = 1000;

enum class PodState : uint8_t { kFree, kPending, kBinding, kRunning };

struct PodSlot {
  api::Pod pod;
  std::array<int64_t, kMaxTracked> req{};
  int64_t arrival_ns = 0;
  int64_t bound_ns = 0;
  int64_t duration_ns = kForeverNs;
  uint64_t fail_epoch = UINT64_MAX;
  uint32_t workload = kNone;
  uint32_t group = kNone;
  uint32_t node = kNone;
  uint32_t pos_in_node = 0;
  uint32_t tmpl = 0;
  uint32_t gen = 0;
  PodState state = PodState::kFree;
  bool terminating = false;  // a preemption victim waiting for its grace period
  bool attempted = false;
  bool failed = false;
  bool measured = false;
  bool bound_once = false;
};

struct NodeSlot {
  api::Node node;
  std::array<int64_t, kMaxTracked> alloc{};
  std::array<int64_t, kMaxTracked> req{};
  std::vector<uint32_t> pods;
  uint64_t serial = 0;
  uint32_t pool = kNone;
  bool alive = false;
};

struct GroupSlot {
  uint32_t workload = kNone;
  int32_t size = 0;
  int32_t bound = 0;
  int32_t finished = 0;
  int32_t next_pod = 0;  // pods are named <group>-<k>
  int64_t arrival_ns = 0;
  Symbol name;
  std::vector<uint32_t> members;  // live pod slots
  bool complete = false;
  bool ever_complete = false;
  bool alive = false;
};

struct WorkloadState {
  Rng rng{1};
  int64_t arrivals = 0;
  size_t cursor = 0;  // explicit arrivals
  bool active = false;
  bool stopped = false;
  bool exhausted = false;  // no more arrivals will come
  int64_t pods_created = 0;
  int64_t pods_bound_once = 0;
  int64_t target_pods = -1;  // for render index/count
  WorkloadStats stats;
};

struct Decision {
  enum class Kind : uint8_t { kScheduled, kUnschedulable, kPreempted };
  Kind kind = Kind::kScheduled;
  uint32_t slot = 0;
  Symbol node;
  std::string message;
  std::vector<uint32_t> victims;  // kPreempted
};

struct ChurnState {
  const ChurnSpec* spec = nullptr;
  std::vector<std::vector<uint32_t>> ring;  // per template: node slots or pod slots (recreate)
  std::vector<std::vector<uint32_t>> ring_gen;
  size_t next = 0;
  bool active = false;
};

struct Deleter {
  std::vector<std::pair<uint32_t, uint32_t>> pods;  // (slot, gen)
  size_t next = 0;
  int64_t interval_ns = 0;
};

bool IsRealEvent(EventKind k) {
  switch (k) {
    case EventKind::kFlushTick:
    case EventKind::kSampleTick:
    case EventKind::kCollectorTick:
    case EventKind::kRetryTick:
    case EventKind::kPermitTimer:
      return false;
    default:
      return true;
  }
}

int64_t ResourceValue(const api::Quantity& q, bool milli) {
  return milli ? q.MilliValue() : q.Value();
}

}  // namespace

class Engine::Impl : public scheduler::SchedulerObserver {
 public:
  Impl(const SimSpec& spec, Interner& in, scheduler::Scheduler& sched, ManualClock& clock,
       EngineOptions opts)
      : spec_(spec),
        in_(in),
        sched_(sched),
        clock_(clock),
        opts_(std::move(opts)),
        rng_(spec.seed) {
    start_ = clock_.Now();
  }

  Result<RunResult> Run();
  const PerfWindow& perf() const { return perf_; }

  // ---- SchedulerObserver ----
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    decisions_.push_back({Decision::Kind::kScheduled, SlotOf(pod), node, {}, {}});
  }
  void OnUnschedulable(const api::Pod& pod, const std::string& message) override {
    decisions_.push_back({Decision::Kind::kUnschedulable,
                          SlotOf(pod),
                          Symbol{},
                          opts_.log != nullptr ? message : std::string(),
                          {}});
  }
  void OnPreempted(const scheduler::PreemptionRecord& rec) override {
    Decision d{Decision::Kind::kPreempted, SlotOf(*rec.preemptor), rec.node, {}, {}};
    for (const auto& v : rec.victims) d.victims.push_back(SlotOf(*v.pod));
    decisions_.push_back(std::move(d));
  }

 private:
  // ---- setup ----
  void SetupResources();
  void TrackNode(NodeSlot& n);

  // ---- time ----
  void Push(int64_t t, EventKind k, uint32_t a = 0, uint32_t b = 0) {
    if (IsRealEvent(k)) ++real_pending_;
    events_.Push(t, k, a, b);
  }
  void SetNow(int64_t t) {
    now_ = t;
    clock_.Set(start_ + Duration(t));
  }
  void Handle(const Event& e);

  // ---- slots ----
  PodSlot& Pod(uint32_t i) { return pod_chunks_[i >> kChunkBits][i & (kChunkSize - 1)]; }
  uint32_t AllocPod();
  void FreePod(uint32_t i);
  uint32_t SlotOf(const api::Pod& p) const {
    auto it = slot_of_.find(&p);
    CORRAL_CHECK_MSG(it != slot_of_.end(), "scheduler reported a pod the simulator does not own");
    return it->second;
  }

  // ---- objects ----
  void CreateNode(uint32_t pool);
  void RemoveNode(uint32_t idx, std::string_view reason);
  void SetCordon(uint32_t idx, bool cordon);
  void EvictAll(uint32_t idx, std::string_view reason);
  std::vector<uint32_t> PickNodes(uint32_t pool, int64_t count, bool newest_first, int want);

  void Arrive(uint32_t w);
  void ScheduleNextArrival(uint32_t w);
  uint32_t CreatePod(uint32_t w, uint32_t group, uint32_t tmpl, int64_t duration_ns, Symbol name);
  void Place(uint32_t slot, uint32_t node);
  void Unplace(uint32_t slot);
  void StartRunning(uint32_t slot);
  void PodDone(uint32_t slot, uint32_t gen);
  void Evict(uint32_t slot, std::string_view reason, bool recreate);
  void AddPodGroup(uint32_t group, const Workload& wk, const api::Pod& tmpl);
  void RemovePodGroup(uint32_t group);
  void FreeGroup(uint32_t group);
  void ApplyDecision(const Decision& d, int64_t cost_ns);

  // ---- program ----
  void AdvanceProgram();
  void ExecuteOp(const Op& op);
  bool OpDone(const Op& op);
  bool BarrierMet(const Op& op);
  void StartCollecting(bool all);
  void StopCollecting();
  void ChurnTick(uint32_t c);
  void DeleteTick(uint32_t d);

  // ---- scheduler ----
  void StepScheduler();
  void ArmRetry();

  // ---- metrics ----
  void TakeSample();
  void Finish(RunResult& r);
  // Feeds the whole-run throughput collector its 1 s ticks up to `t` (lazily, at each binding).
  void AdvanceOverall(int64_t t) {
    while (next_overall_tick_ <= t) {
      overall_.Tick(next_overall_tick_, res_.pods_scheduled);
      next_overall_tick_ += kSecond;
    }
  }
  void Log(std::string_view what, std::string_view detail) {
    if (opts_.log != nullptr) opts_.log->Event(now_, what, detail);
  }
  std::string PodKey(const api::Pod& p) const {
    return fmt::format("{}/{}", in_.Str(p.meta.namespace_), in_.Str(p.meta.name));
  }
  Symbol NextName(const std::string& prefix) {
    uint64_t& c = name_counters_[prefix];
    name_buf_.clear();
    fmt::format_to(std::back_inserter(name_buf_), "{}{}", prefix, c++);
    return in_.Intern(name_buf_);
  }
  void Fail(std::string msg) {
    if (error_.empty()) error_ = std::move(msg);
  }

  static constexpr int kChunkBits = 10;
  static constexpr uint32_t kChunkSize = 1U << kChunkBits;

  const SimSpec& spec_;
  Interner& in_;
  scheduler::Scheduler& sched_;
  ManualClock& clock_;
  EngineOptions opts_;
  Rng rng_;  // binding latency, label rules
  TimePoint start_;
  int64_t now_ = 0;
  EventQueue events_;
  int64_t real_pending_ = 0;

  // Pods.
  std::vector<std::unique_ptr<PodSlot[]>> pod_chunks_;
  uint32_t pod_slots_ = 0;
  std::vector<uint32_t> free_pods_;
  absl::flat_hash_map<const api::Pod*, uint32_t> slot_of_;
  absl::flat_hash_map<std::string, uint64_t> name_counters_;
  std::string name_buf_;

  // Nodes.
  std::vector<std::unique_ptr<NodeSlot>> nodes_;
  std::vector<uint32_t> free_nodes_;
  absl::flat_hash_map<Symbol, uint32_t> node_by_name_;
  std::vector<int64_t> pool_next_index_;
  uint64_t node_serial_ = 0;
  int64_t nodes_alive_ = 0, nodes_schedulable_ = 0, nodes_max_ = 0;

  // Groups (jobs, gangs).
  std::vector<GroupSlot> groups_;
  std::vector<uint32_t> free_groups_;
  // Cluster objects handed to the scheduler: the spec's, plus one PodGroup per live gang.
  api::ObjectSet objects_;
  bool restarting_gang_ = false;
  bool timer_armed_ = false;
  int64_t timer_at_ = 0;

  std::vector<WorkloadState> wl_;
  absl::flat_hash_map<Symbol, int32_t> priority_override_;

  // Resources.
  std::vector<ResourceTrack> tracked_;
  std::array<int64_t, kMaxTracked> alloc_total_{};
  std::array<int64_t, kMaxTracked> req_total_{};
  size_t pods_res_ = kMaxTracked;  // index of "pods" in tracked_

  // Scheduler driving.
  std::vector<Decision> decisions_;
  bool sched_idle_ = false;
  uint64_t epoch_ = 1;
  bool retry_armed_ = false;
  int64_t retry_backoff_ns_ = kSecond;
  int64_t last_progress_ns_ = 0;
  int64_t sched_wall_ns_ = 0;
  int64_t cycles_ = 0;  // ScheduleOne calls that ran a cycle (a pod's, or a gang's workload cycle)

  // Program.
  size_t pc_ = 0;
  bool op_started_ = false;
  bool op_wake_armed_ = false;
  bool program_done_ = false;
  int64_t sleep_until_ = 0;
  uint64_t program_epoch_ = 0;
  std::vector<ChurnState> churns_;
  std::vector<Deleter> deleters_;
  size_t op_deleter_ = SIZE_MAX;

  // Metrics.
  RunResult res_;
  PerfWindow perf_;
  bool window_all_ = false;
  int64_t sample_interval_ = 0;
  int64_t next_sample_ = 0;
  bool sample_due_ = false;
  int64_t pending_pods_ = 0, running_pods_ = 0, binding_pods_ = 0;
  ThroughputCollector overall_;
  int64_t next_overall_tick_ = kSecond;

  std::string error_;
};

// ---------------------------------------------------------------------------------------------------------
// Setup

void Engine::Impl::SetupResources() {
  // cpu, memory, extended resources (sorted by name, up to the limit), pods.
  std::map<std::string, Symbol> extended;
  auto scan = [&](const api::Node& n) {
    for (const auto& [name, q] : n.allocatable) {
      std::string_view s = in_.Str(name);
      if (s.find('/') != std::string_view::npos && !s.starts_with("hugepages-"))
        extended.emplace(s, name);
    }
  };
  for (const auto& n : spec_.initial_nodes) scan(n);
  for (const auto& p : spec_.pools) {
    if (p.render) {
      auto probe = p.render(0);
      if (probe.ok()) scan(*probe);
    } else {
      scan(p.tmpl);
    }
  }
  tracked_.push_back({"cpu", api::wk::kCpu, true, "cores", 1e-3});
  tracked_.push_back({"memory", api::wk::kMemory, false, "GiB", 1.0 / (1024.0 * 1024 * 1024)});
  for (const auto& [name, sym] : extended) {
    if (tracked_.size() + 1 >= kMaxTracked) break;
    tracked_.push_back({name, sym, false, "", 1});
  }
  pods_res_ = tracked_.size();
  tracked_.push_back({"pods", api::wk::kPods, false, "pods", 1});
  for (const auto& t : tracked_) {
    if (t.sym != api::wk::kPods && res_.heat_resources.size() < 3)
      res_.heat_resources.push_back(t.name);
  }
}

void Engine::Impl::TrackNode(NodeSlot& n) {
  for (size_t r = 0; r < tracked_.size(); ++r) {
    const api::Quantity* q = api::FindResource(n.node.allocatable, tracked_[r].sym);
    n.alloc[r] = q == nullptr ? 0 : ResourceValue(*q, tracked_[r].milli);
    n.req[r] = 0;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Slots

uint32_t Engine::Impl::AllocPod() {
  if (!free_pods_.empty()) {
    uint32_t i = free_pods_.back();
    free_pods_.pop_back();
    return i;
  }
  uint32_t i = pod_slots_++;
  if ((i >> kChunkBits) >= pod_chunks_.size())
    pod_chunks_.push_back(std::make_unique<PodSlot[]>(kChunkSize));
  slot_of_[&Pod(i).pod] = i;
  return i;
}

void Engine::Impl::FreePod(uint32_t i) {
  PodSlot& s = Pod(i);
  if (s.group != kNone) {
    auto& m = groups_[s.group].members;
    if (auto it = std::find(m.begin(), m.end(), i); it != m.end()) m.erase(it);
  }
  s.state = PodState::kFree;
  s.terminating = false;
  ++s.gen;
  s.node = kNone;
  s.group = kNone;
  free_pods_.push_back(i);
}

// ---------------------------------------------------------------------------------------------------------
// Nodes

void Engine::Impl::CreateNode(uint32_t pool_idx) {
  const NodePool& pool = spec_.pools[pool_idx];
  int64_t index = pool_next_index_[pool_idx]++;
  uint32_t idx;
  if (!free_nodes_.empty()) {
    idx = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    idx = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(std::make_unique<NodeSlot>());
  }
  NodeSlot& ns = *nodes_[idx];
  if (pool.render) {
    auto r = pool.render(index);
    if (!r.ok()) {
      Fail(r.error().message);
      free_nodes_.push_back(idx);
      return;
    }
    ns.node = std::move(r).value();
  } else {
    ns.node = pool.tmpl;
  }
  api::Node& n = ns.node;
  if (!pool.render || n.meta.name.empty()) n.meta.name = NextName(pool.name_prefix);
  if (node_by_name_.contains(n.meta.name)) {
    Fail(fmt::format(
        "node pool {:?}: node name {:?} is already in use (a template that renders a fixed "
        "name can only be created once)",
        pool.name, in_.Str(n.meta.name)));
    free_nodes_.push_back(idx);
    return;
  }
  if (!n.meta.labels.Has(api::wk::kHostnameLabel))
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
  if (!pool.zones.empty()) {
    const size_t nz = pool.zones.size();
    Symbol zone = pool.zones[static_cast<size_t>(index) % nz];
    n.meta.labels.Set(api::wk::kZoneLabel, zone);
    if (pool.racks_per_zone > 0) {
      int64_t rack = (index / static_cast<int64_t>(nz)) % pool.racks_per_zone;
      n.meta.labels.Set(in_.Intern("topology.corral.dev/rack"),
                        in_.Intern(fmt::format("{}-rack-{}", in_.Str(zone), rack)));
    }
  }
  for (const auto& rule : pool.label_rules) {
    switch (rule.mode) {
      case LabelRule::Mode::kCycle:
        if (!rule.values.empty())
          n.meta.labels.Set(rule.key, rule.values[static_cast<size_t>(index) % rule.values.size()]);
        break;
      case LabelRule::Mode::kRandom:
        if (!rule.values.empty())
          n.meta.labels.Set(rule.key, rule.values[rng_.Uniform(rule.values.size())]);
        break;
      case LabelRule::Mode::kUnique:
        n.meta.labels.Set(rule.key, in_.Intern(fmt::format("{}{}", rule.prefix, index)));
        break;
    }
  }
  ns.pool = pool_idx;
  ns.serial = node_serial_++;
  ns.alive = true;
  ns.pods.clear();
  TrackNode(ns);
  for (size_t r = 0; r < tracked_.size(); ++r) alloc_total_[r] += ns.alloc[r];
  node_by_name_[n.meta.name] = idx;
  ++nodes_alive_;
  if (!n.unschedulable) ++nodes_schedulable_;
  nodes_max_ = std::max(nodes_max_, nodes_alive_);
  if (res_.slot_names.size() <= idx) {
    res_.slot_names.resize(idx + 1);
    res_.slot_pools.resize(idx + 1);
  }
  res_.slot_names[idx] = std::string(in_.Str(n.meta.name));
  res_.slot_pools[idx] = pool.name;
  sched_.AddNode(&n);
  ++epoch_;
  sched_idle_ = false;
  if (opts_.log != nullptr) {
    std::string detail = fmt::format("{} pool={}", in_.Str(n.meta.name), pool.name);
    if (const Symbol* z = n.meta.labels.Find(api::wk::kZoneLabel))
      detail += fmt::format(" zone={}", in_.Str(*z));
    Log("node-add", detail);
  }
}

void Engine::Impl::EvictAll(uint32_t idx, std::string_view reason) {
  NodeSlot& ns = *nodes_[idx];
  // Oldest first: evict in the order the pods were placed, for a stable log.
  std::vector<uint32_t> pods = ns.pods;
  std::sort(pods.begin(), pods.end(), [&](uint32_t a, uint32_t b) {
    const PodSlot& pa = Pod(a);
    const PodSlot& pb = Pod(b);
    return pa.bound_ns != pb.bound_ns ? pa.bound_ns < pb.bound_ns : a < b;
  });
  for (uint32_t p : pods) Evict(p, reason, true);
}

void Engine::Impl::RemoveNode(uint32_t idx, std::string_view reason) {
  NodeSlot& ns = *nodes_[idx];
  if (!ns.alive) return;
  EvictAll(idx, reason);
  for (size_t r = 0; r < tracked_.size(); ++r) alloc_total_[r] -= ns.alloc[r];
  --nodes_alive_;
  if (!ns.node.unschedulable) --nodes_schedulable_;
  ns.alive = false;
  Symbol name = ns.node.meta.name;
  node_by_name_.erase(name);
  sched_.RemoveNode(name);
  free_nodes_.push_back(idx);
  ++epoch_;
  sched_idle_ = false;
  Log("node-remove", fmt::format("{} reason={}", in_.Str(name), reason));
}

void Engine::Impl::SetCordon(uint32_t idx, bool cordon) {
  NodeSlot& ns = *nodes_[idx];
  if (!ns.alive || ns.node.unschedulable == cordon) return;
  ns.node.unschedulable = cordon;
  nodes_schedulable_ += cordon ? -1 : 1;
  sched_.AddNode(&ns.node);  // an update: the cache replaces the node and fires a node event
  ++epoch_;
  sched_idle_ = false;
  Log(cordon ? "node-cordon" : "node-uncordon", in_.Str(ns.node.meta.name));
}

// want: 0 = any alive, 1 = schedulable, 2 = cordoned.
std::vector<uint32_t> Engine::Impl::PickNodes(uint32_t pool, int64_t count, bool newest_first,
                                              int want) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const NodeSlot& ns = *nodes_[i];
    if (!ns.alive || (pool != kNone && ns.pool != pool)) continue;
    if (want == 1 && ns.node.unschedulable) continue;
    if (want == 2 && !ns.node.unschedulable) continue;
    out.push_back(i);
  }
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) {
    return newest_first ? nodes_[a]->serial > nodes_[b]->serial
                        : nodes_[a]->serial < nodes_[b]->serial;
  });
  if (count >= 0 && static_cast<size_t>(count) < out.size()) out.resize(static_cast<size_t>(count));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Pods

uint32_t Engine::Impl::CreatePod(uint32_t w, uint32_t group, uint32_t tmpl_idx, int64_t duration_ns,
                                 Symbol name) {
  const PodTemplate& tmpl = spec_.pod_templates[tmpl_idx];
  WorkloadState& ws = wl_[w];
  const api::Pod* src = &tmpl.pod;
  if (tmpl.render) {
    auto r = tmpl.render(ws.pods_created, ws.target_pods);
    if (!r.ok()) {
      Fail(r.error().message);
      return kNone;
    }
    src = *r;
  }
  uint32_t i = AllocPod();
  PodSlot& s = Pod(i);
  s.pod = *src;
  if (!name.empty()) {
    s.pod.meta.name = name;
  } else if (group != kNone) {
    name_buf_.clear();
    fmt::format_to(std::back_inserter(name_buf_), "{}-{}", in_.Str(groups_[group].name),
                   groups_[group].next_pod++);
    s.pod.meta.name = in_.Intern(name_buf_);
  } else if (!(tmpl.render && tmpl.keep_rendered_name)) {
    s.pod.meta.name = NextName(tmpl.name_prefix);
  }
  if (!priority_override_.empty() && !s.pod.priority_class_name.empty()) {
    if (auto it = priority_override_.find(s.pod.priority_class_name);
        it != priority_override_.end()) {
      s.pod.priority = it->second;
    }
  }
  if (group != kNone && spec_.workloads[w].kind == WorkloadKind::kGang) {
    s.pod.scheduling_group = api::PodSchedulingGroup{groups_[group].name};
  }
  // Requests of the tracked resources: max(sum of containers, each init container) + overhead.
  for (size_t r = 0; r < tracked_.size(); ++r) {
    if (r == pods_res_) {
      s.req[r] = 1;
      continue;
    }
    const Symbol sym = tracked_[r].sym;
    const bool milli = tracked_[r].milli;
    int64_t sum = 0, init_max = 0;
    for (const auto& c : s.pod.containers) {
      if (const api::Quantity* q = api::FindResource(c.resources.requests, sym))
        sum += ResourceValue(*q, milli);
    }
    for (const auto& c : s.pod.init_containers) {
      if (const api::Quantity* q = api::FindResource(c.resources.requests, sym)) {
        init_max = std::max(init_max, ResourceValue(*q, milli));
      }
    }
    int64_t v = std::max(sum, init_max);
    if (const api::Quantity* q = api::FindResource(s.pod.overhead, sym))
      v += ResourceValue(*q, milli);
    s.req[r] = v;
  }
  s.arrival_ns = now_;
  s.bound_ns = 0;
  s.duration_ns = duration_ns;
  s.fail_epoch = UINT64_MAX;
  s.workload = w;
  s.group = group;
  s.node = kNone;
  s.tmpl = tmpl_idx;
  if (group != kNone) groups_[group].members.push_back(i);
  s.attempted = false;
  s.failed = false;
  s.bound_once = false;
  s.measured = spec_.workloads[w].collect_metrics || (window_all_ && perf_.collector.running());
  if (s.measured) ++perf_.measured_pods;
  ++ws.pods_created;
  ++ws.stats.pods_arrived;
  ++res_.pods_arrived;
  ++epoch_;
  sched_idle_ = false;
  Log("arrive", fmt::format("{} workload={}", PodKey(s.pod), spec_.workloads[w].name));
  if (s.pod.IsBound()) {
    auto it = node_by_name_.find(s.pod.node_name);
    s.state = PodState::kBinding;
    ++binding_pods_;
    sched_.AddPod(&s.pod);
    if (it != node_by_name_.end()) Place(i, it->second);
    s.bound_once = true;
    ++ws.pods_bound_once;
    StartRunning(i);
    return i;
  }
  s.state = PodState::kPending;
  ++pending_pods_;
  if (!sched_.AddPod(&s.pod)) {
    // No profile serves its schedulerName: kube leaves it to another scheduler, and so does the
    // simulator.
    --pending_pods_;
    ++res_.pods_ignored;
    Log("ignored", fmt::format("{} schedulerName={} (no profile)", PodKey(s.pod),
                               in_.Str(s.pod.scheduler_name)));
    FreePod(i);
    return kNone;
  }
  return i;
}

void Engine::Impl::Place(uint32_t slot, uint32_t node) {
  PodSlot& s = Pod(slot);
  NodeSlot& ns = *nodes_[node];
  s.node = node;
  s.pos_in_node = static_cast<uint32_t>(ns.pods.size());
  ns.pods.push_back(slot);
  for (size_t r = 0; r < tracked_.size(); ++r) {
    ns.req[r] += s.req[r];
    req_total_[r] += s.req[r];
  }
}

void Engine::Impl::Unplace(uint32_t slot) {
  PodSlot& s = Pod(slot);
  if (s.node == kNone) return;
  NodeSlot& ns = *nodes_[s.node];
  uint32_t last = ns.pods.back();
  ns.pods[s.pos_in_node] = last;
  Pod(last).pos_in_node = s.pos_in_node;
  ns.pods.pop_back();
  for (size_t r = 0; r < tracked_.size(); ++r) {
    ns.req[r] -= s.req[r];
    req_total_[r] -= s.req[r];
  }
  s.node = kNone;
}

void Engine::Impl::StartRunning(uint32_t slot) {
  PodSlot& s = Pod(slot);
  if (s.state == PodState::kBinding) --binding_pods_;
  s.state = PodState::kRunning;
  s.bound_ns = now_;
  ++running_pods_;
  const int64_t wait = now_ - s.arrival_ns;
  res_.latency.Add(wait);
  WorkloadState& ws = wl_[s.workload];
  ws.stats.latency.Add(wait);
  if (s.group != kNone) {
    GroupSlot& g = groups_[s.group];
    ++g.bound;
    if (!g.complete && g.bound >= g.size) {
      g.complete = true;
      const bool first = !g.ever_complete;
      g.ever_complete = true;
      const int64_t gwait = now_ - g.arrival_ns;
      ws.stats.group_wait.Add(gwait);
      if (first) ++ws.stats.groups_complete;
      if (spec_.workloads[s.workload].kind == WorkloadKind::kGang) {
        res_.gang_wait.Add(gwait);
        if (first) ++res_.gangs_complete;
        if (res_.gang_waits.size() < 100000) res_.gang_waits.emplace_back(g.arrival_ns, gwait);
        Log("gang-ready", fmt::format("{}/{} size={} wait={}", in_.Str(s.pod.meta.namespace_),
                                      in_.Str(g.name), g.size, FormatGoDuration(gwait)));
      }
    }
  }
  if (s.duration_ns != kForeverNs) {
    int64_t end = s.duration_ns > kForeverNs - now_ ? kForeverNs : now_ + s.duration_ns;
    if (end != kForeverNs) Push(end, EventKind::kPodDone, slot, s.gen);
  }
}

void Engine::Impl::PodDone(uint32_t slot, uint32_t gen) {
  PodSlot& s = Pod(slot);
  if (s.gen != gen || s.state != PodState::kRunning) return;
  Log("complete", fmt::format("{} node={}", PodKey(s.pod),
                              s.node == kNone ? std::string_view("-")
                                              : in_.Str(nodes_[s.node]->node.meta.name)));
  sched_.DeletePod(&s.pod);
  Unplace(slot);
  --running_pods_;
  ++res_.pods_completed;
  ++wl_[s.workload].stats.pods_completed;
  if (s.group != kNone) {
    GroupSlot& g = groups_[s.group];
    ++g.finished;
    if (g.finished >= g.size) FreeGroup(s.group);
  }
  FreePod(slot);
  ++epoch_;
  sched_idle_ = false;
}

void Engine::Impl::Evict(uint32_t slot, std::string_view reason, bool recreate) {
  PodSlot& s = Pod(slot);
  if (s.state == PodState::kFree) return;
  const uint32_t w = s.workload, group = s.group, tmpl = s.tmpl;
  const int64_t duration = s.duration_ns;
  Log(recreate ? "evict" : "delete", fmt::format("{} reason={}", PodKey(s.pod), reason));
  sched_.DeletePod(&s.pod);
  if (s.state == PodState::kPending) {
    --pending_pods_;
  } else {
    Unplace(slot);
    if (s.state == PodState::kRunning) {
      --running_pods_;
      if (group != kNone) --groups_[group].bound;  // counted as bound once it started running
    } else {
      --binding_pods_;
    }
  }
  FreePod(slot);
  ++epoch_;
  sched_idle_ = false;
  const bool was_victim = reason == "preempted";
  if (recreate && !was_victim) {
    ++res_.pods_evicted;
    ++wl_[w].stats.pods_evicted;
  } else if (was_victim) {
    ++wl_[w].stats.pods_preempted;
  } else {
    ++res_.pods_completed;
    ++wl_[w].stats.pods_completed;
  }
  if (recreate && spec_.workloads[w].recreate_on_evict) {
    CreatePod(w, group, tmpl, duration, Symbol{});
    // A gang restarts as a whole, as its training controller would: its other bound members go too,
    // and the gang waits again for all of its pods.
    if (group != kNone && spec_.workloads[w].kind == WorkloadKind::kGang && !restarting_gang_) {
      restarting_gang_ = true;
      std::vector<uint32_t> others = groups_[group].members;
      for (uint32_t m : others) {
        PodSlot& o = Pod(m);
        if (o.state == PodState::kRunning || o.state == PodState::kBinding)
          Evict(m, "gang-restart", true);
      }
      restarting_gang_ = false;
      GroupSlot& g = groups_[group];
      if (g.complete) ++res_.gang_restarts;
      g.complete = false;
      g.arrival_ns = now_;
      Log("gang-restart",
          fmt::format("{}/{} after {}",
                      in_.Str(Pod(groups_[group].members.front()).pod.meta.namespace_),
                      in_.Str(g.name), reason));
    }
  } else if (group != kNone) {
    GroupSlot& g = groups_[group];
    ++g.finished;
    if (g.finished >= g.size && g.alive) FreeGroup(group);
  }
}

void Engine::Impl::FreeGroup(uint32_t group) {
  GroupSlot& g = groups_[group];
  if (!g.alive) return;
  g.alive = false;
  if (spec_.workloads[g.workload].kind == WorkloadKind::kGang) RemovePodGroup(group);
  free_groups_.push_back(group);
}

// A gang's PodGroup object (current Workload API generation), created before its pods as kube's
// controllers do. The scheduler re-reads the object set, so pointers into the vector stay fresh.
void Engine::Impl::AddPodGroup(uint32_t group, const Workload& wk, const api::Pod& tmpl) {
  api::PodGroup pg;
  pg.meta.name = groups_[group].name;
  pg.meta.namespace_ = tmpl.meta.namespace_;
  pg.policy.kind = api::PodGroupPolicyKind::kGang;
  pg.policy.min_count = wk.min_count > 0 ? wk.min_count : wk.pods_per_arrival;
  pg.priority_class_name = tmpl.priority_class_name;
  if (!tmpl.priority_class_name.empty()) pg.priority = tmpl.priority;
  objects_.pod_groups.push_back(std::move(pg));
  sched_.SetClusterObjects(&objects_);
}

void Engine::Impl::RemovePodGroup(uint32_t group) {
  const Symbol name = groups_[group].name;
  auto& v = objects_.pod_groups;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].meta.name == name) {
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
      sched_.SetClusterObjects(&objects_);
      return;
    }
  }
}

void Engine::Impl::ApplyDecision(const Decision& d, int64_t cost_ns) {
  if (d.kind == Decision::Kind::kPreempted) {
    const PodSlot& pre = Pod(d.slot);
    int32_t fresh = 0;
    for (uint32_t v : d.victims) {
      PodSlot& s = Pod(v);
      if (s.state == PodState::kFree || s.terminating) continue;  // already on its way out
      s.terminating = true;
      ++fresh;
      ++res_.pods_preempted;
      int64_t grace = s.pod.termination_grace_period_seconds.value_or(30) * kSecond;
      Push(now_ + grace, EventKind::kVictimGone, v, s.gen);
      if (opts_.log != nullptr) {
        Log("preempt", fmt::format("{} by {} node={} grace={}", PodKey(s.pod), PodKey(pre.pod),
                                   in_.Str(d.node), FormatGoDuration(grace)));
      }
    }
    if (fresh > 0) ++res_.preemptions;
    ++epoch_;
    return;
  }
  PodSlot& s = Pod(d.slot);
  if (s.measured) perf_.attempt_duration.Add(cost_ns);
  if (d.kind == Decision::Kind::kUnschedulable) {
    s.attempted = true;
    s.failed = true;
    ++res_.unschedulable_attempts;
    if (s.fail_epoch == epoch_) {
      // The same pod failed again with nothing changed: no point in trying until something happens.
      sched_idle_ = true;
      ArmRetry();
    }
    s.fail_epoch = epoch_;
    if (opts_.log != nullptr)
      Log("unschedulable", fmt::format("{} {:?}", PodKey(s.pod), d.message));
    return;
  }
  auto it = node_by_name_.find(d.node);
  if (s.state != PodState::kPending) return;
  --pending_pods_;
  s.attempted = true;
  s.state = PodState::kBinding;
  s.pod.node_name = d.node;  // the binding, as the API server would record it
  ++binding_pods_;
  if (it != node_by_name_.end()) Place(d.slot, it->second);
  WorkloadState& ws = wl_[s.workload];
  AdvanceOverall(now_);
  ++res_.pods_scheduled;
  ++ws.stats.pods_scheduled;
  if (!s.bound_once) {
    s.bound_once = true;
    ++ws.pods_bound_once;
  }
  if (s.measured) ++perf_.measured_scheduled;
  ++epoch_;
  last_progress_ns_ = now_;
  retry_backoff_ns_ = kSecond;
  Log("bind", fmt::format("{} node={} wait={}", PodKey(s.pod), in_.Str(d.node),
                          FormatGoDuration(now_ - s.arrival_ns)));
  int64_t lat = spec_.bind_latency.is_zero() ? 0 : spec_.bind_latency.SampleNs(rng_);
  if (lat > 0 && lat != kForeverNs) {
    Push(now_ + lat, EventKind::kBindDone, d.slot, s.gen);
  } else {
    StartRunning(d.slot);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Arrivals

void Engine::Impl::ScheduleNextArrival(uint32_t w) {
  const Workload& wk = spec_.workloads[w];
  WorkloadState& ws = wl_[w];
  if (ws.stopped || ws.exhausted) return;
  if (wk.arrival.count >= 0 && ws.arrivals >= wk.arrival.count) {
    ws.exhausted = true;
    return;
  }
  int64_t next = now_;
  switch (wk.arrival.kind) {
    case Arrival::Kind::kBurst:
      next = now_;
      break;
    case Arrival::Kind::kFixedRate:
      next = ws.arrivals == 0 ? now_ : now_ + static_cast<int64_t>(1e9 / wk.arrival.rate_per_s);
      break;
    case Arrival::Kind::kPoisson: {
      double gap = -std::log(1.0 - ws.rng.UniformDouble()) / wk.arrival.rate_per_s;
      next = now_ + static_cast<int64_t>(gap * 1e9);
      break;
    }
    case Arrival::Kind::kExplicit:
      if (ws.cursor >= wk.explicit_arrivals.size()) {
        ws.exhausted = true;
        return;
      }
      next = std::max(now_, wk.explicit_arrivals[ws.cursor].time_ns);
      break;
  }
  if (next >= wk.arrival.stop_ns || (spec_.duration_ns > 0 && next > spec_.duration_ns)) {
    ws.exhausted = true;
    return;
  }
  Push(next, EventKind::kArrival, w);
}

void Engine::Impl::Arrive(uint32_t w) {
  const Workload& wk = spec_.workloads[w];
  WorkloadState& ws = wl_[w];
  if (ws.stopped || ws.exhausted) return;
  auto one = [&](int64_t duration, uint32_t tmpl, Symbol name) {
    ++ws.arrivals;
    ++ws.stats.arrivals;
    uint32_t group = kNone;
    const int32_t n = std::max(1, wk.pods_per_arrival);
    if (wk.kind != WorkloadKind::kPods) {
      if (!free_groups_.empty()) {
        group = free_groups_.back();
        free_groups_.pop_back();
      } else {
        group = static_cast<uint32_t>(groups_.size());
        groups_.emplace_back();
      }
      GroupSlot& g = groups_[group];
      std::vector<uint32_t> keep = std::move(g.members);
      g = GroupSlot{};
      g.members = std::move(keep);
      g.members.clear();
      g.workload = w;
      g.size = n;
      g.arrival_ns = now_;
      g.alive = true;
      g.name = NextName(wk.name + "-");
      if (wk.kind == WorkloadKind::kGang) {
        ++res_.gangs_arrived;
        AddPodGroup(group, wk, spec_.pod_templates[tmpl].pod);
      }
    }
    // A gang's members run for one sampled duration (the workers of one training job end together),
    // so a gang never has completed members next to running ones that a restart would have to bring
    // back.
    const int64_t gang_d =
        wk.kind == WorkloadKind::kGang && duration == -1 ? wk.duration.SampleNs(ws.rng) : duration;
    for (int32_t k = 0; k < n; ++k) {
      int64_t d = gang_d != -1 ? gang_d : wk.duration.SampleNs(ws.rng);
      CreatePod(w, group, tmpl, d, n == 1 ? name : Symbol{});
      if (!error_.empty()) return;
    }
  };
  switch (wk.arrival.kind) {
    case Arrival::Kind::kBurst: {
      int64_t count = wk.arrival.count < 0 ? 1 : wk.arrival.count;
      for (int64_t i = ws.arrivals; i < count && error_.empty(); ++i) one(-1, wk.tmpl, Symbol{});
      ws.exhausted = true;
      return;
    }
    case Arrival::Kind::kExplicit:
      while (ws.cursor < wk.explicit_arrivals.size() &&
             wk.explicit_arrivals[ws.cursor].time_ns <= now_ && error_.empty()) {
        const ExplicitArrival& ex = wk.explicit_arrivals[ws.cursor++];
        one(ex.duration_ns, ex.tmpl, ex.name);
      }
      break;
    default:
      one(-1, wk.tmpl, Symbol{});
      break;
  }
  ScheduleNextArrival(w);
}

// ---------------------------------------------------------------------------------------------------------
// Program

void Engine::Impl::StartCollecting(bool all) {
  window_all_ = all;
  perf_.collector.Start(now_, perf_.measured_scheduled);
  perf_.start_ns = now_;
  Push(now_ + opts_.collector_interval_ns, EventKind::kCollectorTick);
}

void Engine::Impl::StopCollecting() {
  if (!perf_.collector.running()) return;
  perf_.collector.Stop();
  perf_.stop_ns = now_;
  window_all_ = false;
}

void Engine::Impl::ExecuteOp(const Op& op) {
  if (opts_.log != nullptr && !op.describe.empty()) Log("op", op.describe);
  switch (op.kind) {
    case Op::Kind::kCreateNodes:
      for (int64_t i = 0; i < op.count && error_.empty(); ++i) CreateNode(op.pool);
      break;
    case Op::Kind::kDeleteNodes:
      for (uint32_t idx : PickNodes(op.pool, op.count, /*newest_first=*/true, 0))
        RemoveNode(idx, "delete");
      break;
    case Op::Kind::kCordon:
      for (uint32_t idx : PickNodes(op.pool, op.count, false, 1)) SetCordon(idx, true);
      break;
    case Op::Kind::kUncordon:
      for (uint32_t idx : PickNodes(op.pool, op.count, false, 2)) SetCordon(idx, false);
      break;
    case Op::Kind::kDrain:
      for (uint32_t idx : PickNodes(op.pool, op.count, false, 1)) {
        SetCordon(idx, true);
        EvictAll(idx, "drain");
        if (op.remove) RemoveNode(idx, "drain");
      }
      break;
    case Op::Kind::kStartWorkload: {
      const Workload& wk = spec_.workloads[op.workload];
      WorkloadState& ws = wl_[op.workload];
      ws.active = true;
      if (wk.arrival.kind == Arrival::Kind::kBurst) {
        ws.target_pods = std::max<int64_t>(0, wk.arrival.count) * std::max(1, wk.pods_per_arrival);
      }
      if (wk.collect_metrics) StartCollecting(false);
      if (wk.arrival.kind == Arrival::Kind::kBurst) {
        Arrive(op.workload);  // all at once, now
      } else {
        ScheduleNextArrival(op.workload);
      }
      break;
    }
    case Op::Kind::kStopWorkload:
      wl_[op.workload].stopped = true;
      break;
    case Op::Kind::kBarrier:
      break;
    case Op::Kind::kSleep:
      sleep_until_ = now_ + op.duration_ns;
      Push(sleep_until_, EventKind::kOpWake);
      break;
    case Op::Kind::kChurn: {
      ChurnState c;
      c.spec = &op.churn;
      c.active = true;
      size_t n = op.churn.node_pools.size() + op.churn.workloads.size();
      c.ring.assign(n, std::vector<uint32_t>(
                           static_cast<size_t>(std::max<int64_t>(1, op.churn.number)), kNone));
      c.ring_gen.assign(
          n, std::vector<uint32_t>(static_cast<size_t>(std::max<int64_t>(1, op.churn.number)), 0));
      churns_.push_back(std::move(c));
      auto ci = static_cast<uint32_t>(churns_.size() - 1);
      if (op.churn.mode == ChurnSpec::Mode::kRecreate) {
        for (int64_t k = 0; k < op.churn.number; ++k) ChurnTick(ci);
      }
      Push(now_ + op.churn.interval_ns, EventKind::kChurnTick, ci);
      break;
    }
    case Op::Kind::kDeletePods: {
      Deleter del;
      for (uint32_t i = 0; i < pod_slots_; ++i) {
        const PodSlot& s = Pod(i);
        if (s.state == PodState::kFree) continue;
        if (!op.namespaces.empty() && std::find(op.namespaces.begin(), op.namespaces.end(),
                                                s.pod.meta.namespace_) == op.namespaces.end()) {
          continue;
        }
        if (op.selector.has_value() && !api::Matches(*op.selector, s.pod.meta.labels)) continue;
        del.pods.emplace_back(i, s.gen);
      }
      std::sort(del.pods.begin(), del.pods.end(), [&](const auto& a, const auto& b) {
        return Pod(a.first).arrival_ns != Pod(b.first).arrival_ns
                   ? Pod(a.first).arrival_ns < Pod(b.first).arrival_ns
                   : a.first < b.first;
      });
      if (op.rate_per_s <= 0) {
        for (const auto& [slot, gen] : del.pods) {
          if (Pod(slot).gen == gen) Evict(slot, "deletePods", false);
        }
        op_deleter_ = SIZE_MAX;
        break;
      }
      del.interval_ns = static_cast<int64_t>(1e9 / op.rate_per_s);
      deleters_.push_back(std::move(del));
      op_deleter_ = deleters_.size() - 1;
      Push(now_ + deleters_.back().interval_ns, EventKind::kDeleteTick,
           static_cast<uint32_t>(op_deleter_));
      break;
    }
    case Op::Kind::kSetPriority:
      priority_override_[op.priority_class] = op.priority_value;
      break;
    case Op::Kind::kStartCollecting:
      StartCollecting(true);
      break;
    case Op::Kind::kStopCollecting:
      StopCollecting();
      break;
  }
}

bool Engine::Impl::BarrierMet(const Op& op) {
  for (uint32_t i = 0; i < pod_slots_; ++i) {
    const PodSlot& s = Pod(i);
    if (s.state != PodState::kPending) continue;
    if (!op.namespaces.empty() && std::find(op.namespaces.begin(), op.namespaces.end(),
                                            s.pod.meta.namespace_) == op.namespaces.end()) {
      continue;
    }
    if (op.selector.has_value() && !api::Matches(*op.selector, s.pod.meta.labels)) continue;
    if (op.attempted_only && s.attempted) continue;
    return false;
  }
  return true;
}

bool Engine::Impl::OpDone(const Op& op) {
  switch (op.kind) {
    case Op::Kind::kStartWorkload: {
      const Workload& wk = spec_.workloads[op.workload];
      const WorkloadState& ws = wl_[op.workload];
      if (!wk.wait) return true;
      if (!(ws.exhausted || ws.stopped)) return false;
      if (ws.pods_bound_once < ws.pods_created) return false;
      if (wk.collect_metrics) StopCollecting();
      return true;
    }
    case Op::Kind::kBarrier:
      return pending_pods_ == 0 || BarrierMet(op);
    case Op::Kind::kSleep:
      return now_ >= sleep_until_;
    case Op::Kind::kDeletePods:
      if (!op.wait || op_deleter_ == SIZE_MAX) return true;
      return deleters_[op_deleter_].next >= deleters_[op_deleter_].pods.size();
    default:
      return true;
  }
}

void Engine::Impl::AdvanceProgram() {
  program_epoch_ = epoch_;
  while (pc_ < spec_.program.size() && error_.empty()) {
    const Op& op = spec_.program[pc_];
    if (!op_started_) {
      if (op.at_ns.has_value() && now_ < *op.at_ns) {
        if (!op_wake_armed_) {
          op_wake_armed_ = true;
          Push(*op.at_ns, EventKind::kOpWake);
        }
        return;
      }
      op_started_ = true;
      ExecuteOp(op);
      if (!error_.empty()) return;
    }
    if (!OpDone(op)) return;
    ++pc_;
    op_started_ = false;
  }
  if (pc_ >= spec_.program.size() && !program_done_) {
    program_done_ = true;
    // Churn runs until the workload ends (kube), or to its stop time or the end of a run with a
    // duration.
    for (auto& c : churns_) {
      if (c.spec->stop_ns == kForeverNs && spec_.duration_ns == 0) c.active = false;
    }
    StopCollecting();
  }
}

void Engine::Impl::ChurnTick(uint32_t ci) {
  ChurnState& c = churns_[ci];
  if (!c.active) return;
  const ChurnSpec& cs = *c.spec;
  const size_t n_nodes = cs.node_pools.size();
  const size_t n = n_nodes + cs.workloads.size();
  if (cs.mode == ChurnSpec::Mode::kCreate) {
    for (uint32_t p : cs.node_pools) CreateNode(p);
    for (uint32_t w : cs.workloads) {
      wl_[w].active = true;
      CreatePod(w, kNone, spec_.workloads[w].tmpl, spec_.workloads[w].duration.SampleNs(wl_[w].rng),
                Symbol{});
    }
    return;
  }
  // Recreate: for each template, replace the object at the ring position.
  const size_t k = c.next % c.ring[0].size();
  for (size_t t = 0; t < n && error_.empty(); ++t) {
    uint32_t& cur = c.ring[t][k];
    uint32_t& gen = c.ring_gen[t][k];
    if (t < n_nodes) {
      if (cur != kNone && nodes_[cur]->alive && nodes_[cur]->serial == gen)
        RemoveNode(cur, "churn");
      CreateNode(cs.node_pools[t]);
      // The newest node of the pool is the one just created.
      uint32_t newest = kNone;
      for (uint32_t i = 0; i < nodes_.size(); ++i) {
        if (nodes_[i]->alive && nodes_[i]->pool == cs.node_pools[t] &&
            (newest == kNone || nodes_[i]->serial > nodes_[newest]->serial)) {
          newest = i;
        }
      }
      cur = newest;
      gen = newest == kNone ? 0 : static_cast<uint32_t>(nodes_[newest]->serial);
    } else {
      uint32_t w = cs.workloads[t - n_nodes];
      if (cur != kNone && Pod(cur).gen == gen && Pod(cur).state != PodState::kFree)
        Evict(cur, "churn", false);
      wl_[w].active = true;
      cur = CreatePod(w, kNone, spec_.workloads[w].tmpl, kForeverNs, Symbol{});
      gen = cur == kNone ? 0 : Pod(cur).gen;
    }
  }
  ++c.next;
}

void Engine::Impl::DeleteTick(uint32_t d) {
  Deleter& del = deleters_[d];
  while (del.next < del.pods.size()) {
    auto [slot, gen] = del.pods[del.next++];
    if (Pod(slot).gen == gen && Pod(slot).state != PodState::kFree) {
      Evict(slot, "deletePods", false);
      break;
    }
  }
  if (del.next < del.pods.size()) Push(now_ + del.interval_ns, EventKind::kDeleteTick, d);
}

// ---------------------------------------------------------------------------------------------------------
// Events and the scheduler

void Engine::Impl::ArmRetry() {
  if (retry_armed_) return;
  retry_armed_ = true;
  Push(now_ + retry_backoff_ns_, EventKind::kRetryTick);
  retry_backoff_ns_ = std::min<int64_t>(retry_backoff_ns_ * 2, 10 * kSecond);
}

void Engine::Impl::Handle(const Event& e) {
  if (IsRealEvent(e.kind)) --real_pending_;
  switch (e.kind) {
    case EventKind::kArrival:
      Arrive(e.a);
      break;
    case EventKind::kBindDone: {
      PodSlot& s = Pod(e.a);
      if (s.gen == e.b && s.state == PodState::kBinding) StartRunning(e.a);
      break;
    }
    case EventKind::kPodDone:
      PodDone(e.a, e.b);
      break;
    case EventKind::kFlushTick:
      sched_.FlushUnschedulableLeftover();
      sched_idle_ = false;
      Push(now_ + kFlushIntervalNs, EventKind::kFlushTick);
      break;
    case EventKind::kSampleTick:
      // Taken once the scheduler has caught up with everything that happened at this instant, so
      // that a completion and the binding it makes possible do not show up as a dip.
      sample_due_ = true;
      next_sample_ = now_ + sample_interval_;
      Push(next_sample_, EventKind::kSampleTick);
      break;
    case EventKind::kCollectorTick:
      if (perf_.collector.running()) {
        perf_.collector.Tick(now_, perf_.measured_scheduled);
        Push(now_ + opts_.collector_interval_ns, EventKind::kCollectorTick);
      }
      break;
    case EventKind::kRetryTick:
      retry_armed_ = false;
      ++epoch_;
      sched_idle_ = false;
      break;
    case EventKind::kOpWake:
      op_wake_armed_ = false;
      program_epoch_ = 0;  // force AdvanceProgram
      break;
    case EventKind::kChurnTick:
      if (now_ >= churns_[e.a].spec->stop_ns) churns_[e.a].active = false;
      if (churns_[e.a].active) {
        ChurnTick(e.a);
        Push(now_ + churns_[e.a].spec->interval_ns, EventKind::kChurnTick, e.a);
      }
      break;
    case EventKind::kDeleteTick:
      DeleteTick(e.a);
      break;
    case EventKind::kVictimGone: {
      PodSlot& s = Pod(e.a);
      if (s.gen == e.b && s.state != PodState::kFree) Evict(e.a, "preempted", true);
      break;
    }
    case EventKind::kPermitTimer:
      timer_armed_ = false;
      sched_.FireTimers();
      ++epoch_;
      sched_idle_ = false;
      break;
  }
}

void Engine::Impl::StepScheduler() {
  decisions_.clear();
  const bool timing = opts_.wall != nullptr;
  TimePoint t0 = timing ? opts_.wall->Now() : TimePoint{};
  const bool did = sched_.ScheduleOne();
  int64_t wall_ns = 0;
  if (timing) {
    wall_ns = (opts_.wall->Now() - t0).count();
    sched_wall_ns_ += wall_ns;
  }
  if (!did) {
    sched_idle_ = true;
    if (pending_pods_ > 0 && !spec_.gates.Enabled(framework::Feature::kSchedulerPopFromBackoffQ))
      ArmRetry();
    return;
  }
  ++cycles_;
  int64_t cost = 0;
  switch (spec_.cost.mode) {
    case CostModel::Mode::kInstant:
      break;
    case CostModel::Mode::kFixed:
      cost = spec_.cost.fixed_ns;
      break;
    case CostModel::Mode::kMeasured:
      cost = wall_ns;
      break;
  }
  if (cost > 0) {
    SetNow(now_ + cost);
    if (sample_due_ && now_ >= next_sample_ - sample_interval_ + sample_interval_ / 2) {
      sample_due_ = false;  // the scheduler is busy for a long time: sample while it works
      TakeSample();
    }
  }
  for (const Decision& d : decisions_)
    ApplyDecision(d, timing && spec_.cost.mode != CostModel::Mode::kFixed ? wall_ns : cost);
}

// ---------------------------------------------------------------------------------------------------------
// Metrics

void Engine::Impl::TakeSample() {
  Sample s;
  s.t_ns = now_;
  s.nodes = static_cast<int32_t>(nodes_alive_);
  s.nodes_schedulable = static_cast<int32_t>(nodes_schedulable_);
  s.pending = static_cast<int64_t>(sched_.NumPendingPods());
  s.arrived = res_.pods_arrived;
  s.scheduled = res_.pods_scheduled;
  s.completed = res_.pods_completed;
  s.evicted = res_.pods_evicted;
  s.unschedulable_attempts = res_.unschedulable_attempts;
  s.cycles = cycles_;
  s.preempted = res_.pods_preempted;
  s.batched = sched_.stats().batched;
  s.batch_flushes =
      static_cast<int64_t>(sched_.metrics().CounterSum("scheduler_batch_cache_flushed_total"));
  for (size_t r = 0; r < tracked_.size(); ++r) {
    s.util[r] = alloc_total_[r] > 0 ? static_cast<float>(static_cast<double>(req_total_[r]) /
                                                         static_cast<double>(alloc_total_[r]))
                                    : 0.0F;
  }
  s.running = running_pods_ + binding_pods_;
  res_.samples.push_back(s);
  for (size_t h = 0; h < res_.heat_resources.size(); ++h) {
    std::vector<uint8_t> row(nodes_.size(), 255);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const NodeSlot& ns = *nodes_[i];
      if (!ns.alive) continue;
      if (ns.alloc[h] <= 0) {
        row[i] = 254;  // the node has none of this resource
        continue;
      }
      double u = static_cast<double>(ns.req[h]) / static_cast<double>(ns.alloc[h]);
      row[i] = static_cast<uint8_t>(std::clamp(u, 0.0, 1.0) * 200.0 + 0.5);
    }
    res_.heat[h].push_back(std::move(row));
  }
  if (res_.samples.size() >= 2 * kMaxSamples) {
    // Halve the resolution: keep every other sample, double the interval.
    size_t j = 0;
    for (size_t i = 0; i < res_.samples.size(); i += 2) {
      res_.samples[j] = res_.samples[i];
      for (auto& h : res_.heat) {
        if (i < h.size()) h[j] = std::move(h[i]);
      }
      ++j;
    }
    res_.samples.resize(j);
    for (auto& h : res_.heat) {
      if (h.size() > j) h.resize(j);
    }
    sample_interval_ *= 2;
  }
}

void Engine::Impl::Finish(RunResult& r) {
  if (res_.samples.empty() || res_.samples.back().t_ns < now_) TakeSample();
  r = std::move(res_);
  r.name = spec_.name;
  r.description = spec_.description;
  r.source = spec_.source;
  r.seed = spec_.seed;
  switch (spec_.cost.mode) {
    case CostModel::Mode::kInstant:
      r.cost_model = "instant";
      break;
    case CostModel::Mode::kMeasured:
      r.cost_model = "measured";
      break;
    case CostModel::Mode::kFixed:
      r.cost_model = "fixed " + FormatGoDuration(spec_.cost.fixed_ns);
      break;
  }
  r.bind_latency = spec_.bind_latency.ToString();
  r.end_ns = now_;
  r.sample_interval_ns = sample_interval_;
  r.nodes_end = nodes_alive_;
  r.nodes_max = nodes_max_;
  r.resources = tracked_;
  r.cycles = cycles_;
  r.errors = sched_.stats().errors;
  r.pods_running_end = running_pods_ + binding_pods_;
  r.pods_pending_end = static_cast<int64_t>(sched_.NumPendingPods());
  std::map<std::string, int64_t> reasons;
  for (const auto& [pod, msg] : sched_.PendingPods()) {
    if (!msg.empty()) {
      ++r.pods_unschedulable_end;
      ++reasons[msg];
    }
  }
  for (auto& [msg, n] : reasons) r.pending_reasons.emplace_back(msg, n);
  std::stable_sort(r.pending_reasons.begin(), r.pending_reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  // Per-workload pending pods.
  for (uint32_t i = 0; i < pod_slots_; ++i) {
    const PodSlot& s = Pod(i);
    if (s.state == PodState::kPending) ++wl_[s.workload].stats.pods_pending_end;
  }
  for (size_t w = 0; w < wl_.size(); ++w) {
    WorkloadStats st = std::move(wl_[w].stats);
    st.name = spec_.workloads[w].name;
    switch (spec_.workloads[w].kind) {
      case WorkloadKind::kPods:
        st.kind = "pods";
        break;
      case WorkloadKind::kJob:
        st.kind = "job";
        break;
      case WorkloadKind::kGang:
        st.kind = "gang";
        break;
    }
    r.workloads.push_back(std::move(st));
  }
  // Utilization: mean over the equally spaced samples, and peak.
  if (!r.samples.empty()) {
    for (size_t k = 0; k < r.resources.size(); ++k) {
      double sum = 0, peak = 0;
      for (const auto& s : r.samples) {
        sum += s.util[k];
        peak = std::max(peak, static_cast<double>(s.util[k]));
      }
      r.mean_util[k] = sum / static_cast<double>(r.samples.size());
      r.peak_util[k] = peak;
    }
  }
  // Scheduled pods per virtual second, with kube's collector rules over the whole run.
  AdvanceOverall(now_);
  r.throughput = overall_.Summarize();
  r.pods_preempted = res_.pods_preempted;
  r.preemption = {
      true,
      "victims are deleted after their termination grace period on the virtual clock and, "
      "like evicted pods, recreated by their workload"};
  r.batched = sched_.stats().batched;
  if (spec_.gates.Enabled(framework::Feature::kOpportunisticBatching)) {
    r.batching = {
        true,
        "opportunistic batching (KEP-5598): pods placed on the previous pod's cached node "
        "list; flushes by kube's reasons"};
    r.batch_flushes = scheduler::BatchFlushCounts(sched_.metrics());
  } else {
    r.batching = {false, "OpportunisticBatching is disabled (feature gate)"};
  }
  const framework::Framework* fwk = sched_.profile("default-scheduler");
  const bool gang_plugin = fwk != nullptr && fwk->GetPlugin("GangScheduling") != nullptr;
  if (gang_plugin) {
    r.gang_scheduling = {
        true, spec_.gang_workload_cycle
                  ? "gangs are scheduled all-or-nothing in kube's workload scheduling cycle; "
                    "wait = arrival until every pod is bound"
                  : "gangs are held at Permit until their quorum is assumed (kube's alpha "
                    "mode); wait = arrival until every pod is bound"};
  } else {
    r.gang_scheduling = {
        false,
        "GangScheduling is not in the profile (GenericWorkload gate off or disabled in "
        "the configuration): gang pods are scheduled one by one"};
  }
  if (r.pods_ignored > 0) {
    r.notes.push_back(
        fmt::format("{} pods name a schedulerName that no profile serves; they were left to "
                    "another scheduler",
                    r.pods_ignored));
  }
  r.scheduler_metrics = sched_.metrics().PrometheusText();
  for (const auto& n : spec_.notes) r.notes.push_back(n);
  r.scheduler_wall_seconds = static_cast<double>(sched_wall_ns_) / 1e9;
}

// ---------------------------------------------------------------------------------------------------------
// Run

Result<RunResult> Engine::Impl::Run() {
  SetupResources();
  pool_next_index_.assign(spec_.pools.size(), 0);
  wl_.resize(spec_.workloads.size());
  for (size_t w = 0; w < wl_.size(); ++w) {
    wl_[w].rng.Seed(spec_.seed * 0x9e3779b97f4a7c15ULL + w + 1);
  }
  sched_.set_observer(this);
  objects_ = spec_.objects;
  sched_.SetClusterObjects(&objects_);
  events_.Reserve(1024);
  decisions_.reserve(16);

  sample_interval_ = spec_.sample_interval_ns;
  if (sample_interval_ <= 0) {
    sample_interval_ =
        spec_.duration_ns > 0 ? std::max<int64_t>(kSecond, spec_.duration_ns / 720) : 10 * kSecond;
  }
  SetNow(0);
  // Initial nodes and pods (manifests).
  for (const auto& n : spec_.initial_nodes) {
    uint32_t idx = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(std::make_unique<NodeSlot>());
    NodeSlot& ns = *nodes_[idx];
    ns.node = n;
    ns.serial = node_serial_++;
    ns.alive = true;
    TrackNode(ns);
    for (size_t r = 0; r < tracked_.size(); ++r) alloc_total_[r] += ns.alloc[r];
    node_by_name_[n.meta.name] = idx;
    ++nodes_alive_;
    if (!n.unschedulable) ++nodes_schedulable_;
    res_.slot_names.push_back(std::string(in_.Str(n.meta.name)));
    res_.slot_pools.push_back("");
    sched_.AddNode(&ns.node);
    Log("node-add", in_.Str(n.meta.name));
  }
  nodes_max_ = nodes_alive_;
  overall_.Start(0, 0);
  Push(kFlushIntervalNs, EventKind::kFlushTick);
  Push(0, EventKind::kSampleTick);
  AdvanceProgram();

  uint64_t steps = 0;
  bool stalled = false;
  for (;;) {
    if (!error_.empty()) break;
    while (!events_.empty() && events_.Top().time_ns <= now_ && error_.empty())
      Handle(events_.Pop());
    if (!error_.empty()) break;
    if (!program_done_ && program_epoch_ != epoch_) AdvanceProgram();
    if (opts_.progress && (++steps & 4095) == 0) {
      opts_.progress({now_, spec_.duration_ns, pc_, spec_.program.size(), res_.pods_arrived,
                      res_.pods_scheduled, pending_pods_});
    }
    if (!sched_idle_) {
      StepScheduler();
      continue;
    }
    if (auto deadline = sched_.NextTimerDeadline(); deadline.has_value()) {
      int64_t at = std::max(now_, (*deadline - start_).count());
      if (!timer_armed_ || at < timer_at_) {
        timer_armed_ = true;
        timer_at_ = at;
        Push(at, EventKind::kPermitTimer);
      }
    }
    if (sample_due_) {
      sample_due_ = false;
      TakeSample();
    }
    // Nothing to do now: end, or advance to the next event.
    if (spec_.duration_ns == 0) {
      if (program_done_ && real_pending_ == 0) break;
      if (!program_done_ && real_pending_ == 0 && now_ - last_progress_ns_ >= kStallNs) {
        stalled = true;
        break;
      }
    }
    if (events_.empty()) break;
    int64_t next = events_.Top().time_ns;
    if (spec_.duration_ns > 0 && next > spec_.duration_ns) {
      SetNow(spec_.duration_ns);
      break;
    }
    SetNow(next);
  }
  if (!error_.empty()) return Error::Invalid(error_);
  if (stalled) {
    const Op& op = spec_.program[pc_];
    res_.failure = fmt::format(
        "op {} ({}) never completed: {} pods still pending with no event left that could "
        "help",
        pc_ + 1, op.describe, pending_pods_);
  }
  StopCollecting();
  if (opts_.progress) {
    opts_.progress({now_, spec_.duration_ns, pc_, spec_.program.size(), res_.pods_arrived,
                    res_.pods_scheduled, pending_pods_});
  }
  RunResult r;
  Finish(r);
  sched_.set_observer(nullptr);
  return r;
}

// ---------------------------------------------------------------------------------------------------------

Engine::Engine(const SimSpec& spec, Interner& interner, scheduler::Scheduler& sched,
               ManualClock& clock, EngineOptions opts)
    : impl_(std::make_unique<Impl>(spec, interner, sched, clock, std::move(opts))) {}
Engine::~Engine() = default;
Result<RunResult> Engine::Run() {
  return impl_->Run();
}
const PerfWindow& Engine::perf() const {
  return impl_->perf();
}

}  // namespace corral::sim
