#include "corral/loader/fragments.h"

#include "corral/loader/internal/decode.h"

namespace corral::loader {

void DecodeNodeAffinityFragment(doc::Decoder& d, const doc::Node& n, api::NodeAffinity& out) {
  internal::DecodeNodeAffinity(d, n, out);
}

void DecodeTopologySpreadConstraintFragment(doc::Decoder& d, const doc::Node& n,
                                            api::TopologySpreadConstraint& out) {
  internal::DecodeTopologySpreadConstraint(d, n, out);
}

}  // namespace corral::loader
