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
//     priority (it selects the nominated pods of the two-pass evaluation) and same
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
// Nomination changes are found without a version lookup per node when possible: the scheduler's
// LoggedNominator logs the nodes whose version changed, and a pass that reads a table learns from
// it which nodes changed since the table's previous pass (Nominations); a verdict stamped at or
// after that pass is then valid on every other node without a lookup. When the log does not reach
// back far enough, every stale stamp is checked against the node's version.
//
// Scope (Scheduler::FindNodesThatPassFilters): passes over the whole node list only (no
// PreFilterResult, no placement domain), and not while a pod-group member is nominated. A key gets
// a table after a pass that rejected every node, or after the second pass of the key that found a
// feasible node but rejected many (kMinFailedForTable, or half of the nodes if fewer), filled from
// that pass's verdicts; later passes (successful ones included) read and update it. A pod that
// fits at its first attempt and has no equivalent (every pod of a workload with its own extended
// resource, say) so pays no table it would never read. Reusing a verdict replaces only its
// computation: nodes are visited in the same order and the pass stops at the same node.
//
// Memory: one Table per key, least recently used tables evicted beyond a budget of node slots;
// a table is a flat vector indexed by node position plus the distinct statuses it holds. Those
// statuses do not move or change between two Gets of any table, so a pass may point at them until
// the next pass begins.

#include <array>
#include <cstdint>
#include <list>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "corral/framework/node_info.h"
#include "corral/framework/status.h"
#include "corral/scheduler/nominator.h"

namespace corral::framework {
class Framework;
}

namespace corral::scheduler {

// The scheduler's Nominator, with a bounded log of the nodes whose nomination version changed
// (Nominator::Version), so that a pass over a FilterMemo table looks up the versions of those
// nodes only. Derived privately: every change goes through Add/Delete here, so none escapes
// the log.
class LoggedNominator : private Nominator {
 public:
  using Nominator::clock;
  using Nominator::NodeOf;
  using Nominator::num_group_members;
  using Nominator::PodsForNode;
  using Nominator::size;
  using Nominator::Unique;
  using Nominator::Version;

  void Add(const framework::PodInfo* pod, Symbol node) {
    Delete(pod);
    Nominator::Add(pod, node);  // the pod is not nominated now: this touches `node` only
    if (!node.empty()) Log(node);
  }
  Symbol Delete(const framework::PodInfo* pod) {
    const Symbol node = Nominator::Delete(pod);
    if (!node.empty()) Log(node);
    return node;
  }
  // Appends to `out` (cleared first) every node whose version exceeds `since`, possibly with
  // repeats; false if the log no longer reaches back to `since` or more than `max` entries follow
  // it (`out` is then unspecified).
  bool ChangedSince(uint64_t since, size_t max, std::vector<Symbol>* out) const;

  static constexpr size_t kLogSize = 64;

 private:
  struct Entry {
    uint64_t version = 0;  // the node's version set by this change
    Symbol node;
  };
  void Log(Symbol node);

  // A ring of the last kLogSize changes, oldest at next_ once full. Every change whose version
  // exceeds floor_ is in it.
  std::array<Entry, kLogSize> log_;
  size_t next_ = 0;
  size_t size_ = 0;
  uint64_t floor_ = 0;
};

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

  // What a pass knows of nomination changes. `clock` is the nominator's clock. Every node whose
  // version exceeds `since` is in `changed` (and its bit in `changed_bits`); nodes not in the
  // snapshot may be missing. since == kUnknown: nothing is known.
  struct Nominations {
    static constexpr uint64_t kUnknown = UINT64_MAX;
    uint64_t clock = 0;
    uint64_t since = kUnknown;
    std::span<const framework::NodeInfo* const> changed;
    uint64_t changed_bits = 0;

    static uint64_t Bit(const framework::NodeInfo* node) {
      return uint64_t{1} << ((reinterpret_cast<uintptr_t>(node) * 0x9E3779B97F4A7C15u) >> 58);
    }
    // False only if `node`'s version is ≤ since.
    bool MayHaveChanged(const framework::NodeInfo* node) const {
      if ((changed_bits & Bit(node)) == 0) return false;
      for (const framework::NodeInfo* c : changed) {
        if (c == node) return true;
      }
      return false;
    }
  };

  // The verdicts for one key, by node position in the snapshot's node list.
  class Table {
   public:
    // The memoized verdict for `node` at position `pos`, or null. `nomination_version` returns
    // the node's current nomination version: a verdict stored at clock t is valid while the node's
    // version is ≤ t. It is called only if `nominations` cannot tell that. A hit re-stamps the
    // slot with the current clock, so later lookups are free until a nomination changes. The
    // status stays where it is until the next FilterMemo::Get.
    template <class VersionFn>
    const framework::Status* Find(size_t pos, const framework::NodeInfo* node,
                                  const Nominations& nominations, VersionFn&& nomination_version) {
      if (pos >= slots_.size()) return nullptr;
      Slot& s = slots_[pos];
      if (s.node != node || s.status == kNone || s.api_node != node->node() ||
          s.generation != node->generation()) {
        return nullptr;
      }
      if (s.nominations_at != nominations.clock) {
        // Stamped at or after `since` and not changed since then: the version is ≤ the stamp.
        if ((s.nominations_at < nominations.since || nominations.MayHaveChanged(node)) &&
            nomination_version() > s.nominations_at) {
          return nullptr;
        }
        s.nominations_at = nominations.clock;
      }
      return &statuses_[s.status];
    }
    // The nominator clock of the previous pass over this table (its stamps are at most that).
    uint64_t last_clock() const { return last_clock_; }
    void set_last_clock(uint64_t clock) { last_clock_ = clock; }
    // Records `status` (not an Error) as the verdict for `node` at `pos`, computed with the
    // nominations as of `nomination_clock`.
    void Store(size_t pos, const framework::NodeInfo* node, uint64_t nomination_clock,
               const framework::Status& status);
    size_t num_statuses() const { return statuses_.size(); }

   private:
    friend class FilterMemo;
    static constexpr uint32_t kNone = UINT32_MAX;
    // Distinct statuses kept per table; beyond it no new status is stored, and the next Get starts
    // the table over (many distinct owned messages, which do not deduplicate). statuses_ has this
    // capacity from its first status on, so its elements never move.
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
    uint64_t last_clock_ = 0;
    std::list<Key>::iterator lru_;
  };

  // `slot_budget`: the number of node slots kept over all tables (at least one table is kept).
  explicit FilterMemo(size_t slot_budget = kDefaultSlotBudget) : slot_budget_(slot_budget) {}

  // A pass that rejected at least this many nodes, or half of the nodes if fewer, creates a table
  // even if it found feasible nodes.
  static constexpr size_t kMinFailedForTable = 64;
  // The table for `key`, sized for `num_nodes` positions; if absent, null unless `create`, in which
  // case it is created (evicting least recently used tables beyond the budget). The pointer is
  // valid until the next Get.
  Table* Get(const Key& key, size_t num_nodes, bool create);
  // Whether a pass that found a feasible node and rejected many should create `key`'s table: true
  // from the key's second such pass on. Keys are remembered by hash, at most kMaxRemembered (then
  // forgotten all at once); a collision only creates a table one pass early.
  bool AdmitAfterFeasiblePass(const Key& key);
  static constexpr size_t kMaxRemembered = 4096;
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
  absl::flat_hash_set<size_t> remembered_;  // hashes of keys with one feasible pass, no table
  std::list<Key> lru_;                      // most recently used first
  Stats stats_;
};

}  // namespace corral::scheduler
