// The scheduler's API client under schedulerApiClientQPS/Burst in the simulator: bindings spaced by
// client-go's token bucket, the scheduling loop held by its own status patches (direct calls) or
// not (the API dispatcher of SchedulerAsyncAPICalls), a limit never reached changing nothing, and
// the values kube's harness and client-go accept or refuse. The runs read the event log.

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/simulate.h"
#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Lines : public TextEventLog {
 public:
  void Line(std::string_view line) override {
    lines.emplace_back(line);
    text.append(line);
    text += '\n';
  }
  std::vector<std::string> lines;
  std::string text;
  // The time stamps (milliseconds) of the lines of `kind` (the word after the time stamp).
  std::vector<int64_t> Times(std::string_view kind) const {
    std::vector<int64_t> out;
    const std::string key = " " + std::string(kind) + " ";
    for (const auto& l : lines) {
      if (l.find(key) != 12) continue;  // "HH:MM:SS.mmm kind ..."
      const int64_t h = std::stoll(l.substr(0, 2)), m = std::stoll(l.substr(3, 2));
      const int64_t s = std::stoll(l.substr(6, 2)), ms = std::stoll(l.substr(9, 3));
      out.push_back(((h * 60 + m) * 60 + s) * 1000 + ms);
    }
    return out;
  }
};

struct ApiRun {
  std::string error;  // compile or run failure
  Lines log;
  RunResult result;
  std::vector<std::string> notes;
};

// Every run lives beside kube's starvation templates, as the example does.
constexpr std::string_view kPath = "examples/scheduler_perf/starvation/inline.yaml";

ApiRun RunConfig(std::string_view text, Interner& in) {
  ApiRun out;
  Diagnostics diags;
  auto c = PerfConfig::Parse(text, std::string(kPath), in, diags);
  if (!c.ok()) {
    out.error = c.error().message;
    return out;
  }
  auto spec = c->Compile(c->All().front(), in, diags);
  if (!spec.ok()) {
    out.error = spec.error().message;
    return out;
  }
  out.notes = spec->notes;
  spec->cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
  app::RunRequest req;
  req.log = &out.log;
  auto run = app::RunSimulation(*spec, in, diags, req);
  if (!run.ok()) {
    out.error = run.error().message;
    return out;
  }
  out.error = run->result.failure;
  out.result = std::move(run->result);
  return out;
}

// One node; `cloggers` unschedulable pods (kube's clogger template: required affinity to pods that
// never exist), attempted before ten schedulable victims are created. LIMIT and GATES are replaced.
constexpr std::string_view kConfig = R"(
- name: T
LIMIT
  workloadTemplate:
  - opcode: createNodes
    count: 1
    nodeTemplatePath: ../kube/starvation/templates/node.yaml
  - opcode: createNamespaces
    prefix: starvation
    count: 1
  - opcode: createPods
    count: CLOGGERS
    podTemplatePath: ../kube/starvation/templates/clogger-pod.yaml
    namespace: starvation-0
    skipWaitToCompletion: true
  - opcode: barrier
    stageRequirement: Attempted
  - opcode: createPods
    count: 10
    podTemplatePath: ../kube/starvation/templates/high-priority-victim-pod.yaml
    namespace: starvation-0
  workloads:
  - name: w
GATES
)";

std::string Config(std::string_view limit, int cloggers, std::string_view gates = "") {
  std::string cfg(kConfig);
  cfg.replace(cfg.find("LIMIT"), 5, limit);
  cfg.replace(cfg.find("CLOGGERS"), 8, std::to_string(cloggers));
  cfg.replace(cfg.find("GATES"), 5, gates);
  return cfg;
}

constexpr std::string_view kQps5 = "  schedulerApiClientQPS: 5\n  schedulerApiClientBurst: 5";

// Ten bindings at QPS 5, burst 5: the first five land at their cycles' ends (1 ms apart, the bucket
// full from the first call at 1 ms), the rest one per 200 ms of refill counted from that call.
TEST(PerfApiClientTest, BindingsAreSpacedByTheTokenBucket) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config(kQps5, 0), in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.log.Times("bind"), ElementsAre(1, 2, 3, 4, 5, 201, 401, 601, 801, 1001))
      << r.log.text;
  EXPECT_EQ(r.result.pods_scheduled, 10);
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("scheduler API client: QPS 5, burst 5")));
}

// Without SchedulerAsyncAPICalls (kube v1.37's default) the loop patches each clogger's
// PodScheduled=False condition itself and waits for the token: the sixth attempt (6 ms) is the
// first whose patch waits, until 201 ms, so the seventh attempt ends at 202 ms, and so on, 200 ms
// apart. The barrier passes when the last patch lands; the victims' bindings find the bucket empty.
TEST(PerfApiClientTest, DirectStatusPatchesHoldTheSchedulingLoop) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config(kQps5, 10), in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.log.Times("unschedulable"), ElementsAre(1, 2, 3, 4, 5, 6, 202, 402, 602, 802))
      << r.log.text;
  const std::vector<int64_t> binds = r.log.Times("bind");
  ASSERT_EQ(binds.size(), 10U) << r.log.text;
  for (size_t i = 1; i < binds.size(); ++i) EXPECT_NEAR(binds[i] - binds[i - 1], 200, 1) << i;
}

// Through the API dispatcher the loop does not wait: every clogger is attempted at once and its
// patch lands when its token comes; the barrier still waits for the last one.
TEST(PerfApiClientTest, DispatcherCallsDoNotHoldTheSchedulingLoop) {
  Interner in = api::NewInterner();
  ApiRun r =
      RunConfig(Config(kQps5, 10, "    featureGates:\n      SchedulerAsyncAPICalls: true"), in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.log.Times("unschedulable"), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
      << r.log.text;
  const std::vector<int64_t> binds = r.log.Times("bind");
  ASSERT_EQ(binds.size(), 10U) << r.log.text;
  EXPECT_GE(binds.front(), 1000) << r.log.text;  // after the barrier, behind the last patch
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("SchedulerAsyncAPICalls=true: bindings and "
                                                     "status patches go through the scheduler's "
                                                     "API dispatcher")));
}

// Preemption under the limit: each victim's DisruptionTarget patch and delete take a token, made
// by preemption's goroutine (SchedulerAsyncPreemption, on by default); a victim goes when its
// delete lands (grace period 0). One 4-CPU node, four 900m pods of priority 0 bound 200 ms apart
// (burst 1), then a 3-CPU pod of priority 10 that preempts three of them.
TEST(PerfApiClientTest, VictimDeletesWaitForTheirTokens) {
  Interner in = api::NewInterner();
  constexpr std::string_view kPreemption = R"(
- name: T
  schedulerApiClientQPS: 5
  schedulerApiClientBurst: 1
  workloadTemplate:
  - opcode: createNodes
    count: 1
    nodeTemplatePath: ../templates/node-default.yaml
  - opcode: createPods
    count: 4
    podTemplatePath: ../templates/pod-low-priority.yaml
  - opcode: createPods
    count: 1
    podTemplatePath: ../templates/pod-high-priority.yaml
  workloads:
  - name: w
)";
  ApiRun r = RunConfig(kPreemption, in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.log.Times("preempt"), ElementsAre(602, 602, 602)) << r.log.text;
  // Three patches (801, 1001, 1201 ms), then the three deletes.
  EXPECT_THAT(r.log.Times("evict"), ElementsAre(1401, 1601, 1801)) << r.log.text;
  const std::vector<int64_t> binds = r.log.Times("bind");
  ASSERT_EQ(binds.size(), 5U) << r.log.text;
  EXPECT_THAT(std::vector<int64_t>(binds.begin(), binds.begin() + 4),
              ElementsAre(1, 201, 401, 601));
  EXPECT_GT(binds[4], 1801) << r.log.text;
}

// A limit that is never reached gives the run of no limit at all, event for event.
TEST(PerfApiClientTest, LimitNeverReachedChangesNothing) {
  Interner in = api::NewInterner();
  ApiRun off = RunConfig(Config("", 10), in);
  ApiRun high = RunConfig(
      Config("  schedulerApiClientQPS: 1000000\n  schedulerApiClientBurst: 1000000", 10), in);
  ASSERT_EQ(off.error, "");
  ASSERT_EQ(high.error, "");
  EXPECT_FALSE(off.log.text.empty());
  EXPECT_EQ(off.log.text, high.log.text);
}

// client-go's meaning of 0: QPS 5 (rest.DefaultQPS), burst 10 (rest.DefaultBurst); a field the
// config leaves out is the harness's 5000.
TEST(PerfApiClientTest, ZeroValuesAreClientGoDefaults) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config("  schedulerApiClientQPS: 0\n  schedulerApiClientBurst: 0", 0), in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("QPS 5, burst 10:")));
  ApiRun only_qps = RunConfig(Config("  schedulerApiClientQPS: 2.5", 0), in);
  ASSERT_EQ(only_qps.error, "");
  EXPECT_THAT(only_qps.notes, ::testing::Contains(HasSubstr("QPS 2.5, burst 5000:")));
}

// A negative QPS: client-go builds no rate limiter, so nothing waits.
TEST(PerfApiClientTest, NegativeQpsMeansNoLimiter) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config("  schedulerApiClientQPS: -1\n  schedulerApiClientBurst: 1", 10), in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("turns client-go's rate limiter off")));
  ApiRun off = RunConfig(Config("", 10), in);
  EXPECT_EQ(r.log.text, off.log.text);
}

// The workload's fields override the test case's, one by one (Test_separateClientConnections).
TEST(PerfApiClientTest, WorkloadOverridesTheTestCase) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config("  schedulerApiClientQPS: 10\n  schedulerApiClientBurst: 20", 0,
                              "    schedulerApiClientQPS: 123.45"),
                       in);
  ASSERT_EQ(r.error, "");
  EXPECT_THAT(r.notes, ::testing::Contains(HasSubstr("QPS 123.45, burst 20:")));
}

TEST(PerfApiClientTest, NegativeBurstIsAPositionedError) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config("  schedulerApiClientQPS: 5\n  schedulerApiClientBurst: -3", 0), in);
  EXPECT_THAT(r.error, HasSubstr("inline.yaml:4: schedulerApiClientBurst: -3: client-go's token "
                                 "bucket refuses every call when the burst is negative"));
}

TEST(PerfApiClientTest, NonNumbersAreErrors) {
  Interner in = api::NewInterner();
  ApiRun r = RunConfig(Config("  schedulerApiClientQPS: fast", 0), in);
  EXPECT_THAT(r.error, HasSubstr("inline.yaml:3"));
  EXPECT_THAT(r.error, HasSubstr("schedulerApiClientQPS"));
  ApiRun b = RunConfig(Config("  schedulerApiClientBurst: 2.5", 0), in);
  EXPECT_THAT(b.error, HasSubstr("inline.yaml:3"));
  EXPECT_THAT(b.error, HasSubstr("schedulerApiClientBurst"));
  ApiRun big = RunConfig(Config("  schedulerApiClientQPS: 1e39", 0), in);
  EXPECT_THAT(big.error, HasSubstr("inline.yaml:3"));
  EXPECT_THAT(big.error, HasSubstr("does not fit kube's float32 field"));
}

}  // namespace
}  // namespace corral::sim
