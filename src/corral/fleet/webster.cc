#include "corral/fleet/webster.h"

#include <algorithm>
#include <map>

namespace corral::fleet {

uint32_t Fnv1a32(std::string_view bytes) {
  uint32_t h = 2166136261u;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

NameOrder NameOrderForUid(std::string_view uid) {
  if (uid.empty()) return NameOrder::kAscending;
  return (Fnv1a32(uid) & 1u) == 1u ? NameOrder::kDescending : NameOrder::kAscending;
}

namespace {

// True when `a` takes the next seat before `b`.
bool Before(const Party& a, const Party& b, NameOrder order) {
  double pa = static_cast<double>(a.votes) / static_cast<double>(2 * int64_t{a.seats} + 1);
  double pb = static_cast<double>(b.votes) / static_cast<double>(2 * int64_t{b.seats} + 1);
  if (pa != pb) return pa > pb;
  if (a.seats != b.seats) return a.seats < b.seats;
  return order == NameOrder::kAscending ? a.name < b.name : a.name > b.name;
}

}  // namespace

std::vector<Party> AllocateWebsterSeats(int32_t new_seats,
                                        const std::vector<std::pair<std::string, int64_t>>& votes,
                                        const std::vector<std::pair<std::string, int32_t>>& initial,
                                        NameOrder order) {
  std::map<std::string, Party> by_name;
  for (const auto& [name, seats] : initial) by_name[name] = Party{name, 0, seats};
  for (const auto& [name, v] : votes) {
    Party& p = by_name[name];
    p.name = name;
    p.votes = v;
  }
  std::vector<Party> parties;
  parties.reserve(by_name.size());
  for (auto& [name, party] : by_name) parties.push_back(std::move(party));
  if (parties.empty()) return parties;

  // The order is total (names are unique), so the heap yields the same sequence of winners as
  // Karmada's container/heap.
  auto heap_less = [order](const Party& a, const Party& b) { return Before(b, a, order); };
  std::make_heap(parties.begin(), parties.end(), heap_less);
  for (int32_t remaining = new_seats; remaining > 0; --remaining) {
    std::pop_heap(parties.begin(), parties.end(), heap_less);
    parties.back().seats++;
    std::push_heap(parties.begin(), parties.end(), heap_less);
  }
  std::sort(parties.begin(), parties.end(),
            [](const Party& a, const Party& b) { return a.name < b.name; });
  return parties;
}

}  // namespace corral::fleet
