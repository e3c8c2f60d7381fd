#pragma once
// Which NodeInfos changed since a given generation, for incremental consumers that would otherwise
// check the generation of every node of the cluster in every cycle (plugins/incremental).
//
// Every NodeInfo mutation takes a new generation from one process-wide counter
// (NodeInfo::generation). Each thread also logs, in a bounded ring, the (generation, NodeInfo)
// pairs it handed out. Generations are unique, so a thread can tell whether it handed out every
// generation of a range: when the ring holds exactly upto − since entries in (since, upto], no
// other thread mutated any NodeInfo meanwhile, and the NodeInfos named are the only ones that can
// have changed. Otherwise (another thread's mutation, or more than the ring keeps) the caller must
// check every node. Copies of NodeInfos mutated in simulations are logged too; a consumer ignores
// the ones it does not hold.

#include <cstdint>
#include <vector>

namespace corral::framework {

class NodeInfo;

// The newest generation handed out so far (process-wide).
uint64_t LatestNodeGeneration();

// Sets `out` to the NodeInfos that took a generation in (since, upto], oldest first with repeats
// possible, and returns true when every generation of that range was handed out on the calling
// thread and is still in its log; false otherwise. REQUIRES: upto ≤ LatestNodeGeneration().
bool NodesChangedOnThisThread(uint64_t since, uint64_t upto, std::vector<const NodeInfo*>* out);

}  // namespace corral::framework
