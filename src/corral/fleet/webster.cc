#include "corral/fleet/webster.h"

#include <algorithm>

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

// One party during the allocation: its current priority votes / (2 × seats + 1) as Karmada computes
// it (float64), and its position in name order, so that ties compare integers, not names.
struct Contender {
  double priority = 0;
  int64_t votes = 0;
  int32_t seats = 0;
  uint32_t rank = 0;
};

double Priority(int64_t votes, int32_t seats) {
  return static_cast<double>(votes) / static_cast<double>(2 * int64_t{seats} + 1);
}

// True when `a` takes the next seat before `b`.
bool Before(const Contender& a, const Contender& b, NameOrder order) {
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.seats != b.seats) return a.seats < b.seats;
  return order == NameOrder::kAscending ? a.rank < b.rank : a.rank > b.rank;
}

}  // namespace

std::vector<Party> AllocateWebsterSeats(int32_t new_seats,
                                        const std::vector<std::pair<std::string, int64_t>>& votes,
                                        const std::vector<std::pair<std::string, int32_t>>& initial,
                                        NameOrder order) {
  // Every name once, in name order: its initial seats and its votes (the last given of each).
  std::vector<Party> parties;
  parties.reserve(initial.size() + votes.size());
  for (const auto& [name, seats] : initial) parties.push_back(Party{name, 0, seats});
  const size_t num_initial = parties.size();
  for (const auto& [name, v] : votes) parties.push_back(Party{name, v, 0});
  std::vector<uint32_t> index(parties.size());
  for (uint32_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(),
                   [&](uint32_t a, uint32_t b) { return parties[a].name < parties[b].name; });
  std::vector<Party> merged;
  merged.reserve(parties.size());
  for (uint32_t i : index) {
    Party& p = parties[i];
    const bool is_vote = i >= num_initial;
    if (merged.empty() || merged.back().name != p.name) {
      merged.push_back(Party{std::move(p.name), is_vote ? p.votes : 0, is_vote ? 0 : p.seats});
      continue;
    }
    // A later entry of the same name: initial entries set seats, vote entries set votes.
    if (is_vote) {
      merged.back().votes = p.votes;
    } else {
      merged.back().seats = p.seats;
    }
  }
  if (merged.empty()) return merged;

  std::vector<Contender> heap(merged.size());
  for (uint32_t r = 0; r < merged.size(); ++r) {
    heap[r] = {Priority(merged[r].votes, merged[r].seats), merged[r].votes, merged[r].seats, r};
  }
  // The order is total (names are unique), so the heap yields the same sequence of winners as
  // Karmada's container/heap.
  auto heap_less = [order](const Contender& a, const Contender& b) { return Before(b, a, order); };
  std::make_heap(heap.begin(), heap.end(), heap_less);
  for (int32_t remaining = new_seats; remaining > 0; --remaining) {
    std::pop_heap(heap.begin(), heap.end(), heap_less);
    Contender& won = heap.back();
    won.seats++;
    won.priority = Priority(won.votes, won.seats);
    std::push_heap(heap.begin(), heap.end(), heap_less);
  }
  for (const Contender& c : heap) merged[c.rank].seats = c.seats;
  return merged;
}

}  // namespace corral::fleet
