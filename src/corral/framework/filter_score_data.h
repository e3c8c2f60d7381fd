#pragma once
// The CycleState entry of a plugin that keeps one state from PreFilter and one from PreScore in one
// slot (InterPodAffinity and PodTopologySpread do). Clone deep-copies the PreFilter state, which
// the PreFilterExtensions mutate (AddPod/RemovePod while preemption and nominated pods are
// evaluated on a clone), and shares the PreScore state, which nothing changes once PreScore has
// written it.

#include <memory>

#include "corral/framework/cycle_state.h"

namespace corral::framework {

template <class PreFilterState, class PreScoreState>
struct FilterScoreData final : StateData {
  std::unique_ptr<PreFilterState> pre_filter;
  std::shared_ptr<const PreScoreState> pre_score;

  std::unique_ptr<StateData> Clone() const override {
    auto c = std::make_unique<FilterScoreData>();
    if (pre_filter) c->pre_filter = std::make_unique<PreFilterState>(*pre_filter);
    c->pre_score = pre_score;
    return c;
  }
};

}  // namespace corral::framework
