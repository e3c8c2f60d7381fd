// Fuzzes the Alibaba GPU trace v2023 importer (openb_node_list / openb_pod_list CSV files). The
// input is split at its first NUL byte into the node list and the pod list (no NUL: the whole input
// is tried as each, with a valid file as the other). Bad rows must only ever produce diagnostics
// naming file, line and column: any crash, sanitizer report, hang or trap is a bug.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/core/diagnostics.h"
#include "corral/sim/input/trace.h"

namespace {

constexpr std::string_view kNodes =
    "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0001,96000,786432,8,V100M32\n";
constexpr std::string_view kPods =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\nopenb-pod-0001,8000,30720,1,1000,,LS,Running,0,3600,1\n";

void Check(std::string_view nodes, std::string_view pods) {
  corral::Interner interner = corral::api::NewInterner();
  corral::Diagnostics diags;
  auto spec = corral::sim::ParseAlibabaTrace(nodes, "nodes.csv", pods, "pods.csv", interner, diags);
  if (!spec.ok() && (spec.error().message.empty() || !diags.has_errors())) __builtin_trap();
  for (const auto& d : diags.items()) {
    if (d.message.empty()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  const size_t nul = input.find('\0');
  if (nul != std::string_view::npos) {
    Check(input.substr(0, nul), input.substr(nul + 1));
  } else {
    Check(input, kPods);
    Check(kNodes, input);
  }
  return 0;
}
