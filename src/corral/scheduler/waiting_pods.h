#pragma once
// WaitingPods: pods held at Permit (kube's framework/runtime/waiting_pods_map.go). A waiting pod
// stays assumed in the cache with its CycleState; its binding is deferred until every plugin that
// asked it to wait has allowed it, one of them rejects it, or a plugin's timeout passes on the
// injected clock. Outcomes are recorded here and acted on by the scheduler between cycles
// (ProcessWaitingOutcomes), so a plugin may Allow/Reject from inside another pod's Permit.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/core/clock.h"
#include "corral/framework/cycle_state.h"
#include "corral/framework/framework.h"

namespace corral::scheduler {

struct QueuedPod;

struct WaitingPod {
  enum class Outcome : uint8_t { kWaiting, kAllowed, kRejected };
  QueuedPod* qp = nullptr;
  framework::Framework* fwk = nullptr;
  framework::CycleState state;
  Symbol node;
  // Plugins still to allow, each with its own deadline and the timeout it asked for (for
  // the message).
  struct Pending {
    std::string_view plugin;
    TimePoint deadline;
    Duration timeout;
  };
  std::vector<Pending> pending;
  Outcome outcome = Outcome::kWaiting;
  std::string_view reject_plugin;
  std::string reject_message;
  TimePoint wall_start;  // for the attempt duration metric (wall clock only)
  uint64_t order = 0;
};

class WaitingPods {
 public:
  // Starts waiting. REQUIRES: the pod is not waiting.
  WaitingPod& Add(const framework::PodInfo* pod, std::unique_ptr<WaitingPod> wp);
  WaitingPod* Get(const framework::PodInfo* pod);
  bool Contains(const framework::PodInfo* pod) const { return by_pod_.contains(pod); }
  size_t size() const { return by_pod_.size(); }
  // Removes and returns the entry (resolved or deleted pods).
  std::unique_ptr<WaitingPod> Take(const framework::PodInfo* pod);

  // Allow for `plugin`; the pod becomes kAllowed when no plugin is pending. False if not waiting.
  bool Allow(const framework::PodInfo* pod, std::string_view plugin);
  // Rejects (first outcome wins). False if not waiting.
  bool Reject(const framework::PodInfo* pod, std::string_view plugin, std::string message);
  // Rejects every still-waiting pod whose earliest pending deadline is ≤ now, with kube's
  // timeout message.
  void ExpireUntil(TimePoint now);
  // The earliest deadline of a still-waiting pod.
  std::optional<TimePoint> NextDeadline() const;

  // Still-waiting pods, in the order they started waiting.
  template <class F>
  void ForEachWaiting(F&& f) const {
    for (const auto& [order, pod] : order_) {
      (void)order;
      if (by_pod_.at(pod)->outcome == WaitingPod::Outcome::kWaiting) f(*pod);
    }
  }
  // Pods with an outcome, in the order the outcomes were reached; clears the list.
  std::vector<const framework::PodInfo*> TakeResolved();

 private:
  absl::flat_hash_map<const framework::PodInfo*, std::unique_ptr<WaitingPod>> by_pod_;
  std::map<uint64_t, const framework::PodInfo*> order_;
  std::vector<const framework::PodInfo*> resolved_;
  uint64_t next_order_ = 0;
};

// Go's time.Duration String() ("5m0s", "1.5s", "300ms"), for kube's messages.
std::string GoDuration(Duration d);

}  // namespace corral::scheduler
