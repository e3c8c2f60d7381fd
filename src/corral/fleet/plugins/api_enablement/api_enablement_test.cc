#include "corral/fleet/plugins/api_enablement/api_enablement.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

// Karmada TestAPIEnablement_Filter.
TEST(ApiEnablementTest, Filter) {
  Interner in = api::NewInterner();
  api::Cluster cluster;
  cluster.meta.name = in.Intern("cluster1");
  cluster.api_enablements = {{in.Intern("apps/v1"), {in.Intern("Deployment")}}};
  struct Case {
    const char* name;
    const char* api_version;
    const char* kind;
    bool in_targets;
    framework::Code code;
  };
  const Case cases[] = {
      {"API is enabled in cluster", "apps/v1", "Deployment", false, framework::Code::kSuccess},
      {"API is not enabled in cluster", "custom.io/v1", "CustomResource", false,
       framework::Code::kUnschedulable},
      {"cluster in target list with API not enabled", "custom.io/v1", "CustomResource", true,
       framework::Code::kSuccess},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::FleetWork work;
    work.resource.api_version = in.Intern(c.api_version);
    work.resource.kind = in.Intern(c.kind);
    if (c.in_targets) work.clusters = {{cluster.meta.name, 0}};
    framework::Status s = ApiEnablement().Filter(work, cluster);
    EXPECT_EQ(s.code(), c.code);
    if (!s.ok()) {
      EXPECT_EQ(s.Message(), "cluster(s) did not have the API resource");
    }
  }
}

}  // namespace
}  // namespace corral::fleet
