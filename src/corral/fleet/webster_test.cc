#include "corral/fleet/webster.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace corral::fleet {
namespace {

using Votes = std::vector<std::pair<std::string, int64_t>>;
using Seats = std::vector<std::pair<std::string, int32_t>>;

struct WebsterCase {
  std::string name;
  int32_t new_seats;
  Votes votes;
  Seats initial;
  NameOrder order;
  std::vector<Party> expected;
};

// Karmada pkg/util/helper/webstermethod_test.go TestAllocateWebsterSeats (a nil tie-breaker and
// the custom `a.Name < b.Name` one are Corral's kAscending; `a.Name > b.Name` is kDescending).
TEST(WebsterTest, AllocateWebsterSeats) {
  const Votes classic = {
      {"PartyA", 100000}, {"PartyB", 80000}, {"PartyC", 30000}, {"PartyD", 20000}};
  auto classic_seats = [](int32_t a, int32_t b, int32_t c, int32_t d) {
    return std::vector<Party>{
        {"PartyA", 100000, a}, {"PartyB", 80000, b}, {"PartyC", 30000, c}, {"PartyD", 20000, d}};
  };
  const NameOrder asc = NameOrder::kAscending;
  const std::vector<WebsterCase> cases = {
      {"classic example, round 1", 1, classic, {}, asc, classic_seats(1, 0, 0, 0)},
      {"classic example, round 2", 2, classic, {}, asc, classic_seats(1, 1, 0, 0)},
      {"classic example, round 3", 3, classic, {}, asc, classic_seats(2, 1, 0, 0)},
      {"classic example, round 4", 4, classic, {}, asc, classic_seats(2, 1, 1, 0)},
      {"classic example, round 5", 5, classic, {}, asc, classic_seats(2, 2, 1, 0)},
      {"classic example, round 6", 6, classic, {}, asc, classic_seats(2, 2, 1, 1)},
      {"classic example, round 7", 7, classic, {}, asc, classic_seats(3, 2, 1, 1)},
      {"classic example, round 8", 8, classic, {}, asc, classic_seats(3, 3, 1, 1)},
      {"empty party votes, expect nil result", 1, {}, {}, asc, {}},
      {"party votes not empty, newSeats is 0, expect all seats 0",
       0,
       {{"PartyA", 100}, {"PartyB", 200}},
       {},
       asc,
       {{"PartyA", 100, 0}, {"PartyB", 200, 0}}},
      {"both party votes and newSeats are 0, expect nil result", 0, {}, {}, asc, {}},
      {"tie-breaker is nil, expect break tie by seats",
       1,
       {{"PartyA", 3}, {"PartyB", 1}},
       {{"PartyA", 1}, {"PartyB", 0}},
       asc,
       {{"PartyA", 3, 1}, {"PartyB", 1, 1}}},
      {"tie-breaker is nil, expect break tie by name",
       1,
       {{"PartyA", 1}, {"PartyB", 1}},
       {},
       asc,
       {{"PartyA", 1, 1}, {"PartyB", 1, 0}}},
      {"custom tie-breaker returns true, expect custom tie-breaker controls seat",
       1,
       {{"PartyA", 1}, {"PartyB", 1}},
       {},
       asc,
       {{"PartyA", 1, 1}, {"PartyB", 1, 0}}},
      {"custom tie-breaker returns false, expect custom tie-breaker controls seat",
       1,
       {{"PartyA", 1}, {"PartyB", 1}},
       {},
       NameOrder::kDescending,
       {{"PartyA", 1, 0}, {"PartyB", 1, 1}}},
      {"non-initial allocation, new party joins, only new party gets new seats",
       2,
       {{"NewParty1", 1}, {"NewParty2", 1}},
       {{"OldParty", 0}},
       asc,
       {{"NewParty1", 1, 1}, {"NewParty2", 1, 1}, {"OldParty", 0, 0}}},
      {"non-initial allocation, both new and old parties compete for new seats",
       2,
       {{"OldParty", 1}, {"NewParty", 1}},
       {{"OldParty", 1}},
       asc,
       {{"NewParty", 1, 2}, {"OldParty", 1, 1}}},
      {"non-initial allocation, initialAssignments party not in partyVotes, expect no new seats "
       "for that party",
       2,
       {{"PartyA", 100}},
       {{"PartyB", 3}},
       asc,
       {{"PartyA", 100, 2}, {"PartyB", 0, 3}}},
  };
  for (const WebsterCase& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(AllocateWebsterSeats(c.new_seats, c.votes, c.initial, c.order), c.expected);
  }
}

// Karmada ExampleAllocateWebsterSeats.
TEST(WebsterTest, Example) {
  std::vector<Party> want = {{"Alpha", 1200, 2}, {"Beta", 900, 1}, {"Gamma", 400, 1}};
  EXPECT_EQ(AllocateWebsterSeats(4, {{"Alpha", 1200}, {"Beta", 900}, {"Gamma", 400}}, {},
                                 NameOrder::kAscending),
            want);
}

// The UIDs of Karmada's binding_test.go (evenUID, oddUID), and FNV-1a's published test vectors.
TEST(WebsterTest, TieBreakByUidHash) {
  EXPECT_EQ(Fnv1a32(""), 0x811c9dc5u);
  EXPECT_EQ(Fnv1a32("a"), 0xe40c292cu);
  EXPECT_EQ(Fnv1a32("foobar"), 0xbf9cf968u);
  EXPECT_EQ(NameOrderForUid(""), NameOrder::kAscending);
  EXPECT_EQ(NameOrderForUid("4858ca61-3ff8-4095-8267-f3d059d8074c"), NameOrder::kAscending);
  EXPECT_EQ(NameOrderForUid("d43fdeeb-d750-4e2b-bee3-64eb94534f4c"), NameOrder::kDescending);
}

}  // namespace
}  // namespace corral::fleet
