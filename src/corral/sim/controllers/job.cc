// The Job controller: at most min(parallelism, completions still to go) pods at once, named
// "<job>-<5 random>" or, Indexed, "<job>-<index>-<5 random>" with the completion-index label and
// annotation; each runs for the template's corral.dev/duration and then succeeds. A pod that goes
// any other way (evicted, preempted, deleted) is a failure: the Job replaces it after kube's pod
// failure backoff (10 s doubling per failure since the last success, at most 10 min), and fails
// once more than backoffLimit pods have failed.

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "corral/sim/controllers/controllers.h"
#include "corral/sim/controllers/names.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim::controllers {

namespace {

constexpr int64_t kPodFailureBackoffNs = 10 * kSecond;
constexpr int64_t kMaxPodFailureBackoffNs = 10 * 60 * kSecond;

// kube's backoffRecord.getRemainingTime: 0 without failures since the last success, else the
// backoff (10 s × 2^(failures−1), at most 10 min) left after the last failure.
int64_t RemainingBackoff(const ControllerState& c, int64_t now) {
  if (c.failures_since_success == 0) return 0;
  int64_t backoff = kPodFailureBackoffNs;
  for (int32_t i = 1; i < c.failures_since_success && backoff < kMaxPodFailureBackoffNs; ++i)
    backoff *= 2;
  backoff = std::min(backoff, kMaxPodFailureBackoffNs);
  const int64_t left = c.last_failure_ns + backoff - now;
  return std::max<int64_t>(0, left);
}

void Finish(Controllers& ctl, ControllerState& c, std::string_view how) {
  World& w = ctl.world();
  c.finished = true;
  std::vector<uint32_t> active = c.live;
  for (uint32_t slot : active) ctl.DeletePod(c, slot, "job-finished");
  w.Log(how == "Complete" ? "job-complete" : "job-failed",
        fmt::format("{}/{} succeeded={} failed={}", w.in.Str(c.spec->meta.namespace_),
                    w.in.Str(c.spec->meta.name), c.succeeded, c.failed));
}

}  // namespace

void JobPodEnded(Controllers& ctl, ControllerState& c, int32_t index, PodEnd why) {
  if (why == PodEnd::kSucceeded) {
    c.failures_since_success = 0;
    if (c.spec->indexed) {
      if (index >= 0 && !c.index_done[static_cast<size_t>(index)]) {
        c.index_done[static_cast<size_t>(index)] = true;
        ++c.succeeded;
      }
    } else {
      ++c.succeeded;
    }
    return;
  }
  ++c.failed;
  ++c.failures_since_success;
  c.last_failure_ns = ctl.world().now;
}

void ReconcileJob(Controllers& ctl, ControllerState& c) {
  World& w = ctl.world();
  const api::Controller& job = *c.spec;
  if (c.finished || job.suspend) return;
  Interner& in = w.in;
  const int32_t active = static_cast<int32_t>(c.live.size());
  if (c.failed > job.backoff_limit) {
    Finish(ctl, c, "BackoffLimitExceeded");
    return;
  }
  // Completion: every completion done (or, a work queue without completions, a success and no
  // pod left running).
  if (job.completions.has_value() ? c.succeeded >= *job.completions
                                  : c.succeeded > 0 && active == 0) {
    Finish(ctl, c, "Complete");
    return;
  }
  int32_t want = c.replicas;  // parallelism
  if (job.completions.has_value()) {
    want = std::min(want, *job.completions - c.succeeded);
  } else if (c.succeeded > 0) {
    want = 0;  // a work queue: no new pods once one succeeded
  }
  if (active >= want) return;
  if (const int64_t left = RemainingBackoff(c, w.now); left > 0) {
    ctl.Wake(c, w.now + left);
    return;
  }
  const Workload& wk = w.spec.workloads[c.workload];
  WorkloadState& ws = w.pods->workload(c.workload);
  const std::string base = std::string(in.Str(job.meta.name)) + "-";
  if (!job.indexed) {
    for (int32_t i = active; i < want && w.error.empty(); ++i) {
      ctl.CreatePod(c, GenerateName(base, c.rng), -1, wk.duration.SampleNs(ws.rng),
                    [](api::Pod&) {});
    }
    return;
  }
  // Indexed: the lowest indexes neither succeeded nor active.
  std::vector<bool> busy = c.index_done;
  for (uint32_t slot : c.live) {
    const int32_t o = w.pods->Pod(slot).ordinal;
    if (o >= 0) busy[static_cast<size_t>(o)] = true;
  }
  const Symbol index_key = in.Intern("batch.kubernetes.io/job-completion-index");
  int32_t made = active;
  for (int32_t idx = 0; idx < *job.completions && made < want && w.error.empty(); ++idx) {
    if (busy[static_cast<size_t>(idx)]) continue;
    const Symbol value = in.Intern(std::to_string(idx));
    ctl.CreatePod(c, GenerateName(JobIndexedPrefix(in.Str(job.meta.name), idx), c.rng), idx,
                  wk.duration.SampleNs(ws.rng), [&](api::Pod& p) {
                    p.meta.labels.Set(index_key, value);
                    p.meta.annotations.emplace_back(index_key, std::string(in.Str(value)));
                  });
    ++made;
  }
}

}  // namespace corral::sim::controllers
