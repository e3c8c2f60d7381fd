// Table tests of the preemption claim store, translated from Karmada PR #7832
// pkg/scheduler/core/preemption_claims_test.go (test names cited per case), plus Corral's cases for
// the TTL boundary, the failure paths and the estimator decorator.
#include "corral/fleet/claims.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

class ClaimsTest : public ::testing::Test {
 protected:
  api::ResourceList Cpu(int64_t milli) {
    return {{api::wk::kCpu, api::Quantity::FromMilli(milli)}};
  }
  PreemptionClaim Claim(std::string key, std::string cluster, int32_t priority, int32_t replicas,
                        api::ResourceList need = {}) {
    return {std::move(key), std::move(cluster), priority, replicas, std::move(need), {}};
  }
  ManualClock clock_{TimePoint{} + std::chrono::hours(1000)};
  ClaimStore store_{clock_};
  Interner in_ = api::NewInterner();
};

// TestPreemptionClaimStoreSetGetClearAndReplace.
TEST_F(ClaimsTest, SetGetClearAndReplace) {
  PreemptionClaim c = Claim("default/preemptor", "member1", 100, 3, Cpu(1000));
  store_.Set(c);
  c.resource_need = Cpu(2000);  // the store keeps its own copy
  auto got = store_.Get("default/preemptor");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->cluster, "member1");
  EXPECT_EQ(got->priority, 100);
  EXPECT_EQ(got->replicas, 3);
  EXPECT_EQ(got->resource_need[0].second.MilliValue(), 1000);
  EXPECT_EQ(got->expiry, clock_.Now() + kClaimTtl);
  // Replaced, not accumulated: the preemptor migrates to member2.
  store_.Set(Claim("default/preemptor", "member2", 200, 5));
  auto replaced = store_.Get("default/preemptor");
  ASSERT_TRUE(replaced.has_value());
  EXPECT_EQ(replaced->cluster, "member2");
  EXPECT_EQ(replaced->priority, 200);
  EXPECT_EQ(replaced->replicas, 5);
  EXPECT_EQ(store_.List().size(), 1u);
  EXPECT_FALSE(store_.HasClaimOnCluster("member1"));
  store_.Clear("default/preemptor");
  EXPECT_FALSE(store_.Get("default/preemptor").has_value());
}

// TestPreemptionClaimStoreExpiresClaims, and the boundary either side of the TTL.
TEST_F(ClaimsTest, ExpiresClaims) {
  store_.Set(Claim("default/preemptor", "member1", 100, 3));
  clock_.Advance(kClaimTtl - std::chrono::nanoseconds(1));
  EXPECT_TRUE(store_.Get("default/preemptor").has_value());
  EXPECT_TRUE(store_.HasClaimOnCluster("member1"));
  clock_.Advance(std::chrono::nanoseconds(1));  // expiry == now: gone
  EXPECT_FALSE(store_.Get("default/preemptor").has_value());
  EXPECT_FALSE(store_.HasClaimOnCluster("member1"));
}

// Set restarts the TTL (a preemptor that preempts again keeps its claim 10 more minutes).
TEST_F(ClaimsTest, SetRestartsTheTtl) {
  store_.Set(Claim("p", "member1", 100, 3));
  clock_.Advance(std::chrono::minutes(9));
  store_.Set(Claim("p", "member1", 100, 3));
  clock_.Advance(std::chrono::minutes(9));
  EXPECT_TRUE(store_.Get("p").has_value());
}

// TestPreemptionClaimStoreHasClaimOnCluster.
TEST_F(ClaimsTest, HasClaimOnCluster) {
  store_.Set(Claim("default/preemptor", "member1", 100, 3));
  EXPECT_TRUE(store_.HasClaimOnCluster("member1"));
  EXPECT_FALSE(store_.HasClaimOnCluster("member2"));
}

// TestPreemptionClaimStoreHasBlockingClaimOnCluster.
TEST_F(ClaimsTest, HasBlockingClaimOnCluster) {
  for (const PreemptionClaim& c :
       {Claim("default/requester", "member1", 100, 1), Claim("default/lower", "member1", 50, 1),
        Claim("default/equal", "member2", 100, 1), Claim("default/higher", "member3", 200, 1)}) {
    store_.Set(c);
  }
  struct Case {
    const char* name;
    const char* cluster;
    bool blocked;
  } cases[] = {
      {"requester's own and a lower-priority claim do not block", "member1", false},
      {"an equal-priority claim blocks", "member2", true},
      {"a higher-priority claim blocks", "member3", true},
      {"no claim", "member4", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(store_.HasBlockingClaimOnCluster(c.cluster, "default/requester", 100), c.blocked)
        << c.name;
  }
}

// TestPreemptionClaimStoreSetSupersedesLowerPriorityClaimsOnCluster.
TEST_F(ClaimsTest, SetSupersedesLowerPriorityClaimsOnCluster) {
  store_.Set(Claim("default/lower", "member1", 50, 1));
  store_.Set(Claim("default/equal", "member1", 100, 1));
  store_.Set(Claim("default/other-cluster", "member2", 50, 1));
  store_.Set(Claim("default/requester", "member1", 100, 1));
  EXPECT_FALSE(store_.Get("default/lower").has_value());
  EXPECT_TRUE(store_.Get("default/equal").has_value());
  EXPECT_TRUE(store_.Get("default/other-cluster").has_value());
  EXPECT_TRUE(store_.Get("default/requester").has_value());
}

// TestWithClaimDeductions: the requester's own claim and lower-priority claims are not deducted;
// equal and higher are, converted to the requester's replicas; results clamp at 0.
TEST_F(ClaimsTest, WithClaimDeductions) {
  // Set in this order; "lower-priority" (50, no need) survives: it was set after the others.
  store_.Set(Claim("default/higher-priority", "member1", 200, 2, Cpu(1000)));
  store_.Set(Claim("default/requester", "member1", 100, 4, Cpu(1000)));
  store_.Set(Claim("default/equal-priority", "member1", 100, 3, Cpu(1000)));
  store_.Set(Claim("default/lower-priority", "member1", 50, 9));
  store_.Set(Claim("default/overflow", "member2", 100, 10, Cpu(1000)));
  const std::vector<std::string> names = {"member1", "member2", "member3"};
  const std::vector<int32_t> available = {10, 5, 3};
  api::ReplicaRequirements req;
  req.resource_request = Cpu(1000);
  EXPECT_EQ(store_.Deduct(names, available, "default/requester", 100, &req),
            (std::vector<int32_t>{5, 0, 3}));
}

// TestWithClaimDeductionsNilStore: no claims, nothing deducted.
TEST_F(ClaimsTest, WithClaimDeductionsNoClaims) {
  const std::vector<std::string> names = {"member1"};
  EXPECT_EQ(store_.Deduct(names, std::vector<int32_t>{10}, "default/requester", 100, nullptr),
            (std::vector<int32_t>{10}));
}

// TestWithClaimDeductionsUsesBindingIdentity: another binding of the same resource name is not
// the owner.
TEST_F(ClaimsTest, WithClaimDeductionsUsesBindingIdentity) {
  store_.Set(Claim("resourcebinding/default/deployment-foo", "member1", 100, 2, Cpu(1000)));
  api::ReplicaRequirements req;
  req.resource_request = Cpu(1000);
  const std::vector<std::string> names = {"member1"};
  EXPECT_EQ(store_.Deduct(names, std::vector<int32_t>{5}, "resourcebinding/default/statefulset-foo",
                          100, &req),
            (std::vector<int32_t>{3}));
}

// claimReplicaDeduction: ⌈claimed × replicas / requester⌉, max over resources; raw replicas when a
// side requests nothing.
TEST_F(ClaimsTest, ClaimReplicaDeduction) {
  api::ReplicaRequirements half;
  half.resource_request = Cpu(500);
  api::ReplicaRequirements three;
  three.resource_request = Cpu(3000);
  api::ReplicaRequirements gpu;
  gpu.resource_request = {{in_.Intern("nvidia.com/gpu"), api::Quantity::FromInt(1)}};
  api::ReplicaRequirements empty;
  struct Case {
    const char* name;
    PreemptionClaim claim;
    const api::ReplicaRequirements* requester;
    int32_t want;
  } cases[] = {
      {"2 × 1 cpu in 500m replicas", Claim("a", "m", 1, 2, Cpu(1000)), &half, 4},
      {"2 × 1 cpu in 3-cpu replicas rounds up", Claim("a", "m", 1, 2, Cpu(1000)), &three, 1},
      {"no shared resource deducts nothing", Claim("a", "m", 1, 2, Cpu(1000)), &gpu, 0},
      {"requester without requirements: raw replicas", Claim("a", "m", 1, 2, Cpu(1000)), nullptr,
       2},
      {"requester with an empty request: raw replicas", Claim("a", "m", 1, 2, Cpu(1000)), &empty,
       2},
      {"claim without need: raw replicas", Claim("a", "m", 1, 7), &half, 7},
  };
  for (const Case& c : cases)
    EXPECT_EQ(ClaimReplicaDeduction(c.claim, c.requester), c.want) << c.name;
}

// An estimator's "no answer" is not deducted.
TEST_F(ClaimsTest, UnauthenticAnswersAreLeftAlone) {
  store_.Set(Claim("x", "member1", 100, 2));
  const std::vector<std::string> names = {"member1"};
  EXPECT_EQ(store_.Deduct(names, std::vector<int32_t>{kUnauthenticReplica}, "r", 1, nullptr),
            (std::vector<int32_t>{kUnauthenticReplica}));
}

// Failure paths as claim-store operations. The claimed capacity is hidden from a lower-priority
// binding until the claim goes: victim eviction failed (the claim is cleared, the preemptor backs
// off), or the preemptor was deleted mid-way; the owner always sees it.
TEST_F(ClaimsTest, FailurePathsReleaseTheCapacity) {
  for (const char* path :
       {"eviction of a victim failed", "preemptor deleted mid-way", "preemptor scheduled"}) {
    store_.Set(Claim("resourcebinding/default/train", "member1", 1000, 2, Cpu(2000)));
    api::ReplicaRequirements req;
    req.resource_request = Cpu(2000);
    const std::vector<std::string> names = {"member1"};
    const std::vector<int32_t> available = {2};
    EXPECT_EQ(store_.Deduct(names, available, "resourcebinding/default/batch", 100, &req)[0], 0)
        << path;
    EXPECT_EQ(store_.Deduct(names, available, "resourcebinding/default/train", 1000, &req)[0], 2)
        << path;
    EXPECT_TRUE(store_.HasBlockingClaimOnCluster("member1", "resourcebinding/default/other", 1000))
        << path;
    store_.Clear("resourcebinding/default/train");
    EXPECT_EQ(store_.Deduct(names, available, "resourcebinding/default/batch", 100, &req)[0], 2)
        << path;
    EXPECT_FALSE(store_.HasBlockingClaimOnCluster("member1", "resourcebinding/default/other", 1000))
        << path;
  }
}

// The estimator decorator: the general estimator's answer less the claims.
TEST_F(ClaimsTest, ClaimDeductingEstimator) {
  api::Cluster c;
  c.meta.name = in_.Intern("member1");
  c.resource_summary.emplace();
  c.resource_summary->allocatable = {{api::wk::kCpu, api::Quantity::FromInt(8)},
                                     {api::wk::kPods, api::Quantity::FromInt(110)}};
  GeneralEstimator general(in_);
  api::ReplicaRequirements req;
  req.resource_request = Cpu(1000);
  const api::Cluster* clusters[] = {&c};
  store_.Set(Claim("p", "member1", 100, 3, Cpu(1000)));
  ClaimDeductingEstimator low(general, store_, "q", 100, in_);
  ClaimDeductingEstimator owner(general, store_, "p", 100, in_);
  ClaimDeductingEstimator high(general, store_, "h", 101, in_);
  EXPECT_EQ(low.MaxAvailableReplicas(clusters, &req), (std::vector<int32_t>{5}));
  EXPECT_EQ(owner.MaxAvailableReplicas(clusters, &req), (std::vector<int32_t>{8}));
  EXPECT_EQ(high.MaxAvailableReplicas(clusters, &req), (std::vector<int32_t>{8}));
}

}  // namespace
}  // namespace corral::fleet
