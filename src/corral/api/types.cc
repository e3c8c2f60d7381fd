#include "corral/api/types.h"

#include <algorithm>

namespace corral::api {

LabelSet::LabelSet(std::vector<std::pair<Symbol, Symbol>> pairs) {
  // Stable sort keeps input order among equal keys; keep the last of each run.
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& p : pairs) {
    if (!items_.empty() && items_.back().first == p.first) {
      items_.back().second = p.second;
    } else {
      items_.push_back(p);
    }
  }
}

const Symbol* LabelSet::Find(Symbol key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& item, Symbol k) { return item.first < k; });
  if (it == items_.end() || it->first != key) return nullptr;
  return &it->second;
}

void LabelSet::Set(Symbol key, Symbol value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& item, Symbol k) { return item.first < k; });
  if (it != items_.end() && it->first == key) {
    it->second = value;
  } else {
    items_.insert(it, {key, value});
  }
}

const std::string* ObjectMeta::Annotation(Symbol key) const {
  for (const auto& [k, v] : annotations) {
    if (k == key) return &v;
  }
  return nullptr;
}

const Quantity* FindResource(const ResourceList& list, Symbol name) {
  for (const auto& [k, v] : list) {
    if (k == name) return &v;
  }
  return nullptr;
}

}  // namespace corral::api
