#include "corral/api/storage.h"

#include <algorithm>

namespace corral::api {

bool MatchTopologySelectorTerms(const std::vector<TopologySelectorTerm>& terms,
                                const LabelSet& labels) {
  if (terms.empty()) return true;
  for (const auto& term : terms) {
    if (term.match_label_expressions.empty()) continue;  // an empty term selects nothing
    bool all = true;
    for (const auto& [key, values] : term.match_label_expressions) {
      const Symbol* v = labels.Find(key);
      if (v == nullptr || std::find(values.begin(), values.end(), *v) == values.end()) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

std::string EphemeralClaimName(std::string_view pod, std::string_view volume) {
  std::string out(pod);
  out += '-';
  out += volume;
  return out;
}

}  // namespace corral::api
