#include "corral/core/result.h"

#include <gtest/gtest.h>

#include "corral/core/diagnostics.h"

namespace corral {
namespace {

Result<int> ParsePositive(int x) {
  if (x <= 0) return Error::Invalid("must be positive");
  return x;
}

TEST(ResultTest, HoldsValueOrError) {
  auto good = ParsePositive(3);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  auto bad = ParsePositive(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(bad.error().message, "must be positive");
}

TEST(DiagnosticsTest, FormatsFileLinePathMessage) {
  Diagnostics d;
  d.Error("nodes.yaml", 14, "spec.taints[0].effect", "unknown effect \"NoSchedul\"");
  d.Warning("pods.yaml", 3, "", "unknown field \"foo\"");
  EXPECT_EQ(d.error_count(), 1u);
  EXPECT_EQ(d.warning_count(), 1u);
  EXPECT_EQ(d.items()[0].ToString(),
            "nodes.yaml:14: spec.taints[0].effect: unknown effect \"NoSchedul\"");
  EXPECT_EQ(d.items()[1].ToString(), "pods.yaml:3: warning: unknown field \"foo\"");
}

TEST(DiagnosticsTest, AddAndMergeCountBySeverity) {
  Diagnostics d;
  d.Add({.severity = Severity::kError,
         .file = "a.yaml",
         .line = 1,
         .path = "spec",
         .message = "bad"});
  d.Add(
      {.severity = Severity::kWarning, .file = "a.yaml", .line = 2, .path = "", .message = "odd"});
  EXPECT_TRUE(d.has_errors());
  EXPECT_EQ(d.error_count(), 1u);
  EXPECT_EQ(d.warning_count(), 1u);
  Diagnostics merged;
  merged.Warning("b.yaml", 1, "", "w");
  merged.Merge(d);
  EXPECT_EQ(merged.error_count(), 1u);
  EXPECT_EQ(merged.warning_count(), 2u);
}

}  // namespace
}  // namespace corral
