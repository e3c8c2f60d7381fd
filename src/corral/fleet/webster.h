#pragma once
// Webster (Sainte-Laguë) apportionment as Karmada's replica dispenser uses it
// (pkg/util/helper/webstermethod.go and binding.go).
//
// Each new seat goes to the party with the highest priority votes / (2 × seats + 1), compared as
// IEEE doubles exactly as Karmada does. Equal priorities are broken by the tie-break order: the
// party with fewer seats first, then by name ascending or descending. Karmada picks the name order
// from the binding's UID: descending when the FNV-1a 32-bit hash of the UID is odd, ascending when
// it is even or the UID is empty.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace corral::fleet {

struct Party {
  std::string name;
  int64_t votes = 0;
  int32_t seats = 0;
  bool operator==(const Party&) const = default;
};

enum class NameOrder { kAscending, kDescending };

// FNV-1a, 32 bits, of `bytes` (Go's hash/fnv New32a).
uint32_t Fnv1a32(std::string_view bytes);

// tieBreakerByUID: kDescending when the UID's hash is odd, otherwise (or for an empty
// UID) kAscending.
NameOrder NameOrderForUid(std::string_view uid);

// AllocateWebsterSeats: gives `new_seats` seats one at a time to the parties. Parties are the
// union of `initial` (name, seats already held; votes 0 unless also voted) and `votes` (name,
// votes); a name repeated in either list takes its last entry, as a Go map assignment does. The
// result is sorted by name ascending; empty when there are no parties.
std::vector<Party> AllocateWebsterSeats(int32_t new_seats,
                                        const std::vector<std::pair<std::string, int64_t>>& votes,
                                        const std::vector<std::pair<std::string, int32_t>>& initial,
                                        NameOrder order);

// The same over names the caller keeps alive for the call (the dispenser's own lists), so that
// only the result copies them.
std::vector<Party> AllocateWebsterSeats(
    int32_t new_seats, std::span<const std::pair<std::string_view, int64_t>> votes,
    std::span<const std::pair<std::string_view, int32_t>> initial, NameOrder order);

}  // namespace corral::fleet
