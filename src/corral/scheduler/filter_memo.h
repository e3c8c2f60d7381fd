#pragma once
// FilterMemo (Corral-only; feature gate CorralFilterMemo, docs/deviations.md): the filter verdict
// of every node from earlier filter passes, so that a pass for an equivalent pod filters only the
// nodes that changed since. kube filters every node in every attempt; a pod that fits nowhere and
// is requeued on each pod deletion (NodeResourcesFit's queueing hint) then costs a full pass per
// retry although only one node changed.
//
// Soundness. A verdict (RunFilterPluginsWithNominatedPods) is reused only when all of its inputs
// are unchanged:
//   - the pod, up to equivalence: same profile, same signature (Framework::Signature), same
//   priority
//     (it selects the nominated pods of the two-pass evaluation) and same
//     Framework::NodeLocalFilterKey (every filter that runs is node-local, the same ones skipped).
//     That is the contract of NodeLocalFilterKey. Unsigned pods are never memoized: their filter
//     inputs have no key (and pod slots are reused, so a pod address is no identity either).
//   - the node: the same NodeInfo object holding the same api::Node at the same
//     NodeInfo::generation(). Generations are drawn from one process-wide counter, so a node
//     removed and re-added (even at a reused address) never matches an old entry.
//   - the node's nominated pods: no nomination was added to or removed from the node since the
//     verdict was computed (Nominator versions; see Table::Find). The evaluated pod's own nominated
//     node is never memoized (the two-pass evaluation leaves the pod itself out, so its verdict
//     there differs from an equivalent pod's).
// Decisions, messages and metrics are therefore identical with the gate on or off; only the number
// of Filter calls changes.
//
// Scope (Scheduler::FindNodesThatPassFilters): passes over the whole node list only (no
// PreFilterResult, no placement domain), and not while a pod-group member is nominated. A key gets
// a table after a pass in which every node failed, filled from that pass's statuses; later passes
// (successful ones included) read and update it. Reusing a verdict replaces only its computation:
// nodes are visited in the same order and the pass stops at the same node.
//
// Memory: one Table per key, least recently used tables evicted beyond a budget of node slots;
// a table is a flat vector indexed by node position plus the distinct statuses it holds.

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/framework/node_info.h"
#include "corral/framework/status.h"

namespace corral::framework {
class Framework;
}

namespace corral::scheduler {

class FilterMemo {
 public:
  // Pods with equal keys get equal verdicts on an unchanged node (see the file comment).
  struct Key {
    const framework::Framework* fwk = nullptr;
    std::string signature;
    int32_t priority = 0;
    uint64_t filter_key = 0;

    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.fwk, k.signature, k.priority, k.filter_key);
    }
  };

  // The verdicts for one key, by node position in the snapshot's node list.
  class Table {
   public:
    // The memoized verdict for `node` at position `pos`, or null. `nomination_version` is the
    // node's current nomination version and `nomination_clock` the nominator's clock (Nominator):
    // a verdict stored at clock t is valid while the node's version is ≤ t. A hit re-stamps the
    // slot with the current clock, so later lookups are free until a nomination changes.
    template <class VersionFn>
    const framework::Status* Find(size_t pos, const framework::NodeInfo* node,
                                  uint64_t nomination_clock, VersionFn&& nomination_version) {
      if (pos >= slots_.size()) return nullptr;
      Slot& s = slots_[pos];
      if (s.node != node || s.status == kNone || s.api_node != node->node() ||
          s.generation != node->generation()) {
        return nullptr;
      }
      if (s.nominations_at != nomination_clock) {
        if (nomination_version() > s.nominations_at) return nullptr;
        s.nominations_at = nomination_clock;
      }
      return &statuses_[s.status];
    }
    // Records `status` (not an Error) as the verdict for `node` at `pos`, computed with the
    // nominations as of `nomination_clock`.
    void Store(size_t pos, const framework::NodeInfo* node, uint64_t nomination_clock,
               const framework::Status& status);
    size_t num_statuses() const { return statuses_.size(); }

   private:
    friend class FilterMemo;
    static constexpr uint32_t kNone = UINT32_MAX;
    // Distinct statuses kept per table; beyond it the table starts over (many distinct owned
    // messages, which do not deduplicate).
    static constexpr size_t kMaxStatuses = 256;
    struct Slot {
      const framework::NodeInfo* node = nullptr;
      const api::Node* api_node = nullptr;
      uint64_t generation = 0;
      uint64_t nominations_at = 0;
      uint32_t status = kNone;
    };
    void Resize(size_t num_nodes);
    uint32_t Intern(const framework::Status& status);

    std::vector<Slot> slots_;
    std::vector<framework::Status> statuses_;
    std::list<Key>::iterator lru_;
  };

  // `slot_budget`: the number of node slots kept over all tables (at least one table is kept).
  explicit FilterMemo(size_t slot_budget = kDefaultSlotBudget) : slot_budget_(slot_budget) {}

  // The table for `key`, sized for `num_nodes` positions; if absent, null unless `create`, in which
  // case it is created (evicting least recently used tables beyond the budget). The pointer is
  // valid until the next Get.
  Table* Get(const Key& key, size_t num_nodes, bool create);
  size_t num_tables() const { return tables_.size(); }

  // Counters for tests and profiling (not reported anywhere: outputs must not depend on the gate).
  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
  };
  Stats& stats() { return stats_; }
  const Stats& stats() const { return stats_; }

  static constexpr size_t kDefaultSlotBudget = size_t{1} << 18;

 private:
  size_t slot_budget_;
  absl::flat_hash_map<Key, Table> tables_;
  std::list<Key> lru_;  // most recently used first
  Stats stats_;
};

}  // namespace corral::scheduler
