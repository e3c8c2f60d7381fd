#include "corral/plugins/node_resources/args.h"

#include <string>

#include <gtest/gtest.h>

namespace corral::plugins {
namespace {

std::string Message(const Result<void>& r) {
  return r.ok() ? "" : r.error().message;
}

TEST(NodeResourcesFitArgsTest, DefaultsAreKubes) {
  const NodeResourcesFitArgs args;
  ASSERT_TRUE(args.scoring_strategy.has_value());
  EXPECT_EQ(args.scoring_strategy->type, "LeastAllocated");
  EXPECT_EQ(args.scoring_strategy->resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 1}}));
  EXPECT_TRUE(args.Validate().ok());

  NodeResourcesFitArgs undefaulted;
  undefaulted.scoring_strategy.reset();
  undefaulted.SetDefaults();
  EXPECT_EQ(undefaulted.scoring_strategy, args.scoring_strategy);

  NodeResourcesFitArgs partial;
  partial.scoring_strategy = ScoringStrategy{"MostAllocated", {}, std::nullopt};
  partial.SetDefaults();
  EXPECT_EQ(partial.scoring_strategy->resources, DefaultResourceSpecs());
  partial.scoring_strategy->resources = {{"cpu", 0}, {"memory", 3}};
  partial.SetDefaults();  // weight 0 becomes 1
  EXPECT_EQ(partial.scoring_strategy->resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 3}}));
}

// kube's TestValidateFitArgs.
TEST(NodeResourcesFitArgsTest, Validation) {
  struct Case {
    std::string name;
    NodeResourcesFitArgs args;
    std::string want;
  };
  auto with = [](auto mutate) {
    NodeResourcesFitArgs a;
    mutate(a);
    return a;
  };
  const std::string too_long(64, 'a');
  const Case cases[] = {
      {"valid", NodeResourcesFitArgs{}, ""},
      {"ignored_resources_with_valid_names", with([](NodeResourcesFitArgs& a) {
         a.ignored_resources = {"nvidia.com/gpu", "example.com/foo"};
       }),
       ""},
      {"ignored_resource_name_too_long",
       with([&](NodeResourcesFitArgs& a) { a.ignored_resources = {too_long}; }),
       "ignoredResources[0]: Invalid value: \"" + too_long +
           "\": name part must be no more than 63 characters"},
      {"ignored_resource_bad_prefix",
       with([](NodeResourcesFitArgs& a) { a.ignored_resources = {"Example.com/foo"}; }),
       "ignoredResources[0]: Invalid value: \"Example.com/foo\": prefix part a lowercase RFC 1123 "
       "subdomain must "
       "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
       "alphanumeric "
       "character (e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {"ignored_resource_groups_with_valid_names",
       with([](NodeResourcesFitArgs& a) { a.ignored_resource_groups = {"example.com"}; }), ""},
      {"ignored_resource_group_with_slash",
       with([](NodeResourcesFitArgs& a) { a.ignored_resource_groups = {"example.com/aaa"}; }),
       "ignoredResourceGroups[0]: Invalid value: \"example.com/aaa\": resource group name can't "
       "contain '/'"},
      // An empty name: the slash error and the qualified-name error, aggregated.
      {"ignored_resource_group_empty_name",
       with([](NodeResourcesFitArgs& a) { a.ignored_resource_groups = {"example.com/"}; }),
       "[ignoredResourceGroups[0]: Invalid value: \"example.com/\": resource group name can't "
       "contain '/', "
       "ignoredResourceGroups[0]: Invalid value: \"example.com/\": name part must be non-empty, "
       "ignoredResourceGroups[0]: Invalid value: \"example.com/\": name part must consist of "
       "alphanumeric "
       "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
       "'MyName',  or "
       "'my.name',  or '123-abc', regex used for validation is "
       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"},
      {"unsupported_strategy_type",
       with([](NodeResourcesFitArgs& a) { a.scoring_strategy->type = "Invalid"; }),
       "scoringStrategy.type: Unsupported value: \"Invalid\": supported values: "
       "\"LeastAllocated\", "
       "\"MostAllocated\", \"RequestedToCapacityRatio\""},
      {"empty_strategy_type",
       with([](NodeResourcesFitArgs& a) { a.scoring_strategy->type.clear(); }),
       "scoringStrategy.type: Unsupported value: \"\": supported values: \"LeastAllocated\", "
       "\"MostAllocated\", "
       "\"RequestedToCapacityRatio\""},
      {"weight_out_of_range", with([](NodeResourcesFitArgs& a) {
         a.scoring_strategy->resources = {{"cpu", 0}, {"memory", 101}};
       }),
       "[scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in "
       "valid range (0, "
       "100], scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of memory "
       "not in valid "
       "range (0, 100]]"},
      {"valid_shape", with([](NodeResourcesFitArgs& a) {
         a.scoring_strategy->type = "RequestedToCapacityRatio";
         a.scoring_strategy->requested_to_capacity_ratio = {{{0, 0}, {50, 5}, {100, 10}}};
       }),
       ""},
      {"empty_shape", with([](NodeResourcesFitArgs& a) {
         a.scoring_strategy->type = "RequestedToCapacityRatio";
         a.scoring_strategy->requested_to_capacity_ratio = RequestedToCapacityRatioParam{};
       }),
       "scoringStrategy.shape: Required value: at least one point must be specified"},
      {"unsorted_shape", with([](NodeResourcesFitArgs& a) {
         a.scoring_strategy->requested_to_capacity_ratio = {{{10, 1}, {10, 2}, {5, 3}}};
       }),
       "scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in "
       "increasing order"},
      {"shape_out_of_range", with([](NodeResourcesFitArgs& a) {
         a.scoring_strategy->requested_to_capacity_ratio = {{{-10, 11}, {101, -1}}};
       }),
       "[scoringStrategy.shape[0].utilization: Invalid value: -10: not in valid range [0, 100], "
       "scoringStrategy.shape[0].score: Invalid value: 11: not in valid range [0, 10], "
       "scoringStrategy.shape[1].utilization: Invalid value: 101: not in valid range [0, 100], "
       "scoringStrategy.shape[1].score: Invalid value: -1: not in valid range [0, 10]]"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Message(c.args.Validate()), c.want);
  }
}

TEST(NodeResourcesFitArgsTest, ValidationUnderAPath) {
  NodeResourcesFitArgs args;
  args.scoring_strategy->resources = {{"cpu", 200}};
  EXPECT_EQ(Message(args.Validate("profiles[0].pluginConfig[1].args")),
            "profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight: Invalid value: "
            "200: resource "
            "weight of cpu not in valid range (0, 100]");
}

TEST(NodeResourcesBalancedAllocationArgsTest, DefaultsAndValidation) {
  NodeResourcesBalancedAllocationArgs args;
  EXPECT_EQ(args.resources, DefaultResourceSpecs());
  args.resources.clear();
  args.SetDefaults();
  EXPECT_EQ(args.resources, DefaultResourceSpecs());
  args.resources = {{"cpu", 0}, {"nvidia.com/gpu", 0}};
  args.SetDefaults();
  EXPECT_EQ(args.resources, (std::vector<ResourceSpec>{{"cpu", 1}, {"nvidia.com/gpu", 1}}));
  EXPECT_TRUE(args.Validate().ok());
  args.resources = {{"cpu", 2}};
  EXPECT_EQ(Message(args.Validate()), "resources[0].weight: Invalid value: 2: must be 1");
}

}  // namespace
}  // namespace corral::plugins
