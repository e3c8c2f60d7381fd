#include "corral/sim/sampler.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "corral/api/controllers.h"
#include "corral/api/well_known.h"
#include "corral/metrics/merge.h"
#include "corral/scheduler/batch.h"
#include "corral/sim/fleet_lane.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim {

namespace {

constexpr size_t kMaxSamples = 1000;

}  // namespace

void Sampler::Setup() {
  const SimSpec& spec = w_.spec;
  std::map<std::string, Symbol> extended;
  auto scan = [&](const api::Node& n) {
    for (const auto& [name, q] : n.allocatable) {
      std::string_view s = w_.in.Str(name);
      if (s.find('/') != std::string_view::npos && !s.starts_with("hugepages-"))
        extended.emplace(s, name);
    }
  };
  for (const auto& n : spec.initial_nodes) scan(n);
  for (const auto& p : spec.pools) {
    if (p.render) {
      auto probe = p.render(0);
      if (probe.ok()) scan(*probe);
    } else {
      scan(p.tmpl);
    }
  }
  auto& tracked = w_.tracked;
  tracked.push_back({"cpu", api::wk::kCpu, true, "cores", 1e-3});
  tracked.push_back({"memory", api::wk::kMemory, false, "GiB", 1.0 / (1024.0 * 1024 * 1024)});
  for (const auto& [name, sym] : extended) {
    if (tracked.size() + 1 >= kMaxTracked) break;
    tracked.push_back({name, sym, false, "", 1});
  }
  w_.pods_res = tracked.size();
  tracked.push_back({"pods", api::wk::kPods, false, "pods", 1});
  for (const auto& t : tracked) {
    if (t.sym != api::wk::kPods && w_.res.heat_resources.size() < 3)
      w_.res.heat_resources.push_back(t.name);
  }
  sample_interval_ = spec.sample_interval_ns;
  if (sample_interval_ <= 0) {
    sample_interval_ =
        spec.duration_ns > 0 ? std::max<int64_t>(kSecond, spec.duration_ns / 720) : 10 * kSecond;
  }
}

void Sampler::OnSampleTick() {
  sample_due_ = true;
  // Saturates: past the end of representable time there is no next sample.
  next_sample_ = SaturatingAdd(w_.now, sample_interval_);
  if (next_sample_ != kForeverNs) w_.Push(next_sample_, EventKind::kSampleTick);
}

void Sampler::SampleWhileBusy() {
  if (sample_due_ && w_.now >= next_sample_ - sample_interval_ + sample_interval_ / 2) {
    sample_due_ = false;  // a member is busy for a long time: sample while it works
    TakeSample();
  }
}

void Sampler::SampleIfDue() {
  if (sample_due_) {
    sample_due_ = false;
    TakeSample();
  }
}

void Sampler::AdvanceOverall(int64_t t) {
  if (next_overall_tick_ > t) return;
  // Ticks at next, next + 1 s, ..., up to t: fed in one call, however many seconds that is.
  const int64_t n = (t - next_overall_tick_) / kSecond + 1;
  overall_.TickMany(next_overall_tick_, kSecond, n, w_.res.pods_scheduled);
  next_overall_tick_ = SaturatingAdd(next_overall_tick_, SaturatingMul(n, kSecond));
}

void Sampler::StartCollecting(bool all) {
  w_.window_all = all;
  w_.perf.collector.Start(w_.now, w_.perf.measured_scheduled);
  w_.perf.start_ns = w_.now;
  w_.Push(SaturatingAdd(w_.now, w_.opts.collector_interval_ns), EventKind::kCollectorTick);
}

void Sampler::StopCollecting() {
  if (!w_.perf.collector.running()) return;
  w_.perf.collector.Stop();
  w_.perf.stop_ns = w_.now;
  w_.window_all = false;
  w_.window_op = nullptr;
}

void Sampler::OnCollectorTick() {
  if (!w_.perf.collector.running()) return;
  w_.perf.collector.Tick(w_.now, w_.perf.measured_scheduled);
  w_.Push(SaturatingAdd(w_.now, w_.opts.collector_interval_ns), EventKind::kCollectorTick);
}

void Sampler::TakeSample() {
  RunResult& res = w_.res;
  Sample s;
  s.t_ns = w_.now;
  int64_t pending = 0;
  for (const auto& m : w_.members) {
    s.nodes += static_cast<int32_t>(m->nodes_alive);
    s.nodes_schedulable += static_cast<int32_t>(m->nodes_schedulable);
    pending += static_cast<int64_t>(m->sched().NumPendingPods());
    s.cycles += m->cycles;
    s.batched += m->sched().stats().batched;
    s.batch_flushes += static_cast<int64_t>(
        m->sched().metrics().CounterSum("scheduler_batch_cache_flushed_total"));
    s.running += m->running + m->binding;
  }
  s.pending = pending;
  s.arrived = res.pods_arrived;
  s.scheduled = res.pods_scheduled;
  s.completed = res.pods_completed;
  s.evicted = res.pods_evicted;
  s.unschedulable_attempts = res.unschedulable_attempts;
  s.preempted = res.pods_preempted;
  for (size_t r = 0; r < w_.tracked.size(); ++r) {
    int64_t alloc = 0, req = 0;
    for (const auto& m : w_.members) {
      alloc += m->alloc_total[r];
      req += m->req_total[r];
    }
    s.util[r] = alloc > 0
                    ? static_cast<float>(static_cast<double>(req) / static_cast<double>(alloc))
                    : 0.0F;
  }
  res.samples.push_back(s);
  if (w_.fleet != nullptr) w_.fleet->Sample();
  if (!w_.spec.clusters.empty()) {
    for (const auto& m : w_.members) {
      m->sample_pending.push_back(static_cast<int64_t>(m->sched().NumPendingPods()));
      std::array<float, kMaxTracked> u{};
      for (size_t r = 0; r < w_.tracked.size(); ++r) {
        u[r] = m->alloc_total[r] > 0 ? static_cast<float>(static_cast<double>(m->req_total[r]) /
                                                          static_cast<double>(m->alloc_total[r]))
                                     : 0.0F;
      }
      m->sample_util.push_back(u);
    }
  }
  for (size_t h = 0; h < res.heat_resources.size(); ++h) {
    std::vector<uint8_t> row;
    for (const auto& m : w_.members) {
      for (size_t i = 0; i < m->node_slots(); ++i) {
        const NodeSlot& ns = m->node(static_cast<uint32_t>(i));
        if (!ns.alive) {
          row.push_back(255);
        } else if (ns.alloc[h] <= 0) {
          row.push_back(254);  // the node has none of this resource
        } else {
          double u = static_cast<double>(ns.req[h]) / static_cast<double>(ns.alloc[h]);
          row.push_back(static_cast<uint8_t>(std::clamp(u, 0.0, 1.0) * 200.0 + 0.5));
        }
      }
    }
    res.heat[h].push_back(std::move(row));
  }
  if (res.samples.size() >= 2 * kMaxSamples) {
    // Halve the resolution: keep every other sample, double the interval.
    size_t j = 0;
    for (size_t i = 0; i < res.samples.size(); i += 2) {
      res.samples[j] = res.samples[i];
      for (auto& h : res.heat) {
        if (i < h.size()) h[j] = std::move(h[i]);
      }
      ++j;
    }
    res.samples.resize(j);
    for (const auto& m : w_.members) {
      for (size_t i = 0, k = 0; i < m->sample_pending.size(); i += 2, ++k) {
        m->sample_pending[k] = m->sample_pending[i];
        m->sample_util[k] = m->sample_util[i];
      }
      m->sample_pending.resize(std::min(m->sample_pending.size(), j));
      m->sample_util.resize(std::min(m->sample_util.size(), j));
    }
    for (auto& h : res.heat) {
      if (h.size() > j) h.resize(j);
    }
    sample_interval_ = SaturatingMul(sample_interval_, 2);
  }
}

void Sampler::Finish(RunResult& r) {
  const SimSpec& spec = w_.spec;
  const int64_t now = w_.now;
  if (w_.res.samples.empty() || w_.res.samples.back().t_ns < now) TakeSample();
  r = std::move(w_.res);
  r.name = spec.name;
  r.description = spec.description;
  r.source = spec.source;
  r.seed = spec.seed;
  switch (spec.cost.mode) {
    case CostModel::Mode::kInstant:
      r.cost_model = "instant";
      break;
    case CostModel::Mode::kMeasured:
      r.cost_model = "measured";
      break;
    case CostModel::Mode::kFixed:
      r.cost_model = "fixed " + FormatGoDuration(spec.cost.fixed_ns);
      break;
  }
  r.bind_latency = spec.bind_latency.ToString();
  r.end_ns = now;
  r.sample_interval_ns = sample_interval_;
  r.resources = w_.tracked;
  int64_t sched_wall_ns = 0;
  std::map<std::string, int64_t> reasons;
  for (const auto& m : w_.members) {
    r.nodes_end += m->nodes_alive;
    r.nodes_max += m->nodes_max;
    r.cycles += m->cycles;
    r.errors += m->sched().stats().errors;
    r.pods_running_end += m->running + m->binding;
    r.pods_pending_end += static_cast<int64_t>(m->sched().NumPendingPods());
    r.batched += m->sched().stats().batched;
    sched_wall_ns += m->sched_wall_ns;
    for (const auto& [pod, msg] : m->sched().PendingPods()) {
      if (!msg.empty()) {
        ++r.pods_unschedulable_end;
        ++reasons[msg];
      }
    }
    r.slot_names.insert(r.slot_names.end(), m->slot_names.begin(), m->slot_names.end());
    r.slot_pools.insert(r.slot_pools.end(), m->slot_pools.begin(), m->slot_pools.end());
  }
  for (auto& [msg, n] : reasons) r.pending_reasons.emplace_back(msg, n);
  std::stable_sort(r.pending_reasons.begin(), r.pending_reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  // Pods and groups still waiting at the end: censored observations at their wait so far.
  Pods& pods = *w_.pods;
  std::vector<CensoredWaits> member_pending(w_.members.size());
  for (uint32_t i = 0; i < pods.slots(); ++i) {
    const PodSlot& s = pods.Pod(i);
    if (s.state != PodState::kPending) continue;
    const int64_t waited = now - s.arrival_ns;
    WorkloadStats& ws = pods.workload(s.workload).stats;
    ++ws.pods_pending_end;
    for (CensoredWaits* c : {&r.pending_waits, &ws.pending_waits, &member_pending[s.member]}) {
      ++c->count;
      c->waited.Add(waited);
    }
  }
  for (uint32_t g = 0; g < pods.groups(); ++g) {
    const GroupSlot& gs = pods.group(g);
    if (!gs.alive || gs.complete) continue;
    const int64_t waited = now - gs.arrival_ns;
    CensoredWaits& wg = pods.workload(gs.workload).stats.waiting_groups;
    ++wg.count;
    wg.waited.Add(waited);
    if (spec.workloads[gs.workload].kind == WorkloadKind::kGang) {
      ++r.waiting_gangs.count;
      r.waiting_gangs.waited.Add(waited);
    }
  }
  r.latency_with_pending = r.latency;
  r.latency_with_pending.Merge(r.pending_waits.waited);
  r.gang_wait_with_waiting = r.gang_wait;
  r.gang_wait_with_waiting.Merge(r.waiting_gangs.waited);
  for (size_t w = 0; w < pods.workloads(); ++w) {
    WorkloadStats st = std::move(pods.workload(static_cast<uint32_t>(w)).stats);
    st.latency_with_pending = st.latency;
    st.latency_with_pending.Merge(st.pending_waits.waited);
    st.group_wait_with_waiting = st.group_wait;
    st.group_wait_with_waiting.Merge(st.waiting_groups.waited);
    st.name = spec.workloads[w].name;
    switch (spec.workloads[w].kind) {
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
    if (const uint32_t c = spec.workloads[w].controller; c != kNone)
      st.controller = std::string(api::ControllerKindName(spec.controllers[c].kind));
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
  for (size_t c = 0; c < w_.spec.clusters.size(); ++c) {
    Member& m = *w_.members[c];
    ClusterResult cr;
    cr.name = w_.spec.clusters[c].name;
    cr.nodes_end = m.nodes_alive;
    cr.pods_scheduled = m.scheduled;
    cr.pods_pending_end = static_cast<int64_t>(m.sched().NumPendingPods());
    cr.pods_running_end = m.running + m.binding;
    cr.cycles = m.cycles;
    cr.latency = m.latency;
    cr.pending_waits = std::move(member_pending[c]);
    cr.latency_with_pending = cr.latency;
    cr.latency_with_pending.Merge(cr.pending_waits.waited);
    cr.pending = std::move(m.sample_pending);
    cr.util = std::move(m.sample_util);
    for (size_t k = 0; k < r.resources.size() && !cr.util.empty(); ++k) {
      double sum = 0;
      for (const auto& u : cr.util) sum += u[k];
      cr.mean_util[k] = sum / static_cast<double>(cr.util.size());
    }
    r.clusters.push_back(std::move(cr));
  }
  // Scheduled pods per virtual second, with kube's collector rules over the whole run.
  AdvanceOverall(now);
  r.throughput = overall_.Summarize();
  r.preemption = {
      true,
      "victims are deleted after their termination grace period on the virtual clock and, "
      "like evicted pods, recreated by their workload"};
  const scheduler::Scheduler& sched0 = w_.members.front()->sched();
  if (spec.gates.Enabled(framework::Feature::kOpportunisticBatching)) {
    r.batching = {
        true,
        "opportunistic batching (KEP-5598): pods placed on the previous pod's cached node "
        "list; flushes by kube's reasons"};
    r.batch_flushes = scheduler::BatchFlushCounts(sched0.metrics());
  } else {
    r.batching = {false, "OpportunisticBatching is disabled (feature gate)"};
  }
  const framework::Framework* fwk = sched0.profile("default-scheduler");
  const bool gang_plugin = fwk != nullptr && fwk->GetPlugin("GangScheduling") != nullptr;
  if (gang_plugin) {
    r.gang_scheduling = {
        true, spec.gang_workload_cycle
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
  if (w_.spec.clusters.empty()) {
    r.scheduler_metrics = sched0.metrics().PrometheusText();
  } else {
    // Every member's kube-scheduler metrics, each series labelled with its cluster.
    std::vector<std::pair<std::string, std::string>> texts;
    for (size_t c = 0; c < w_.spec.clusters.size(); ++c) {
      texts.emplace_back(w_.spec.clusters[c].name,
                         w_.members[c]->sched().metrics().PrometheusText());
    }
    r.scheduler_metrics = metrics::MergePrometheusText("cluster", texts);
  }
  for (const auto& n : spec.notes) r.notes.push_back(n);
  r.scheduler_wall_seconds = static_cast<double>(sched_wall_ns) / 1e9;
}

}  // namespace corral::sim
