#include "corral/plugins/dynamic_resources/attribute_keys.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace corral::plugins::dra {

namespace res = api::resource;
using Kind = cel::AttributeValue::Kind;

namespace {

// Gives each distinct scalar (kind, value) the next key.
class ScalarKeys {
 public:
  uint32_t Key(const cel::AttributeValue& s) {
    switch (s.kind) {
      case Kind::kInt:
        return Get(ints_, s.int_value);
      case Kind::kBool:
        return Get(bools_, s.bool_value);
      case Kind::kString:
        return Get(strings_, s.string_value);
      case Kind::kVersion:
        return Get(versions_, s.string_value);
    }
    return Get(ints_, s.int_value);  // not reached: every kind is handled above
  }

 private:
  template <typename M, typename K>
  uint32_t Get(M& map, const K& k) {
    auto [it, added] = map.try_emplace(k, next_);
    if (added) ++next_;
    return it->second;
  }

  uint32_t next_ = 0;
  absl::flat_hash_map<int64_t, uint32_t> ints_;
  absl::flat_hash_map<bool, uint32_t> bools_;
  absl::flat_hash_map<std::string_view, uint32_t> strings_, versions_;
};

}  // namespace

AttributeKeys::AttributeKeys(std::span<const res::ResourceSlice* const> slices) {
  bool lists = false;
  for (const res::ResourceSlice* s : slices) {
    for (const res::Device& d : s->devices) {
      for (const cel::DeviceAttribute& a : d.attributes) lists = lists || a.value.is_list();
    }
  }
  if (!lists) return;
  ScalarKeys scalars;
  for (const res::ResourceSlice* s : slices) {
    for (const res::Device& d : s->devices) {
      for (const cel::DeviceAttribute& a : d.attributes) {
        const auto begin = static_cast<uint32_t>(keys_.size());
        if (a.value.is_list()) {
          for (const cel::AttributeValue& e : a.value.list) keys_.push_back(scalars.Key(e));
        } else {
          keys_.push_back(scalars.Key(a.value));
        }
        auto first = keys_.begin() + begin;
        std::sort(first, keys_.end());
        keys_.erase(std::unique(first, keys_.end()), keys_.end());
        ranges_[&a.value] = {begin, static_cast<uint32_t>(keys_.size()) - begin};
      }
    }
  }
}

bool AttributeKeys::Find(const cel::AttributeValue& v, std::span<const uint32_t>* keys) const {
  auto it = ranges_.find(&v);
  if (it == ranges_.end()) return false;
  *keys = std::span<const uint32_t>(keys_).subspan(it->second.begin, it->second.size);
  return true;
}

bool KeyIntersection::Intersect(std::span<const uint32_t> keys) {
  // First whether some key is common (most candidates share none and leave the set as it was),
  // then the set narrowed in place: both are sorted merges.
  auto a = keys_.begin();
  auto b = keys.begin();
  bool common = false;
  while (a != keys_.end() && b != keys.end()) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      common = true;
      break;
    }
  }
  if (!common) return false;
  auto out = keys_.begin();  // keys before `a` are not in `keys`; out never passes `a`
  while (a != keys_.end() && b != keys.end()) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      *out++ = *a++;
      ++b;
    }
  }
  keys_.erase(out, keys_.end());
  return true;
}

}  // namespace corral::plugins::dra
