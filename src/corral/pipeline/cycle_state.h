#pragma once
// CycleState: per-cycle scratch data, keyed by plugin (kube's framework.CycleState). Created empty
// for each scheduling attempt; plugins write in PreFilter/PreScore and read in Filter/Score. Filter
// and Score run concurrently across nodes, so reads during those phases must not mutate. Clone()
// deep-copies every entry (preemption and nominated-pod evaluation mutate clones
// through PreFilterExtensions).

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/pipeline/status.h"

namespace corral::pipeline {

class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::unique_ptr<StateData> Clone() const = 0;
};

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;
  CycleState(CycleState&&) = default;
  CycleState& operator=(CycleState&&) = default;

  // Slots are indexed by the plugin's index in its profile (Framework assigns them), which avoids
  // string lookups on hot paths.
  void Write(size_t slot, std::unique_ptr<StateData> data) {
    if (slot >= data_.size()) data_.resize(slot + 1);
    data_[slot] = std::move(data);
  }
  StateData* Read(size_t slot) const { return slot < data_.size() ? data_[slot].get() : nullptr; }
  template <class T>
  T* Get(size_t slot) const {
    return static_cast<T*>(Read(slot));
  }

  // Plugins skipped for this cycle (PreFilter/PreScore returned Skip), by profile plugin index.
  std::vector<bool>& skip_filter() { return skip_filter_; }
  std::vector<bool>& skip_score() { return skip_score_; }
  const std::vector<bool>& skip_filter() const { return skip_filter_; }
  const std::vector<bool>& skip_score() const { return skip_score_; }

  CycleState Clone() const {
    CycleState c;
    c.data_.resize(data_.size());
    for (size_t i = 0; i < data_.size(); ++i) {
      if (data_[i]) c.data_[i] = data_[i]->Clone();
    }
    c.skip_filter_ = skip_filter_;
    c.skip_score_ = skip_score_;
    return c;
  }

 private:
  std::vector<std::unique_ptr<StateData>> data_;
  std::vector<bool> skip_filter_;
  std::vector<bool> skip_score_;
};

}  // namespace corral::pipeline
