#include "corral/framework/framework.h"

#include <algorithm>
#include <map>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "corral/pipeline/fit_error.h"

namespace corral::framework {

namespace {}  // namespace

Result<std::unique_ptr<Framework>> Framework::New(const ProfileConfig& profile,
                                                  const Registry& registry, Handle& handle) {
  std::unique_ptr<Framework> f(new Framework());
  f->handle_ = &handle;
  f->profile_name_ = profile.scheduler_name;
  f->percentage_ = profile.percentage_of_nodes_to_score;
  Result<void> st = f->Build(profile, registry);
  if (!st.ok()) return st.error();
  return f;
}

Result<void> Framework::Build(const ProfileConfig& profile, const Registry& registry) {
  const Plugins& ps = profile.plugins;
  // 1. Instantiate every plugin named anywhere, once, in order of first appearance.
  const PluginSet* const sets[] = {&ps.multi_point, &ps.pre_enqueue, &ps.queue_sort, &ps.pre_filter,
                                   &ps.filter,      &ps.post_filter, &ps.pre_score,  &ps.score,
                                   &ps.reserve,     &ps.permit,      &ps.pre_bind,   &ps.bind,
                                   &ps.post_bind};
  Result<void> made =
      table_.Instantiate(sets, [&](const std::string& name) -> Result<std::unique_ptr<Plugin>> {
        const PluginFactory* factory = registry.Find(name);
        if (factory == nullptr)
          return Error::Invalid(fmt::format("plugin {:?} does not exist", name));
        const PluginArgs* args = nullptr;
        if (auto it = profile.plugin_args.find(name); it != profile.plugin_args.end())
          args = it->second.get();
        auto plugin = (*factory)(args, *handle_);
        if (!plugin.ok()) {
          return Error::Invalid(
              fmt::format("initializing plugin {:?}: {}", name, plugin.error().message));
        }
        return plugin;
      });
  if (!made.ok()) return made;
  for (const auto& [name, args] : profile.plugin_args) {
    (void)args;
    // kube accepts pluginConfig for plugins that are not enabled only if they exist in
    // the registry.
    if (!table_.Contains(name) && !registry.Has(name))
      return Error::Invalid(fmt::format("plugin {:?} does not exist", name));
  }

  // 2. Per extension point: the explicitly configured plugins, then multiPoint expansion.
  auto fill = [&]<class P>(std::vector<Entry<P>>& list, const PluginSet& set,
                           std::string_view type_name) -> Result<void> {
    auto r = table_.Expand<P>(set, ps.multi_point, type_name);
    if (!r.ok()) return r.error();
    list = std::move(r).value();
    return {};
  };
  Result<void> r;
  if (!(r = fill(pre_enqueue_, ps.pre_enqueue, "PreEnqueuePlugin")).ok()) return r;
  if (!(r = fill(queue_sort_list_, ps.queue_sort, "QueueSortPlugin")).ok()) return r;
  if (!(r = fill(pre_filter_, ps.pre_filter, "PreFilterPlugin")).ok()) return r;
  if (!(r = fill(filter_, ps.filter, "FilterPlugin")).ok()) return r;
  if (!(r = fill(post_filter_, ps.post_filter, "PostFilterPlugin")).ok()) return r;
  if (!(r = fill(pre_score_, ps.pre_score, "PreScorePlugin")).ok()) return r;
  if (!(r = fill(score_, ps.score, "ScorePlugin")).ok()) return r;
  if (!(r = fill(reserve_, ps.reserve, "ReservePlugin")).ok()) return r;
  if (!(r = fill(permit_, ps.permit, "PermitPlugin")).ok()) return r;
  if (!(r = fill(pre_bind_, ps.pre_bind, "PreBindPlugin")).ok()) return r;
  if (!(r = fill(bind_, ps.bind, "BindPlugin")).ok()) return r;
  if (!(r = fill(post_bind_, ps.post_bind, "PostBindPlugin")).ok()) return r;

  if (queue_sort_list_.size() != 1) {
    return Error::Invalid(fmt::format(
        "only one queue sort plugin required for profile with scheduler name {:?}, but got {}",
        profile_name_, queue_sort_list_.size()));
  }
  queue_sort_ = queue_sort_list_[0].plugin;
  // PreFilterExtensions, in PreFilter order (fixed for a plugin's lifetime).
  for (const auto& e : pre_filter_) {
    if (const PreFilterExtensions* ext = e.plugin->PreFilterExtensions()) {
      pre_filter_ext_.push_back({ext, e.name, e.slot});
    }
  }
  if (bind_.empty()) {
    return Error::Invalid(fmt::format(
        "at least one bind plugin is needed for profile with scheduler name {:?}", profile_name_));
  }

  // 3. Score weights: the Score point's own weight wins over multiPoint's; 0 ⇒ 1; overflow check.
  if (!(r = table_.AssignWeights(score_, ps.score, ps.multi_point, kMaxNodeScore)).ok()) return r;

  // 4. Signatures (KEP-5598): enabled only if every PreFilter/Filter/PreScore/Score plugin
  // can sign.
  can_sign_ = true;
  absl::flat_hash_set<size_t> signer_slots;
  auto require_signer = [&](size_t slot) {
    auto* s = dynamic_cast<SignPlugin*>(table_.at(slot));
    if (s == nullptr) {
      can_sign_ = false;
    } else if (signer_slots.insert(slot).second) {
      sign_.push_back({s, table_.name(slot), slot, 0});
    }
  };
  for (const auto& e : pre_filter_) require_signer(e.slot);
  for (const auto& e : filter_) require_signer(e.slot);
  for (const auto& e : pre_score_) require_signer(e.slot);
  for (const auto& e : score_) require_signer(e.slot);
  signatures_enabled_ = can_sign_ && handle_->features().Enabled(Feature::kOpportunisticBatching);
  return {};
}

Status Framework::RunPreEnqueuePlugins(const PodInfo& pod) const {
  for (const auto& e : pre_enqueue_) {
    Status s = e.plugin->PreEnqueue(pod);
    if (!s.ok()) {
      s.WithPlugin(e.name);
      return s;
    }
  }
  return {};
}

Status Framework::RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                                      PreFilterResult* result,
                                      std::vector<std::string_view>* plugins_with_nodes_out) const {
  state.skip_filter().assign(table_.size(), false);
  state.skip_score().assign(table_.size(), false);
  result->node_names.reset();
  std::vector<std::string_view> plugins_with_nodes;
  Status return_status;
  for (const auto& e : pre_filter_) {
    PreFilterResult r;
    Status s = e.plugin->PreFilter(state, e.slot, pod, handle_->snapshot(), &r);
    if (s.IsSkip()) {
      state.skip_filter()[e.slot] = true;
      continue;
    }
    if (!s.ok()) {
      s.WithPlugin(e.name);
      if (s.code() == Code::kUnschedulableAndUnresolvable) return s;
      if (s.code() == Code::kUnschedulable) {
        return_status = s;
        continue;
      }
      return Status::Error(fmt::format("running PreFilter plugin {:?}: {}", e.name, s.Message()))
          .WithPlugin(e.name);
    }
    if (r.node_names.has_value()) {
      plugins_with_nodes.push_back(e.name);
      if (!result->node_names.has_value()) {
        result->node_names = std::move(r.node_names);
      } else {
        absl::flat_hash_set<Symbol> both;
        for (Symbol n : *result->node_names) {
          if (r.node_names->contains(n)) both.insert(n);
        }
        result->node_names = std::move(both);
      }
      if (result->node_names->empty()) {
        std::string msg =
            plugins_with_nodes.size() == 1
                ? fmt::format("node(s) didn't satisfy plugin {}", plugins_with_nodes[0])
                : fmt::format("node(s) didn't satisfy plugin(s) {} simultaneously",
                              pipeline::GoList(plugins_with_nodes));
        return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable, std::move(msg));
      }
    }
  }
  if (plugins_with_nodes_out != nullptr) *plugins_with_nodes_out = std::move(plugins_with_nodes);
  return return_status;
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod,
                                              const PodInfo& to_add, const NodeInfo& node) const {
  for (const auto& e : pre_filter_ext_) {
    if (state.skip_filter()[e.slot]) continue;
    Status s = e.ext->AddPod(state, pod, to_add, node);
    if (!s.ok()) {
      return Status::Error(
          fmt::format("running AddPod on PreFilter plugin {:?}: {}", e.name, s.Message()));
    }
  }
  return {};
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                                 const PodInfo& to_remove,
                                                 const NodeInfo& node) const {
  for (const auto& e : pre_filter_ext_) {
    if (state.skip_filter()[e.slot]) continue;
    Status s = e.ext->RemovePod(state, pod, to_remove, node);
    if (!s.ok()) {
      return Status::Error(
          fmt::format("running RemovePod on PreFilter plugin {:?}: {}", e.name, s.Message()));
    }
  }
  return {};
}

Status Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node) const {
  const std::vector<bool>& skip = state.skip_filter();
  for (const auto& e : filter_) {
    if (e.slot < skip.size() && skip[e.slot]) continue;
    Status s = e.plugin->Filter(state, e.slot, pod, node);
    if (!s.ok()) {
      if (!s.IsRejected()) {
        s = Status::Error(fmt::format("running {:?} filter plugin: {}", e.name, s.Message()));
      }
      s.WithPlugin(e.name);
      return s;
    }
  }
  return {};
}

std::optional<uint64_t> Framework::NodeLocalFilterKey(const CycleState& state,
                                                      const PodInfo& pod) const {
  const std::vector<bool>& skip = state.skip_filter();
  uint64_t key = 0;
  for (size_t i = 0; i < filter_.size(); ++i) {
    const auto& e = filter_[i];
    if (e.slot < skip.size() && skip[e.slot]) {
      key |= uint64_t{1} << (i % 64);
      continue;
    }
    if (!e.plugin->FilterIsNodeLocal(pod)) return std::nullopt;
  }
  // More than 64 filter plugins would alias bits; no profile comes close, but stay safe.
  if (filter_.size() > 64) return std::nullopt;
  return key;
}

bool Framework::HasActivePreFilterExtensions(const CycleState& state) const {
  const std::vector<bool>& skip = state.skip_filter();
  return std::any_of(pre_filter_ext_.begin(), pre_filter_ext_.end(),
                     [&](const auto& e) { return e.slot >= skip.size() || !skip[e.slot]; });
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& node) const {
  std::span<const PodInfo* const> nominated = handle_->NominatedPodsForNode(node.name());
  bool any = false;
  for (const PodInfo* p : nominated) {
    if (p->priority() >= pod.priority() && p->pod != pod.pod) {
      any = true;
      break;
    }
  }
  if (!any) return RunFilterPlugins(state, pod, node);
  // Pass 1: with the nominated pods of priority >= the pod's added, on a copy of the node in a
  // per-thread scratch NodeInfo (assignment reuses its vectors' capacity; nothing reads it after
  // this call). The CycleState is cloned only if a PreFilter extension would update it: otherwise
  // the clone would equal `state` (Filter plugins only read it).
  const bool extends = HasActivePreFilterExtensions(state);
  std::optional<CycleState> state_with;
  if (extends) state_with.emplace(state.Clone());
  thread_local NodeInfo node_with;
  node_with = node;
  for (const PodInfo* p : nominated) {
    if (p->priority() < pod.priority() || p->pod == pod.pod) continue;
    node_with.AddPod(p);
    if (!extends) continue;
    Status s = RunPreFilterExtensionAddPod(*state_with, pod, *p, node_with);
    if (!s.ok()) return s;
  }
  Status s = RunFilterPlugins(extends ? *state_with : state, pod, node_with);
  if (!s.ok()) return s;
  // Pass 2: without them.
  return RunFilterPlugins(state, pod, node);
}

Status Framework::RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& statuses,
                                       PostFilterResult* result) const {
  std::optional<PostFilterResult> last;
  Status rejected(Code::kUnschedulable, "");
  std::string_view rejector;
  for (const auto& e : post_filter_) {
    PostFilterResult r;
    Status s = e.plugin->PostFilter(state, pod, statuses, &r);
    if (s.ok()) {
      *result = std::move(r);
      return s;
    }
    if (s.code() == Code::kUnschedulableAndUnresolvable) {
      *result = std::move(r);
      return s.WithPlugin(e.name);
    }
    if (!s.IsRejected()) return s.WithPlugin(e.name);
    if (r.mode != NominatingMode::kNoop) last = std::move(r);
    for (std::string_view reason : s.reasons()) rejected.AddOwnedReason(std::string(reason));
    if (rejector.empty()) rejector = e.name;
  }
  if (last.has_value()) *result = std::move(*last);
  return rejected.WithPlugin(rejector);
}

Status Framework::RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     std::span<const NodeInfo* const> nodes) const {
  if (state.skip_score().size() < table_.size()) state.skip_score().assign(table_.size(), false);
  for (const auto& e : pre_score_) {
    Status s = e.plugin->PreScore(state, e.slot, pod, nodes);
    if (s.IsSkip()) {
      state.skip_score()[e.slot] = true;
      continue;
    }
    if (!s.ok()) {
      return Status::Error(fmt::format("running PreScore plugin {:?}: {}", e.name, s.Message()));
    }
  }
  return {};
}

namespace {
class PodOnlyExtensions final : public PreScoreExtensions {
 public:
  Status AddPod(CycleState&, size_t, const PodInfo&, const PodInfo&, const NodeInfo&,
                std::span<const NodeInfo* const>) const override {
    return {};
  }
};
}  // namespace

const PreScoreExtensions* PodOnlyPreScoreExtensions() {
  static const PodOnlyExtensions kExtensions;
  return &kExtensions;
}

Status Framework::RunPreScorePluginsAfterAdd(CycleState& state, const PodInfo& pod,
                                             const PodInfo& added, const NodeInfo& node,
                                             std::span<const NodeInfo* const> nodes,
                                             bool incremental, int64_t* incremental_count) const {
  if (state.skip_score().size() < table_.size()) state.skip_score().assign(table_.size(), false);
  for (const auto& e : pre_score_) {
    if (incremental) {
      if (const PreScoreExtensions* ext = e.plugin->PreScoreExtensions(); ext != nullptr) {
        Status s = ext->AddPod(state, e.slot, pod, added, node, nodes);
        if (s.ok() || s.IsSkip()) {
          if (s.IsSkip()) state.skip_score()[e.slot] = true;
          if (incremental_count != nullptr) ++*incremental_count;
          continue;
        }
      }
    }
    state.skip_score()[e.slot] = false;
    Status s = e.plugin->PreScore(state, e.slot, pod, nodes);
    if (s.IsSkip()) {
      state.skip_score()[e.slot] = true;
      continue;
    }
    if (!s.ok()) {
      return Status::Error(fmt::format("running PreScore plugin {:?}: {}", e.name, s.Message()));
    }
  }
  return {};
}

Status Framework::RunScorePlugins(const CycleState& state, const PodInfo& pod,
                                  std::span<const NodeInfo* const> nodes, ScoreTable* out) const {
  const std::vector<bool>& skip = state.skip_score();
  return pipeline::RunScoreTable<NodeInfo>(
      std::span<const Entry<ScorePlugin>>(score_), nodes, out,
      [&](size_t i) { return !(score_[i].slot < skip.size() && skip[score_[i].slot]); },
      [&](const Entry<ScorePlugin>& e, const NodeInfo& node, int64_t* raw) {
        return e.plugin->Score(state, e.slot, pod, node, raw);
      },
      [&](const Entry<ScorePlugin>& e, std::span<const int64_t> raw, std::span<int64_t> norm) {
        const size_t n = raw.size();
        const ScoreExtensions* ext = e.plugin->ScoreExtensions();
        if (ext == nullptr) {
          std::copy(raw.begin(), raw.end(), norm.begin());
          return Status();
        }
        normalize_scratch_.resize(n);
        for (size_t j = 0; j < n; ++j) normalize_scratch_[j] = {nodes[j]->name(), raw[j]};
        Status s = ext->NormalizeScore(state, e.slot, pod, normalize_scratch_);
        if (!s.ok()) return s;
        for (size_t j = 0; j < n; ++j) norm[j] = normalize_scratch_[j].score;
        return Status();
      });
}

Status Framework::RunReservePluginsReserve(CycleState& state, const PodInfo& pod,
                                           Symbol node) const {
  for (const auto& e : reserve_) {
    Status s = e.plugin->Reserve(state, pod, node);
    if (!s.ok()) {
      if (s.IsRejected()) return s.WithPlugin(e.name);
      return Status::Error(fmt::format("running Reserve plugin {:?}: {}", e.name, s.Message()))
          .WithPlugin(e.name);
    }
  }
  return {};
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod,
                                           Symbol node) const {
  for (auto it = reserve_.rbegin(); it != reserve_.rend(); ++it)
    it->plugin->Unreserve(state, pod, node);
}

Status Framework::RunPermitPlugins(
    CycleState& state, const PodInfo& pod, Symbol node, Duration* timeout,
    std::vector<std::pair<std::string_view, Duration>>* waits) const {
  bool wait = false;
  Duration min_timeout = kMaxPermitTimeout;
  if (waits != nullptr) waits->clear();
  for (const auto& e : permit_) {
    Duration t{};
    Status s = e.plugin->Permit(state, pod, node, &t);
    if (s.ok()) continue;
    if (s.code() == Code::kWait) {
      wait = true;
      min_timeout = std::min(min_timeout, std::min(t, kMaxPermitTimeout));
      if (waits != nullptr) waits->emplace_back(e.name, std::min(t, kMaxPermitTimeout));
      continue;
    }
    if (s.IsRejected()) return s.WithPlugin(e.name);
    return Status::Error(fmt::format("running Permit plugin {:?}: {}", e.name, s.Message()))
        .WithPlugin(e.name);
  }
  if (wait) {
    *timeout = min_timeout;
    return {Code::kWait, {}};
  }
  return {};
}

Status Framework::RunPreBindPlugins(CycleState& state, const PodInfo& pod, Symbol node,
                                    size_t* resume) const {
  for (size_t i = resume != nullptr ? *resume : 0; i < pre_bind_.size(); ++i) {
    const auto& e = pre_bind_[i];
    Status s = e.plugin->PreBind(state, pod, node);
    if (s.IsSkip()) continue;
    if (s.code() == Code::kWait) {
      if (resume != nullptr) *resume = i;
      return s.WithPlugin(e.name);
    }
    if (!s.ok()) {
      if (s.IsRejected()) return s.WithPlugin(e.name);
      return Status::Error(fmt::format("running PreBind plugin {:?}: {}", e.name, s.Message()))
          .WithPlugin(e.name);
    }
  }
  return {};
}

Status Framework::RunBindPlugins(CycleState& state, const PodInfo& pod, Symbol node) const {
  for (const auto& e : bind_) {
    Status s = e.plugin->Bind(state, pod, node);
    if (s.IsSkip()) continue;
    if (!s.ok()) {
      if (s.IsRejected()) return s.WithPlugin(e.name);
      return Status::Error(fmt::format("running Bind plugin {:?}: {}", e.name, s.Message()))
          .WithPlugin(e.name);
    }
    return s;
  }
  return Status::Skip();
}

void Framework::RunPostBindPlugins(CycleState& state, const PodInfo& pod, Symbol node) const {
  for (const auto& e : post_bind_) e.plugin->PostBind(state, pod, node);
}

std::optional<std::string> Framework::Signature(const PodInfo& pod) const {
  if (!can_sign_) return std::nullopt;
  std::map<std::string, std::string> fragments;
  fragments.emplace("v1.Pod.Spec.SchedulerName",
                    std::string(handle_->interner().Str(pod.pod->scheduler_name)));
  std::vector<SignFragment> out;
  for (const auto& e : sign_) {
    out.clear();
    Status s = e.plugin->Sign(pod, &out);
    if (!s.ok()) return std::nullopt;
    for (auto& f : out)
      fragments.emplace(std::move(f.key), std::move(f.value));  // first value wins
  }
  std::string sig;
  for (const auto& [k, v] : fragments) {
    sig += k;
    sig.push_back('\0');
    sig += v;
    sig.push_back('\0');
  }
  return sig;
}

std::vector<std::string> Framework::ListPlugins(std::string_view ep) const {
  std::vector<std::string> out;
  auto names = [&](const auto& list) {
    for (const auto& e : list) out.emplace_back(e.name);
  };
  if (ep == "PreEnqueue") names(pre_enqueue_);
  if (ep == "QueueSort") names(queue_sort_list_);
  if (ep == "PreFilter") names(pre_filter_);
  if (ep == "Filter") names(filter_);
  if (ep == "PostFilter") names(post_filter_);
  if (ep == "PreScore") names(pre_score_);
  if (ep == "Score") {
    for (const auto& e : score_) out.push_back(fmt::format("{}:{}", e.name, e.weight));
  }
  if (ep == "Reserve") names(reserve_);
  if (ep == "Permit") names(permit_);
  if (ep == "PreBind") names(pre_bind_);
  if (ep == "Bind") names(bind_);
  if (ep == "PostBind") names(post_bind_);
  return out;
}

Plugin* Framework::GetPlugin(std::string_view name) const {
  std::optional<size_t> slot = table_.SlotOf(name);
  return slot.has_value() ? table_.at(*slot) : nullptr;
}

}  // namespace corral::framework
