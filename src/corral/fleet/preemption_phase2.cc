#include "corral/fleet/preemption_phase2.h"

#include "fmt/format.h"

namespace corral::fleet {

Result<std::vector<bool>> SelectVictimsBySimulation(const VictimSimulator& simulator,
                                                    const api::Cluster& cluster,
                                                    const api::FleetWork& preemptor,
                                                    int32_t replicas,
                                                    std::span<const api::FleetWork* const> ordered,
                                                    std::string_view cluster_name) {
  std::vector<const api::FleetWork*> removed(ordered.begin(), ordered.end());
  auto all = simulator.FitsWithout(cluster, preemptor, replicas, removed);
  if (!all.ok()) return all.error();
  if (!*all) {
    return Error::Invalid(fmt::format(
        "preemptor does not fit on cluster {:?} even with every candidate's pods removed",
        cluster_name));
  }
  std::vector<bool> victim(ordered.size(), true);
  for (size_t i = 0; i < ordered.size(); ++i) {
    // Put candidate i back: the removed set is the candidates still victims, less i.
    std::vector<const api::FleetWork*> without_i;
    without_i.reserve(ordered.size());
    for (size_t k = 0; k < ordered.size(); ++k) {
      if (k != i && victim[k]) without_i.push_back(ordered[k]);
    }
    auto fits = simulator.FitsWithout(cluster, preemptor, replicas, without_i);
    if (!fits.ok()) return fits.error();
    if (*fits) victim[i] = false;  // reprieved: the preemptor fits with it back
  }
  return victim;
}

}  // namespace corral::fleet
