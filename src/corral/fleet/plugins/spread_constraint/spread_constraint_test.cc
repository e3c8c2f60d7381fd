#include "corral/fleet/plugins/spread_constraint/spread_constraint.h"

#include <string>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// Karmada TestSpreadConstraint_Filter.
TEST(SpreadConstraintFilterTest, Filter) {
  Interner in = api::NewInterner();
  api::Cluster with_provider;
  with_provider.provider = in.Intern("aws");
  api::Cluster with_region;
  with_region.region = in.Intern("us-west-2");
  api::Cluster with_zones;
  with_zones.zones = {in.Intern("us-west-2a")};
  const api::Cluster empty;
  struct Case {
    const char* name;
    api::SpreadByField field;
    const api::Cluster* cluster;
    std::string reason;  // empty: success
  };
  const Case cases[] = {
      {"no spread constraints", api::SpreadByField::kNone, &empty, ""},
      {"spread by provider - provider present", api::SpreadByField::kProvider, &with_provider, ""},
      {"spread by provider - provider missing", api::SpreadByField::kProvider, &empty,
       "cluster(s) did not have provider property"},
      {"spread by region - region present", api::SpreadByField::kRegion, &with_region, ""},
      {"spread by region - region missing", api::SpreadByField::kRegion, &empty,
       "cluster(s) did not have region property"},
      {"spread by zone - zones present", api::SpreadByField::kZone, &with_zones, ""},
      {"spread by zone - zones missing", api::SpreadByField::kZone, &empty,
       "cluster(s) did not have zones property"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::FleetWork work;
    if (c.field != api::SpreadByField::kNone) {
      api::SpreadConstraint sc;
      sc.spread_by_field = c.field;
      work.placement.spread_constraints = {sc};
    }
    framework::Status s = SpreadConstraintFilter().Filter(work, *c.cluster);
    if (c.reason.empty()) {
      EXPECT_TRUE(s.ok());
    } else {
      EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
      EXPECT_EQ(s.Message(), c.reason);
    }
  }
}

}  // namespace
}  // namespace corral::fleet
