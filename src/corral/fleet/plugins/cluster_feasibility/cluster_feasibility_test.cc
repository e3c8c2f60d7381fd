#include "corral/fleet/plugins/cluster_feasibility/cluster_feasibility.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// A fixed answer, as a member's accurate estimator would give it.
class Fixed final : public WorkloadEstimator {
 public:
  explicit Fixed(std::optional<bool> answer) : answer_(answer) {}
  std::optional<bool> FitsWhole(const api::Cluster&, const api::FleetWork&) const override {
    return answer_;
  }

 private:
  std::optional<bool> answer_;
};

// The KEP names the plugin and no behaviour beyond "rejects clusters that cannot admit the
// workload"; these rows are Corral's: every estimator with an answer must say yes, and a cluster
// nobody answers for is rejected with its own reason.
TEST(ClusterFeasibilityTest, EveryAnswerMustSayItFits) {
  struct Row {
    std::string name;
    std::vector<std::optional<bool>> answers;
    std::string want;  // empty: passes
  };
  const Row rows[] = {
      {"one yes", {true}, ""},
      {"yes and no answer", {true, std::nullopt}, ""},
      {"yes and no", {true, false}, std::string(ClusterFeasibility::kInsufficient)},
      {"no before no answer",
       {false, std::nullopt},
       std::string(ClusterFeasibility::kInsufficient)},
      {"nobody answers", {std::nullopt, std::nullopt}, std::string(ClusterFeasibility::kUnknown)},
      {"no estimator", {}, std::string(ClusterFeasibility::kUnknown)},
  };
  for (const Row& row : rows) {
    std::vector<Fixed> fixed;
    fixed.reserve(row.answers.size());
    for (std::optional<bool> a : row.answers) fixed.emplace_back(a);
    std::vector<const WorkloadEstimator*> estimators;
    for (const Fixed& f : fixed) estimators.push_back(&f);
    framework::Status s = ClusterFeasibility(estimators).Filter(api::FleetWork{}, api::Cluster{});
    if (row.want.empty()) {
      EXPECT_TRUE(s.ok()) << row.name << ": " << s.Message();
    } else {
      EXPECT_EQ(s.code(), framework::Code::kUnschedulable) << row.name;
      EXPECT_EQ(s.Message(), row.want) << row.name;
    }
  }
}

// With the general estimator the question is the summary's: the workload's summed request (here 8
// GPUs for two 4-GPU pods) against what the summary has left, whatever the nodes look like.
TEST(ClusterFeasibilityTest, GeneralEstimatorReadsTheSummary) {
  Interner in = api::NewInterner();
  const Symbol gpu = in.Intern("nvidia.com/gpu");
  auto cluster = [&](int64_t allocatable, int64_t allocated) {
    api::Cluster c;
    c.resource_summary.emplace();
    c.resource_summary->allocatable = {{api::wk::kPods, api::Quantity::FromInt(110)},
                                       {gpu, api::Quantity::FromInt(allocatable)}};
    c.resource_summary->allocated = {{gpu, api::Quantity::FromInt(allocated)}};
    return c;
  };
  api::FleetWork work;
  work.replicas = 1;
  work.replica_requirements.emplace();
  work.replica_requirements->resource_request = {{gpu, api::Quantity::FromInt(8)}};
  GeneralEstimator general(in);
  const WorkloadEstimator* estimators[] = {&general};
  const ClusterFeasibility plugin(estimators);
  EXPECT_TRUE(plugin.Filter(work, cluster(16, 8)).ok());
  EXPECT_EQ(plugin.Filter(work, cluster(16, 9)).Message(), ClusterFeasibility::kInsufficient);
  // A MultiKueueCluster carries no summary: no answer, and the cluster is not passed unseen.
  EXPECT_EQ(plugin.Filter(work, api::Cluster{}).Message(), ClusterFeasibility::kUnknown);
}

}  // namespace
}  // namespace corral::fleet
