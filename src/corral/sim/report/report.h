#pragma once
// The HTML report: one self-contained file (inline CSS and SVG, no script, no network) with the
// run's summary and charts — utilization per resource over time, pending/running pods over time,
// the scheduling latency distribution, gang wait times, preemptions over time, batching
// hits/flushes, and a node-by-node utilization heat map. Features the scheduler does not expose yet
// get a labelled empty panel. A pure function of the RunResult: deterministic, byte for byte.

#include <string>

#include "corral/sim/metrics.h"

namespace corral::sim {

std::string RenderHtmlReport(const RunResult& r);

}  // namespace corral::sim
