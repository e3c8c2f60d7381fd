#pragma once
// The Alibaba GPU cluster trace v2023 ("openb", alibaba/clusterdata cluster-trace-gpu-v2023) as a
// simulation input.
//
//   openb_node_list_*.csv: sn,cpu_milli,memory_mib,gpu,model
//   openb_pod_list_*.csv:  name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,
//                          creation_time,deletion_time,scheduled_time (the multigpu* lists have
//                          only the first five columns)
//
// Mapping:
//  - node `sn` with capacity = allocatable: cpu = cpu_milli, memory = memory_mib Mi, pods = 110,
//    nvidia.com/gpu = gpu (when > 0), label alibabacloud.com/gpu-card-model = model (when set);
//  - pod `name` in namespace default, one container requesting cpu_milli, memory_mib Mi and
//    nvidia.com/gpu = num_gpu (whole GPUs: a shared-GPU pod with gpu_milli < 1000 takes a whole GPU
//    — Corral has no GPU-sharing model yet), label alibabacloud.com/qos = qos; a non-empty gpu_spec
//    ("V100M16|V100M32") becomes required node affinity `gpu-card-model In (V100M16, V100M32)`;
//  - arrival = creation_time − the earliest creation_time; run time = deletion_time −
//    scheduled_time (deletion − creation when never scheduled; forever without deletion_time or
//    with the 5-column lists).
//  - The simulated duration ends at the last arrival or deletion.
//
// Files are told apart by their header line. Every malformed row is reported with file, line and
// column name (`pods.csv:17: cpu_milli: invalid integer "12x"`); nothing is dropped silently.

#include <string>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/core/result.h"
#include "corral/sim/spec.h"

namespace corral::sim {

inline constexpr std::string_view kGpuModelLabel = "alibabacloud.com/gpu-card-model";
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";

struct TraceOptions {
  int32_t pods_per_node = 110;
};

// `files`: one node list and one pod list, in any order.
Result<SimSpec> LoadAlibabaTrace(const std::vector<std::string>& files, Interner& interner,
                                 Diagnostics& diags, const TraceOptions& opts = {});
// The same from in-memory CSV text (tests).
Result<SimSpec> ParseAlibabaTrace(std::string_view nodes_csv, std::string_view nodes_file,
                                  std::string_view pods_csv, std::string_view pods_file,
                                  Interner& interner, Diagnostics& diags,
                                  const TraceOptions& opts = {});

}  // namespace corral::sim
