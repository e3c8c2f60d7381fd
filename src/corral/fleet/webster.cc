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
  std::vector<std::pair<std::string_view, int64_t>> vote_views(votes.begin(), votes.end());
  std::vector<std::pair<std::string_view, int32_t>> initial_views(initial.begin(), initial.end());
  return AllocateWebsterSeats(new_seats, vote_views, initial_views, order);
}

std::vector<Party> AllocateWebsterSeats(
    int32_t new_seats, std::span<const std::pair<std::string_view, int64_t>> votes,
    std::span<const std::pair<std::string_view, int32_t>> initial, NameOrder order) {
  // Every name once, in name order: its initial seats and its votes (the last given of each).
  struct Entry {
    std::string_view name;
    int64_t votes = 0;
    int32_t seats = 0;
  };
  std::vector<Entry> entries;
  entries.reserve(initial.size() + votes.size());
  for (const auto& [name, seats] : initial) entries.push_back(Entry{name, 0, seats});
  const size_t num_initial = entries.size();
  for (const auto& [name, v] : votes) entries.push_back(Entry{name, v, 0});
  std::vector<uint32_t> index(entries.size());
  for (uint32_t i = 0; i < index.size(); ++i) index[i] = i;
  std::stable_sort(index.begin(), index.end(),
                   [&](uint32_t a, uint32_t b) { return entries[a].name < entries[b].name; });
  std::vector<Entry> unique;
  unique.reserve(entries.size());
  for (uint32_t i : index) {
    const Entry& e = entries[i];
    const bool is_vote = i >= num_initial;
    if (unique.empty() || unique.back().name != e.name) {
      unique.push_back(Entry{e.name, is_vote ? e.votes : 0, is_vote ? 0 : e.seats});
      continue;
    }
    // A later entry of the same name: initial entries set seats, vote entries set votes.
    if (is_vote) {
      unique.back().votes = e.votes;
    } else {
      unique.back().seats = e.seats;
    }
  }
  std::vector<Party> merged;
  merged.reserve(unique.size());
  for (const Entry& e : unique) {
    Party& p = merged.emplace_back();
    p.name = e.name;
    p.votes = e.votes;
    p.seats = e.seats;
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
