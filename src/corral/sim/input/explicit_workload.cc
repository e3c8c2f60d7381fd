#include "corral/sim/input/explicit_workload.h"

#include <algorithm>

#include <fmt/format.h>

namespace corral::sim {

void AppendExplicitWorkload(Workload wk, StartAt at, SimSpec& spec) {
  std::stable_sort(
      wk.explicit_arrivals.begin(), wk.explicit_arrivals.end(),
      [](const ExplicitArrival& x, const ExplicitArrival& y) { return x.time_ns < y.time_ns; });
  if (!wk.explicit_arrivals.empty()) wk.tmpl = wk.explicit_arrivals.front().tmpl;
  Op op;
  op.kind = Op::Kind::kStartWorkload;
  op.workload = static_cast<uint32_t>(spec.workloads.size());
  op.describe = fmt::format("startWorkload workload={}", wk.name);
  spec.workloads.push_back(std::move(wk));
  if (at == StartAt::kFront) {
    spec.program.insert(spec.program.begin(), std::move(op));
  } else {
    spec.program.push_back(std::move(op));
  }
}

}  // namespace corral::sim
