// The API client's token bucket against golang.org/x/time/rate's Limiter (which client-go's
// flowcontrol.NewTokenBucketRateLimiter wraps) and client-go's throttle tests, then the scheduler's
// API dispatcher merging a pod's waiting calls. Calls are made at time 0 unless said otherwise.

#include "corral/sim/api_client.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace corral::sim {
namespace {

// x/time/rate's tests count time in steps of d = 100ms from t0.
constexpr int64_t kD = 100'000'000;
constexpr int64_t T(int64_t i) {
  return i * kD;
}

struct Reservation {
  int64_t at;   // when the call is made
  int64_t n;    // tokens
  int64_t act;  // when it may proceed
  bool ok;
};

void ExpectReservations(TokenBucket& b, const std::vector<Reservation>& rs) {
  for (size_t i = 0; i < rs.size(); ++i) {
    bool ok = false;
    const int64_t act = b.ReserveN(rs[i].at, rs[i].n, ok);
    EXPECT_EQ(ok, rs[i].ok) << "reservation " << i;
    if (ok) {
      EXPECT_EQ(act, rs[i].act) << "reservation " << i;
    }
  }
}

// x/time/rate TestSimpleReserve: NewLimiter(10, 2).
TEST(TokenBucketTest, SimpleReserve) {
  TokenBucket b(10, 2);
  ExpectReservations(b, {{T(0), 2, T(0), true}, {T(0), 2, T(2), true}, {T(3), 2, T(4), true}});
}

// x/time/rate TestMix: a reservation beyond the burst fails and changes nothing; Allow takes
// tokens only when they are there now.
TEST(TokenBucketTest, Mix) {
  TokenBucket b(10, 2);
  ExpectReservations(b, {{T(0), 3, 0, false}, {T(0), 2, T(0), true}});
  EXPECT_FALSE(b.AllowN(T(1), 2));  // not enough tokens
  ExpectReservations(b, {{T(1), 2, T(2), true}});
  EXPECT_FALSE(b.AllowN(T(1), 1));  // negative tokens
  EXPECT_TRUE(b.AllowN(T(3), 1));
}

// x/time/rate TestReserveJumpBack: a call dated before the last one counts from its own time.
TEST(TokenBucketTest, ReserveJumpBack) {
  TokenBucket b(10, 2);
  ExpectReservations(b, {{T(1), 2, T(1), true}, {T(0), 1, T(1), true}, {T(2), 2, T(3), true}});
}

// client-go flowcontrol TestBasicThrottle: NewTokenBucketRateLimiter(1, 3) accepts three calls at
// once, then none.
TEST(TokenBucketTest, ClientGoBasicThrottle) {
  TokenBucket b(1, 3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(b.AllowN(0, 1)) << i;
  EXPECT_FALSE(b.AllowN(0, 1));
}

// client-go flowcontrol TestIncrementThrottle: QPS 1, burst 1; a token is back after 2 s.
TEST(TokenBucketTest, ClientGoIncrementThrottle) {
  TokenBucket b(1, 1);
  EXPECT_TRUE(b.AllowN(0, 1));
  EXPECT_FALSE(b.AllowN(0, 1));
  EXPECT_TRUE(b.AllowN(2'000'000'000, 1));
}

// Wait at QPS 5, burst 5 (the golden e2e case's limit): five calls at once, then one every 200 ms.
TEST(TokenBucketTest, BurstThenOnePerInterval) {
  TokenBucket b(5, 5);
  std::vector<int64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(b.Reserve(0));
  EXPECT_EQ(got, (std::vector<int64_t>{0, 0, 0, 0, 0, 200'000'000, 400'000'000, 600'000'000,
                                       800'000'000, 1'000'000'000}));
  // The bucket refills while nobody calls: 3 s later it is full again (not more than the burst).
  for (int i = 0; i < 5; ++i) EXPECT_EQ(b.Reserve(4'000'000'000), 4'000'000'000) << i;
  EXPECT_EQ(b.Reserve(4'000'000'000), 4'200'000'000);
}

// QPS is a float32 in client-go, and a wait is truncated to whole nanoseconds: 0.3 is
// 0.30000001192092896, so the second and third calls wait 3333333200 ns and 6666666401 ns (Go's
// time.Duration of (k / limit) * 1e9), not a multiple of one interval.
TEST(TokenBucketTest, Float32QpsAndTruncation) {
  TokenBucket b(0.3F, 1);
  EXPECT_EQ(b.Reserve(0), 0);
  EXPECT_EQ(b.Reserve(0), 3'333'333'200);
  EXPECT_EQ(b.Reserve(0), 6'666'666'401);
}

TEST(ApiClientTest, DirectCallsEachTakeAToken) {
  ApiClient c(5, 1, /*dispatcher=*/false);
  EXPECT_EQ(c.Issue(7, 0, ApiClient::Call::kStatusPatch, 0), 0);
  EXPECT_EQ(c.Issue(7, 0, ApiClient::Call::kStatusPatch, 0), 200'000'000);
  EXPECT_EQ(c.Issue(7, 0, ApiClient::Call::kBinding, 0), 400'000'000);
}

// kube's API dispatcher: a status patch merges into the pod's waiting patch, a binding overwrites
// it in its place; a call after the waiting one ran, or of another pod, takes its own token.
TEST(ApiClientTest, DispatcherMergesAndOverwritesWaitingCalls) {
  ApiClient c(5, 1, /*dispatcher=*/true);
  EXPECT_EQ(c.Issue(1, 0, ApiClient::Call::kStatusPatch, 0), 0);            // runs at once
  EXPECT_EQ(c.Issue(2, 0, ApiClient::Call::kStatusPatch, 0), 200'000'000);  // waits
  EXPECT_EQ(c.Issue(2, 0, ApiClient::Call::kStatusPatch, 0), 200'000'000);  // merged
  EXPECT_EQ(c.Issue(2, 0, ApiClient::Call::kBinding, 0), 200'000'000);      // overwrites
  EXPECT_EQ(c.Issue(3, 0, ApiClient::Call::kBinding, 0), 400'000'000);
  // Pod 2's binding waits: a second binding is a call of its own.
  EXPECT_EQ(c.Issue(2, 0, ApiClient::Call::kBinding, 0), 600'000'000);
  // A new pod in slot 3 (generation 1) does not merge with the old pod's call.
  EXPECT_EQ(c.Issue(3, 1, ApiClient::Call::kStatusPatch, 0), 800'000'000);
  // Pod 1's patch ran at 0 (a call is waiting only until its time): its next patch takes a token.
  EXPECT_EQ(c.Issue(1, 0, ApiClient::Call::kStatusPatch, 0), 1'000'000'000);
}

TEST(ApiClientTest, ConditionChangedOnlyWhenTheKeyDiffers) {
  ApiClient c(5, 5, false);
  EXPECT_TRUE(c.ConditionChanged(4, 0, "0/3 nodes are available"));
  EXPECT_FALSE(c.ConditionChanged(4, 0, "0/3 nodes are available"));
  EXPECT_TRUE(c.ConditionChanged(4, 0, "0/4 nodes are available"));
  EXPECT_TRUE(c.ConditionChanged(4, 1, "0/4 nodes are available"));  // a new pod in the slot
}

}  // namespace
}  // namespace corral::sim
