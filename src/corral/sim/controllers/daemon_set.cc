// The DaemonSet controller: one pod per node that should run it (kube's NodeShouldRunDaemonPod:
// the template's nodeName, nodeSelector and required node affinity match the node, and the
// template's tolerations, with the daemon tolerations added, tolerate every NoSchedule and
// NoExecute taint), named "<daemonset>-<5 random>" and pinned to its node by a matchFields
// term on metadata.name; pods on nodes that no longer qualify are deleted.

#include <algorithm>
#include <string>
#include <vector>

#include "corral/api/selectors.h"
#include "corral/sim/controllers/controllers.h"
#include "corral/sim/controllers/names.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"

namespace corral::sim::controllers {

namespace {

bool ShouldRun(const api::Pod& tmpl, const api::Node& node, const Interner& in) {
  if (!tmpl.node_name.empty() && tmpl.node_name != node.meta.name) return false;
  for (const auto& [k, v] : tmpl.node_selector.items()) {
    const Symbol* have = node.meta.labels.Find(k);
    if (have == nullptr || *have != v) return false;
  }
  if (tmpl.affinity.has_value() && tmpl.affinity->node_affinity.has_value() &&
      tmpl.affinity->node_affinity->required.has_value() &&
      !api::MatchesNodeSelector(*tmpl.affinity->node_affinity->required, node.meta.labels,
                                node.meta.name, in)) {
    return false;
  }
  return api::FindUntoleratedTaint(node.taints, tmpl.tolerations, api::kDoNotScheduleTaints) ==
         nullptr;
}

// The node a daemon pod is pinned to.
Symbol PinnedNode(const api::Pod& p) {
  return p.affinity->node_affinity->required->node_selector_terms[0].match_fields[0].values[0];
}

}  // namespace

void ReconcileDaemonSet(Controllers& ctl, ControllerState& c) {
  World& w = ctl.world();
  Pods& pods = *w.pods;
  const Member& m = *w.members[pods.MemberOf(c.workload)];
  const api::Pod& tmpl = w.spec.pod_templates[w.spec.workloads[c.workload].tmpl].pod;
  // Alive nodes, oldest first.
  std::vector<uint32_t> nodes = m.PickNodes(kNone, -1, /*newest_first=*/false, /*want=*/0);
  std::vector<Symbol> covered;
  std::vector<uint32_t> doomed;
  for (uint32_t slot : c.live) {
    const Symbol node = PinnedNode(pods.Pod(slot).pod);
    const uint32_t idx = m.FindNode(node);
    const bool keep = idx != kNone && ShouldRun(tmpl, m.node(idx).node, w.in) &&
                      std::find(covered.begin(), covered.end(), node) == covered.end();
    if (keep) {
      covered.push_back(node);
    } else {
      doomed.push_back(slot);
    }
  }
  for (uint32_t slot : doomed) ctl.DeletePod(c, slot, "daemonset-node");
  const std::string base = std::string(w.in.Str(c.spec->meta.name)) + "-";
  for (uint32_t idx : nodes) {
    if (!w.error.empty()) return;
    const api::Node& node = m.node(idx).node;
    if (std::find(covered.begin(), covered.end(), node.meta.name) != covered.end()) continue;
    if (!ShouldRun(tmpl, node, w.in)) continue;
    const Symbol name = node.meta.name;
    ctl.CreatePod(c, GenerateName(base, c.rng), -1, kForeverNs,
                  [&](api::Pod& p) { PinToNode(p, name, w.in); });
  }
}

}  // namespace corral::sim::controllers
