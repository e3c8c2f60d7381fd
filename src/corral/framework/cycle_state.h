#pragma once
// The framework's names for the pipeline's CycleState (pipeline/cycle_state.h), so plugins keep
// writing framework::CycleState.

#include "corral/framework/status.h"
#include "corral/pipeline/cycle_state.h"

namespace corral::framework {

using pipeline::CycleState;
using pipeline::StateData;

}  // namespace corral::framework
