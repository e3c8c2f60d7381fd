#include "corral/plugins/node_name/node_name.h"

#include <string>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

using framework::Code;

class NodeNameTest : public ::testing::Test {
 protected:
  NodeNameTest() {
    auto made = NodeName::New(nullptr, h_);
    EXPECT_TRUE(made.ok());
    plugin_ = std::move(*made);
  }
  const NodeName& Plugin() const { return dynamic_cast<const NodeName&>(*plugin_); }

  testing::TestWorld w_;
  testing::FakeHandle h_{w_};
  std::unique_ptr<framework::Plugin> plugin_;
};

// kube's TestNodeName.
TEST_F(NodeNameTest, Filter) {
  struct Case {
    std::string name;
    std::string pod_node_name;
    bool fits;
  };
  const Case cases[] = {
      {"no host specified", "", true},
      {"host matches", "foo", true},
      {"host doesn't match", "bar", false},
  };
  auto& node = w_.NodeWith(w_.Node("foo").Obj());
  framework::CycleState state;
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.name);
    auto& pod = w_.Info(w_.Pod("p").NodeName(tc.pod_node_name).Obj());
    auto st = Plugin().Filter(state, 0, pod, node);
    if (tc.fits) {
      EXPECT_TRUE(st.ok());
    } else {
      EXPECT_EQ(st.code(), Code::kUnschedulableAndUnresolvable);
      EXPECT_EQ(st.Message(), "node(s) didn't match the requested node name");
    }
  }
}

TEST_F(NodeNameTest, RegistersNodeAdd) {
  auto events = Plugin().EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].action, framework::ActionType::kAdd);
}

TEST_F(NodeNameTest, SignsTheNodeName) {
  std::vector<framework::SignFragment> f;
  ASSERT_TRUE(Plugin().Sign(w_.Info(w_.Pod("p").NodeName("n1").Obj()), &f).ok());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].key, "v1.Pod.Spec.NodeName");
  EXPECT_EQ(f[0].value, "\"n1\"");
  f.clear();
  ASSERT_TRUE(Plugin().Sign(w_.Info(w_.Pod("q").Obj()), &f).ok());
  EXPECT_EQ(f[0].value, "\"\"");
}

}  // namespace
}  // namespace corral::plugins
