#include "corral/scheduler/batch.h"

#include <algorithm>

#include "corral/framework/status.h"

namespace corral::scheduler {

using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::Status;

namespace {
const std::vector<double>& DurationBuckets() {
  static const std::vector<double> kBuckets = metrics::ExponentialBuckets(0.00001, 2, 12);
  return kBuckets;
}
}  // namespace

OpportunisticBatch::OpportunisticBatch(const framework::Framework& fwk, const Clock& clock,
                                       const Clock* wall_clock, metrics::Registry& metrics)
    : fwk_(fwk), clock_(clock), wall_clock_(wall_clock), metrics_(metrics) {}

void OpportunisticBatch::Flush(std::string_view reason) {
  metrics::Counter* c = nullptr;
  for (auto& [name, counter] : flushes_) {
    if (name == reason) c = counter;
  }
  if (c == nullptr) {
    c = &metrics_.GetCounter("scheduler_batch_cache_flushed_total",
                             "Counts the number of batch cache flushes, by the reason.",
                             {{"profile", fwk_.profile_name()}, {"reason", std::string(reason)}});
    flushes_.emplace_back(reason, c);
  }
  c->Inc();
  has_state_ = false;
  heap_.clear();
  score_state_valid_ = false;
}

void OpportunisticBatch::Attempt(std::string_view result) {
  // Series looked up once (the registry's label lookup allocates; this runs once per pod).
  for (auto& [name, counter] : attempts_) {
    if (name == result) return counter->Inc();
  }
  metrics::Counter* c = &metrics_.GetCounter(
      "scheduler_batch_attempts_total", "Counts the number of batch attempts, by the result.",
      {{"profile", fwk_.profile_name()}, {"result", std::string(result)}});
  attempts_.emplace_back(result, c);
  c->Inc();
}

size_t OpportunisticBatch::MemoryBytes() const {
  return names_.capacity() * sizeof(Symbol) +
         (raw_.capacity() + norm_.capacity()) * sizeof(int64_t) + heap_.capacity() * sizeof(Entry) +
         extremes_.capacity() * sizeof(Extremes) + signature_.capacity() +
         plugins_.capacity() * sizeof(size_t) + table_.targets.capacity() * sizeof(void*) +
         (table_.raw.capacity() + table_.normalized.capacity() + table_.total.capacity()) *
             sizeof(int64_t) +
         nodes_scratch_.capacity() * sizeof(void*) +
         changed_.capacity() * sizeof(framework::NodeRescore) +
         ns_.capacity() * sizeof(framework::NodeScore);
}

// ---- extremes -----------------------------------------------------------------------------------

void OpportunisticBatch::RecomputeExtremes() {
  const size_t np = plugins_.size();
  extremes_.assign(np, {});
  for (size_t p = 0; p < np; ++p) {
    if (!normalizes_[p]) continue;
    Extremes& x = extremes_[p];
    bool first = true;
    for (const Entry& e : heap_) {
      int64_t v = raw_[e.row * np + p];
      if (first || v > x.max) {
        x.max = v;
        x.max_count = 0;
      }
      if (first || v < x.min) {
        x.min = v;
        x.min_count = 0;
      }
      first = false;
      if (v == x.max) ++x.max_count;
      if (v == x.min) ++x.min_count;
    }
  }
}

bool OpportunisticBatch::RemoveFromExtremes(uint32_t row) {
  const size_t np = plugins_.size();
  bool changed = false;
  for (size_t p = 0; p < np; ++p) {
    if (!normalizes_[p]) continue;
    Extremes& x = extremes_[p];
    int64_t v = raw_[row * np + p];
    if (v == x.max && --x.max_count == 0) changed = true;
    if (v == x.min && --x.min_count == 0) changed = true;
  }
  return changed;
}

bool OpportunisticBatch::AddToExtremes(uint32_t row) {
  const size_t np = plugins_.size();
  bool changed = false;
  for (size_t p = 0; p < np; ++p) {
    if (!normalizes_[p]) continue;
    Extremes& x = extremes_[p];
    int64_t v = raw_[row * np + p];
    if (heap_.empty()) {
      x = {v, v, 1, 1};
      changed = true;
      continue;
    }
    if (v > x.max) {
      x.max = v;
      x.max_count = 1;
      changed = true;
    } else if (v == x.max) {
      ++x.max_count;
    }
    if (v < x.min) {
      x.min = v;
      x.min_count = 1;
      changed = true;
    } else if (v == x.min) {
      ++x.min_count;
    }
  }
  return changed;
}

// ---- normalization ------------------------------------------------------------------------------

namespace {
Status CheckRange(std::string_view plugin, int64_t v) {
  if (v > framework::kMaxNodeScore || v < framework::kMinNodeScore) {
    return Status::Error(std::string("plugin ") + std::string(plugin) +
                         " returns an invalid score " + std::to_string(v));
  }
  return {};
}
}  // namespace

Status OpportunisticBatch::Renormalize(const CycleState& state, const PodInfo& pod) {
  const size_t np = plugins_.size();
  const auto& plugins = fwk_.score_plugins();
  for (Entry& e : heap_) e.total = 0;
  for (size_t p = 0; p < np; ++p) {
    const auto& pe = plugins[plugins_[p]];
    if (normalizes_[p]) {
      ns_.resize(heap_.size());
      for (size_t j = 0; j < heap_.size(); ++j)
        ns_[j] = {names_[heap_[j].row], raw_[heap_[j].row * np + p]};
      Status s = pe.plugin->ScoreExtensions()->NormalizeScore(state, pe.slot, pod, ns_);
      if (!s.ok()) return s;
      for (size_t j = 0; j < heap_.size(); ++j) norm_[heap_[j].row * np + p] = ns_[j].score;
    } else {
      for (const Entry& e : heap_) norm_[e.row * np + p] = raw_[e.row * np + p];
    }
    for (Entry& e : heap_) {
      int64_t v = norm_[e.row * np + p];
      if (Status s = CheckRange(pe.name, v); !s.ok()) return s;
      e.total += v * pe.weight;
    }
  }
  std::make_heap(heap_.begin(), heap_.end(), HeapLess);
  RecomputeExtremes();
  return {};
}

Status OpportunisticBatch::NormalizeOne(const CycleState& state, const PodInfo& pod, uint32_t row) {
  const size_t np = plugins_.size();
  const auto& plugins = fwk_.score_plugins();
  int64_t total = 0;
  for (size_t p = 0; p < np; ++p) {
    const auto& pe = plugins[plugins_[p]];
    int64_t v = raw_[row * np + p];
    if (normalizes_[p]) {
      const Extremes& x = extremes_[p];
      ns_.assign({{names_[row], v}, {Symbol(), x.max}, {Symbol(), x.min}});
      Status s = pe.plugin->ScoreExtensions()->NormalizeScore(state, pe.slot, pod, ns_);
      if (!s.ok()) return s;
      v = ns_[0].score;
    }
    if (Status s = CheckRange(pe.name, v); !s.ok()) return s;
    norm_[row * np + p] = v;
    total += v * pe.weight;
  }
  heap_.push_back({total, Rnd(names_[row]), row});
  std::push_heap(heap_.begin(), heap_.end(), HeapLess);
  return {};
}

void OpportunisticBatch::Materialize(const PodInfo& pod) {
  materialized_ = true;
  // Cross-node scores (Corral): some Score plugin's Rescore hook says a placement changes other
  // nodes' scores for this signature. Decided on every score plugin, skipped ones included (a
  // placement may end a Skip; the plugin set check then flushes).
  cross_node_ = false;
  if (fwk_.handle().features().Enabled(framework::Feature::kCorralBatchingRescoreHook)) {
    for (const auto& e : fwk_.score_plugins()) {
      const framework::RescoreExtension* rx = e.plugin->RescoreExtension();
      if (rx != nullptr && rx->CrossNode(pod)) cross_node_ = true;
    }
  }
  score_state_valid_ = false;
  const framework::ScoreTable& t = table_;
  const size_t n = names_.size();
  plugins_ = t.plugins;
  const size_t np = plugins_.size();
  const auto& sp = fwk_.score_plugins();
  normalizes_.assign(np, false);
  any_normalize_ = false;
  for (size_t p = 0; p < np; ++p) {
    normalizes_[p] = sp[plugins_[p]].plugin->ScoreExtensions() != nullptr;
    any_normalize_ = any_normalize_ || normalizes_[p];
  }
  raw_.resize(n * np);
  norm_.resize(n * np);
  heap_.clear();
  for (size_t j = 0; j < n; ++j) {
    for (size_t p = 0; p < np; ++p) {
      raw_[j * np + p] = t.raw[p * n + j];
      norm_[j * np + p] = t.normalized[p * n + j];
    }
    if (names_[j] == last_chosen_) {
      popped_row_ = static_cast<uint32_t>(j);
      continue;
    }
    heap_.push_back({t.total[j], Rnd(names_[j]), static_cast<uint32_t>(j)});
  }
  std::make_heap(heap_.begin(), heap_.end(), HeapLess);
  RecomputeExtremes();
  // The chosen node was part of the normalization; without it the list may normalize differently.
  dirty_ = false;
  if (any_normalize_) {
    // Re-add the chosen row to the extremes, then remove it: dirty iff it was a unique extreme.
    AddToExtremes(popped_row_);
    dirty_ = RemoveFromExtremes(popped_row_);
  }
}

// ---- GetNodeHint --------------------------------------------------------------------------------

void OpportunisticBatch::BeginRescore() {
  if (rescore_attempts_ == nullptr) {
    rescore_attempts_ = &metrics_.GetCounter("scheduler_batch_rescore_attempts_total",
                                             "Counts the number of batch rescore attempts.",
                                             {{"profile", fwk_.profile_name()}});
  }
  rescore_attempts_->Inc();
  if (wall_clock_ != nullptr) rescore_start_ = wall_clock_->Now();
  rescore_steps_.clear();
}

void OpportunisticBatch::EndRescore() {
  if (wall_clock_ == nullptr) return;
  metrics_
      .GetHistogram("scheduler_batch_rescore_duration_seconds",
                    "Duration of batch rescoring in seconds.", DurationBuckets(),
                    {{"profile", fwk_.profile_name()}})
      .Observe(std::chrono::duration<double>(wall_clock_->Now() - rescore_start_).count());
}

bool OpportunisticBatch::Rescore(CycleState& state, const PodInfo& pod, const NodeInfo& node) {
  BeginRescore();
  auto done = [&] { EndRescore(); };
  // 1. PreScore for the current pod (kube re-runs every PreScore plugin).
  const NodeInfo* one[1] = {&node};
  rescore_steps_.push_back("prescore");
  if (Status s = fwk_.RunPreScorePlugins(state, pod, one); !s.ok()) {
    Flush(batch_flush::kPreScoreError);
    done();
    return false;
  }
  // 2. Raw scores of the last chosen node (kube RunRawScorePlugins: Score only, no normalization).
  rescore_steps_.push_back("score");
  const auto& sp = fwk_.score_plugins();
  const std::vector<bool>& skip = state.skip_score();
  size_t k = 0;
  bool same_plugins = true;
  for (size_t i = 0; i < sp.size(); ++i) {
    if (sp[i].slot < skip.size() && skip[sp[i].slot]) continue;
    if (k >= plugins_.size() || plugins_[k] != i) same_plugins = false;
    ++k;
  }
  if (k != plugins_.size()) same_plugins = false;
  const size_t np = plugins_.size();
  bool score_ok = same_plugins;
  for (size_t p = 0; score_ok && p < np; ++p) {
    const auto& e = sp[plugins_[p]];
    score_ok = e.plugin->Score(state, e.slot, pod, node, &raw_[popped_row_ * np + p]).ok();
  }
  if (!score_ok) {
    Flush(batch_flush::kRescoreError);
    done();
    return false;
  }
  // 3. Normalize over the cached raw scores, 4. re-sort.
  rescore_steps_.push_back("normalize");
  const bool dirty = AddToExtremes(popped_row_) || dirty_;
  Status ns;
  if (dirty) {
    heap_.push_back({0, Rnd(names_[popped_row_]), popped_row_});
    ns = Renormalize(state, pod);
    dirty_ = false;
  } else {
    ns = NormalizeOne(state, pod, popped_row_);
  }
  rescore_steps_.push_back("sort");
  if (!ns.ok()) {
    Flush(batch_flush::kNormalizeError);
    done();
    return false;
  }
  done();
  return true;
}

bool OpportunisticBatch::CrossNodeRescore(CycleState& state, const PodInfo& pod,
                                          const NodeInfo& last, const framework::Snapshot& snapshot,
                                          bool fresh) {
  BeginRescore();
  const size_t np = plugins_.size();
  // Rows' NodeInfos: a node removed or replaced since the batch was stored would leave a dangling
  // pointer, and any event besides the last bind may have done that: look them up again.
  if (!fresh) {
    for (const Entry& e : heap_) {
      const NodeInfo* n = snapshot.Get(names_[e.row]);
      if (n == nullptr) {
        Flush(batch_flush::kNodeMissing);
        EndRescore();
        return false;
      }
      table_.targets[e.row] = n;
    }
  }
  table_.targets[popped_row_] = &last;
  // The last chosen node: still feasible ⇒ back in the list, rescored below.
  const bool last_feasible =
      names_[popped_row_] == last_chosen_ && fwk_.RunFilterPlugins(state, pod, last).ok();
  if (last_feasible) heap_.push_back({0, Rnd(names_[popped_row_]), popped_row_});
  // The feasible nodes as a full cycle would find them: the list (heap order) plus the last
  // chosen node.
  nodes_scratch_.clear();
  for (const Entry& e : heap_) nodes_scratch_.push_back(table_.targets[e.row]);

  // 1. PreScore: incrementally on the kept state when only the last pod's bind happened since it
  // was computed (CorralIncrementalPreScore), else from scratch on the pod's state.
  const bool incremental =
      fresh && score_state_valid_ && last_pod_ != nullptr &&
      fwk_.handle().features().Enabled(framework::Feature::kCorralIncrementalPreScore) &&
      std::find(last.pods().begin(), last.pods().end(), last_pod_) != last.pods().end();
  CycleState* ss = &state;
  Status ps;
  if (incremental) {
    rescore_steps_.push_back("prescore_incremental");
    ss = &score_state_;
    ps = fwk_.RunPreScorePluginsAfterAdd(score_state_, pod, *last_pod_, last, nodes_scratch_, true,
                                         nullptr);
    ++incremental_prescores_;
  } else {
    rescore_steps_.push_back("prescore");
    ps = fwk_.RunPreScorePlugins(state, pod, nodes_scratch_);
  }
  if (!ps.ok()) {
    Flush(batch_flush::kPreScoreError);
    EndRescore();
    return false;
  }
  // 2. The same Score plugins as the cached scores (a Skip that started or ended cannot
  // be patched).
  const auto& sp = fwk_.score_plugins();
  const std::vector<bool>& skip = ss->skip_score();
  size_t k = 0;
  bool same_plugins = true;
  for (size_t i = 0; i < sp.size(); ++i) {
    if (sp[i].slot < skip.size() && skip[sp[i].slot]) continue;
    if (k >= np || plugins_[k] != i) same_plugins = false;
    ++k;
  }
  if (k != np) same_plugins = false;
  // 3. Raw scores: node-local plugins rescore the last chosen node; cross-node plugins report every
  // node whose raw score changed (the Rescore hook).
  rescore_steps_.push_back("score");
  bool score_ok = same_plugins;
  bool hooked = false;
  for (size_t p = 0; score_ok && p < np; ++p) {
    const auto& e = sp[plugins_[p]];
    const framework::RescoreExtension* rx = e.plugin->RescoreExtension();
    if (rx != nullptr && rx->CrossNode(pod)) {
      if (!hooked) rescore_steps_.push_back("rescore_hook");
      hooked = true;
      changed_.clear();
      score_ok = rx->Rescore(*ss, e.slot, pod, last, nodes_scratch_, &changed_).ok();
      for (const framework::NodeRescore& c : changed_) {
        if (c.index >= heap_.size()) {
          score_ok = false;
          break;
        }
        raw_[heap_[c.index].row * np + p] = c.raw;
      }
      hook_rescored_nodes_ += static_cast<int64_t>(changed_.size());
    } else if (last_feasible) {
      score_ok = e.plugin->Score(*ss, e.slot, pod, last, &raw_[popped_row_ * np + p]).ok();
    }
  }
  if (!score_ok) {
    Flush(batch_flush::kRescoreError);
    EndRescore();
    return false;
  }
  // 4. Re-normalize every plugin over the list, 5. re-sort.
  rescore_steps_.push_back("normalize");
  Status ns = Renormalize(*ss, pod);
  rescore_steps_.push_back("sort");
  dirty_ = false;
  if (!ns.ok()) {
    Flush(batch_flush::kNormalizeError);
    EndRescore();
    return false;
  }
  // Keep the PreScore state for the next pod (incremental PreScore).
  if (!incremental &&
      fwk_.handle().features().Enabled(framework::Feature::kCorralIncrementalPreScore)) {
    score_state_ = state.Clone();
  }
  score_state_valid_ = true;
  EndRescore();
  return true;
}

bool OpportunisticBatch::Compatible(CycleState& state, const PodInfo& pod,
                                    const std::optional<std::string>& signature, bool nominated,
                                    int64_t cycle, const framework::Snapshot& snapshot,
                                    bool fresh) {
  if (!has_state_ || (materialized_ && heap_.empty() && !cross_node_)) return false;
  if (cycle != last_cycle_ + 1) {
    Flush(batch_flush::kPodSkipped);
    return false;
  }
  if (!last_succeeded_) {
    Flush(batch_flush::kPodFailed);
    return false;
  }
  if (nominated) {
    Flush(batch_flush::kPodNominated);
    return false;
  }
  if (!signature.has_value() || *signature != signature_) {
    Flush(batch_flush::kPodIncompatible);
    return false;
  }
  if (clock_.Now() > creation_ + kMaxBatchAge) {
    Flush(batch_flush::kExpired);
    return false;
  }
  if (!materialized_) Materialize(pod);
  const NodeInfo* last = snapshot.Get(last_chosen_);
  if (last == nullptr) {
    Flush(batch_flush::kNodeMissing);
    return false;
  }
  if (cross_node_) {
    if (!CrossNodeRescore(state, pod, *last, snapshot, fresh)) return false;
    return !heap_.empty();
  }
  // The last chosen node: infeasible ⇒ it stays out of the list; still feasible ⇒ rescored in
  // place. (Rows are only re-used for the node popped last; a node chosen by a full cycle is not in
  // the list.)
  if (names_[popped_row_] == last_chosen_ && fwk_.RunFilterPlugins(state, pod, *last).ok()) {
    if (!Rescore(state, pod, *last)) return false;
  }
  if (dirty_) {
    if (Status s = fwk_.RunPreScorePlugins(state, pod, std::span<const NodeInfo* const>(&last, 1));
        !s.ok()) {
      Flush(batch_flush::kPreScoreError);
      return false;
    }
    if (Status s = Renormalize(state, pod); !s.ok()) {
      Flush(batch_flush::kNormalizeError);
      return false;
    }
    dirty_ = false;
  }
  return !heap_.empty();
}

Symbol OpportunisticBatch::GetNodeHint(CycleState& state, const PodInfo& pod,
                                       const std::optional<std::string>& signature, bool nominated,
                                       int64_t cycle, const framework::Snapshot& snapshot,
                                       uint64_t cluster_epoch) {
  TimePoint start;
  if (wall_clock_ != nullptr) start = wall_clock_->Now();
  // Nothing but the last pod's bind happened since the previous call.
  const bool fresh = have_epoch_ && cluster_epoch == epoch_ + 1;
  epoch_ = cluster_epoch;
  have_epoch_ = true;
  Symbol hint;
  if (Compatible(state, pod, signature, nominated, cycle, snapshot, fresh)) {
    std::pop_heap(heap_.begin(), heap_.end(), HeapLess);
    popped_row_ = heap_.back().row;
    hint = names_[popped_row_];
    heap_.pop_back();
    if (any_normalize_ && RemoveFromExtremes(popped_row_)) dirty_ = true;
  } else {
    Attempt("no_hint");
  }
  if (wall_clock_ != nullptr) {
    metrics_
        .GetHistogram(
            "scheduler_get_node_hint_duration_seconds", "Duration of GetNodeHint in seconds.",
            DurationBuckets(),
            {{"hinted", hint.empty() ? "no_hint" : "hint"}, {"profile", fwk_.profile_name()}})
        .Observe(std::chrono::duration<double>(wall_clock_->Now() - start).count());
  }
  return hint;
}

// ---- StoreScheduleResults -----------------------------------------------------------------------

void OpportunisticBatch::CycleFailed(int64_t cycle) {
  last_cycle_ = cycle;
  last_chosen_ = Symbol();
  last_succeeded_ = false;
  last_pod_ = nullptr;
}

void OpportunisticBatch::StoreScheduleResults(const std::optional<std::string>& signature,
                                              Symbol hinted, Symbol chosen,
                                              framework::ScoreTable* scores, int64_t cycle,
                                              const PodInfo* pod) {
  TimePoint start;
  if (wall_clock_ != nullptr) start = wall_clock_->Now();
  auto done = [&] {
    if (wall_clock_ == nullptr) return;
    metrics_
        .GetHistogram("scheduler_store_schedule_results_duration_seconds",
                      "Duration of StoreScheduleResults in seconds.", DurationBuckets(),
                      {{"profile", fwk_.profile_name()}})
        .Observe(std::chrono::duration<double>(wall_clock_->Now() - start).count());
  };
  last_cycle_ = cycle;
  last_chosen_ = chosen;
  last_succeeded_ = true;
  last_pod_ = pod;
  if (!hinted.empty() && hinted == chosen) {
    Attempt("hint_used");
    ++batched_pods_;
    if (cross_node_) ++batched_cross_node_pods_;
    done();
    return;
  }
  if (!hinted.empty()) Attempt("hint_not_used");
  const size_t n = scores == nullptr ? 0 : scores->n();
  if (!signature.has_value() || n < 2) {
    Flush(!signature.has_value() && n >= 2 ? batch_flush::kPodNotBatchable
                                           : batch_flush::kEmptyList);
    done();
    return;
  }
  // A new batch: every scored node but the chosen one. The table is taken over (swapped, O(1)) and
  // only turned into the sorted list when a pod with the same signature asks for a hint
  // (Materialize), so a batch that is flushed right away (alternating signatures) costs
  // almost nothing.
  has_state_ = true;
  materialized_ = false;
  cross_node_ = false;
  score_state_valid_ = false;
  signature_ = *signature;
  creation_ = clock_.Now();
  source_namespace_ = pod != nullptr ? pod->pod->meta.namespace_ : Symbol();
  source_name_ = pod != nullptr ? pod->pod->meta.name : Symbol();
  std::swap(table_, *scores);
  names_.resize(n);
  for (size_t j = 0; j < n; ++j) names_[j] = table_.targets[j]->name();
  heap_.clear();
  done();
}

std::vector<std::pair<std::string, int64_t>> BatchFlushCounts(const metrics::Registry& metrics) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (std::string_view reason : batch_flush::kAll) {
    auto n = static_cast<int64_t>(metrics.CounterSum("scheduler_batch_cache_flushed_total",
                                                     {{"reason", std::string(reason)}}));
    if (n > 0) out.emplace_back(reason, n);
  }
  return out;
}

}  // namespace corral::scheduler
