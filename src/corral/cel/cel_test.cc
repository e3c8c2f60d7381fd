#include "corral/cel/cel.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::cel {
namespace {

// A GPU as kube's DRA examples and scheduler_perf templates describe one.
struct TestDevice {
  std::vector<DeviceAttribute> attrs;
  std::vector<DeviceCapacity> caps;
  Device device;

  TestDevice() {
    auto attr = [&](std::string_view domain, std::string_view id, AttributeValue v) {
      attrs.push_back({domain, id, v});
    };
    AttributeValue family{.kind = AttributeValue::Kind::kString, .string_value = "GPU"};
    attr("test-driver.cdi.k8s.io", "family", family);
    attr("test-driver.cdi.k8s.io", "preallocate",
         {.kind = AttributeValue::Kind::kBool, .bool_value = true});
    attr("dra.example.com", "slice", {.kind = AttributeValue::Kind::kInt, .int_value = 3});
    AttributeValue ver{.kind = AttributeValue::Kind::kVersion, .string_value = "1.2.3-rc.1"};
    EXPECT_TRUE(ParseSemver("1.2.3-rc.1", &ver.version));
    attr("test-driver.cdi.k8s.io", "driverVersion", ver);
    caps.push_back({"test-driver.cdi.k8s.io", "memory", *api::Quantity::Parse("1Gi")});
    caps.push_back({"test-driver.cdi.k8s.io", "counters", *api::Quantity::Parse("2")});
    device = Device{.driver = "test-driver.cdi.k8s.io", .attributes = attrs, .capacity = caps};
  }
};

struct EvalCase {
  std::string expr;
  bool want_ok;     // evaluation succeeds
  bool want_match;  // its result, when it succeeds
  std::string want_error = "";
};

TEST(CelTest, EvaluatesTheDraSubset) {
  TestDevice d;
  const EvalCase cases[] = {
      // kube scheduler_perf dra/templates/resourceclaimtemplate-with-selector.yaml
      {"device.capacity['test-driver.cdi.k8s.io'].memory.compareTo(quantity('1Gi')) == 0 &&\n"
       "device.attributes['test-driver.cdi.k8s.io'].family == 'GPU'",
       true, true},
      // kube scheduler_perf dra/templates/resourceclaim-with-selector.yaml
      {"device.capacity['test-driver.cdi.k8s.io'].counters.compareTo(quantity('2')) >= 0 &&\n"
       "device.attributes['test-driver.cdi.k8s.io'].preallocate",
       true, true},
      {"device.driver == \"test-driver.cdi.k8s.io\"", true, true},
      {"device.driver != 'test-driver.cdi.k8s.io'", true, false},
      {"device.attributes[\"dra.example.com\"].slice >= 3", true, true},
      {"device.attributes[\"dra.example.com\"][\"slice\"] < 3", true, false},
      {"device.attributes['dra.example.com'].slice in [1, 2, 3]", true, true},
      {"device.attributes['dra.example.com'].slice in ['3']", true, false},
      {"'slice' in device.attributes['dra.example.com']", true, true},
      {"'model' in device.attributes['dra.example.com']", true, false},
      {"has(device.attributes['dra.example.com'].slice)", true, true},
      {"has(device.attributes['other.example.com'].slice)", true, false},
      {"device.driver.startsWith('test-') && device.driver.endsWith('.k8s.io')", true, true},
      {"device.driver.contains('cdi') && !device.driver.contains('gpu')", true, true},
      {"device.driver.size() == 22 && size(device.driver) == 22", true, true},
      {"device.capacity['test-driver.cdi.k8s.io'].memory.isGreaterThan(quantity('512Mi'))", true,
       true},
      {"device.capacity['test-driver.cdi.k8s.io'].memory.isLessThan(quantity('1G'))", true, false},
      {"device.capacity['test-driver.cdi.k8s.io'].memory == quantity('1024Mi')", true, true},
      {"device.capacity['test-driver.cdi.k8s.io'].counters.asInteger() * 2 == 4", true, true},
      {"device.attributes['test-driver.cdi.k8s.io'].driverVersion.isLessThan(semver('1.2.3'))",
       true, true},
      {"device.attributes['test-driver.cdi.k8s.io'].driverVersion.compareTo(semver('1.2.3-beta'))"
       " == 1",
       true, true},
      {"device.attributes['test-driver.cdi.k8s.io'].driverVersion.major() == 1", true, true},
      {"device.allowMultipleAllocations ? false : true", true, true},
      {"1 + 2 * 3 - 10 / 3 % 2 == 6", true, true},
      {"-9223372036854775808 < 0 && 0x10 == 16", true, true},
      {"isQuantity('1Gi') && !isQuantity('1x') && isSemver('1.0.0') && !isSemver('v1')", true,
       true},
      // Heterogeneous equality is false, ordering is an error.
      {"device.attributes['dra.example.com'].slice == 'three'", true, false},
      {"device.attributes['dra.example.com'].slice < 'three'", false, false, "no such overload"},
      // A missing attribute: the domain defaults to an empty map, the id is an error.
      {"device.attributes['other.example.com'].model == 'a'", false, false, "no such key: model"},
      {"device.capacity['test-driver.cdi.k8s.io'].cores.compareTo(quantity('1')) > 0", false, false,
       "no such key: cores"},
      // CEL's commutative && and ||: a definitive side absorbs an error on the other.
      {"device.attributes['x'].y == 1 || true", true, true},
      {"false && device.attributes['x'].y == 1", true, false},
      {"device.attributes['x'].y == 1 && false", true, false},
      {"device.attributes['x'].y == 1 && true", false, false, "no such key: y"},
      {"device.attributes['test-driver.cdi.k8s.io'].family", false, false,
       "CEL result of type string could not be converted to bool"},
      {"9223372036854775807 + 1 > 0", false, false, "integer overflow"},
      {"1 / (device.attributes['dra.example.com'].slice - 3) == 0", false, false,
       "division by zero"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expr);
    CompileResult r = Compile(c.expr);
    ASSERT_NE(r.program, nullptr) << r.error.ToString();
    bool matched = false;
    std::string err;
    EXPECT_EQ(r.program->Matches(d.device, &matched, &err), c.want_ok) << err;
    if (c.want_ok) {
      EXPECT_EQ(matched, c.want_match);
    } else {
      EXPECT_EQ(err, c.want_error);
    }
  }
}

// List attributes (DRAListTypeAttributes) and kube's `includes`: the cases of kube's
// staging/src/k8s.io/dynamic-resource-allocation/cel/compile_test.go (TestCEL, named by its case
// names; stored expressions, as the scheduler compiles them) with kube's expected results, and
// the list operations of CEL that Corral's subset has.
TEST(CelTest, ListAttributes) {
  using Kind = AttributeValue::Kind;
  auto scalar = [](Kind k, int64_t i, bool b, std::string_view s) {
    AttributeValue v{.kind = k, .int_value = i, .bool_value = b, .string_value = s};
    if (k == Kind::kVersion) {
      EXPECT_TRUE(ParseSemver(s, &v.version));
    }
    return v;
  };
  auto list = [&](Kind k, std::vector<AttributeValue> elems) {
    AttributeValue v{.kind = k};
    v.list = std::move(elems);
    return v;
  };
  std::vector<DeviceAttribute> attrs = {
      {"dra.example.com", "bools",
       list(Kind::kBool, {scalar(Kind::kBool, 0, true, ""), scalar(Kind::kBool, 0, false, "")})},
      {"dra.example.com", "ints",
       list(Kind::kInt, {scalar(Kind::kInt, 1, false, ""), scalar(Kind::kInt, 2, false, "")})},
      {"dra.example.com", "names",
       list(Kind::kString,
            {scalar(Kind::kString, 0, false, "fish"), scalar(Kind::kString, 0, false, "bird")})},
      {"dra.example.com", "versions",
       list(Kind::kVersion, {scalar(Kind::kVersion, 0, false, "1.0.0"),
                             scalar(Kind::kVersion, 0, false, "2.0.0")})},
      {"dra.example.com", "name", scalar(Kind::kString, 0, false, "fish")},
      {"dra.example.com", "flag", scalar(Kind::kBool, 0, true, "")},
      {"dra.example.com", "one", scalar(Kind::kInt, 1, false, "")},
  };
  Device dev{.driver = "dra.example.com", .attributes = attrs};
  const std::string a = "device.attributes['dra.example.com'].";
  const EvalCase cases[] = {
      // includes-function-on-{bool,int,string}-{scalar,list}-{positive,negative}
      {a + "flag.includes(true)", true, true},
      {a + "flag.includes(false)", true, false},
      {a + "bools.includes(true)", true, true},
      {a + "one.includes(1)", true, true},
      {a + "one.includes(2)", true, false},
      {a + "ints.includes(1)", true, true},
      {a + "ints.includes(3)", true, false},
      {a + "name.includes('fish')", true, true},
      {a + "name.includes('bird')", true, false},
      {a + "names.includes('bird')", true, true},
      {a + "names.includes('cat')", true, false},
      {a + "versions.includes(semver('2.0.0'))", true, true},
      {a + "versions.includes('2.0.0')", true, false},  // a string is not a Semver
      {a + "names.includes(1)", true, false},
      // CEL's list operations on a list attribute.
      {"'fish' in " + a + "names", true, true},
      {"2 in " + a + "ints && !(3 in " + a + "ints)", true, true},
      {a + "names[1] == 'bird' && " + a + "ints[0] == 1", true, true},
      {"size(" + a + "names) == 2 && " + a + "ints.size() == 2", true, true},
      {a + "ints == [1, 2] && " + a + "ints != [2, 1] && " + a + "names == " + a + "names", true,
       true},
      {a + "ints == 1", true, false},
      {a + "ints[2] == 1", false, false, "index out of bounds: 2"},
      {a + "ints < 1", false, false, "no such overload"},
      {"'fish' in " + a + "name", false, false, "no such overload"},
      {a + "names", false, false, "CEL result of type list(dyn) could not be converted to bool"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expr);
    CompileResult r = Compile(c.expr);
    ASSERT_NE(r.program, nullptr) << r.error.ToString();
    bool matched = false;
    std::string err;
    EXPECT_EQ(r.program->Matches(dev, &matched, &err), c.want_ok) << err;
    if (c.want_ok) {
      EXPECT_EQ(matched, c.want_match);
    } else {
      EXPECT_EQ(err, c.want_error);
    }
  }
  // kube's list macros stay outside the subset ("macro-on-list-of-string").
  EXPECT_EQ(Compile(a + "names.all(x, x != '')").error.ToString(),
            "unsupported CEL macro 'all' (column 44)");
  EXPECT_EQ(Compile(a + "names.includes()").error.ToString(),
            "compilation failed: found no matching overload for 'includes' with 0 argument(s) "
            "(column 44)");
}

struct CompileCase {
  std::string expr;
  std::string want;  // CompileError::ToString()
};

// Every construct outside the subset is a positioned "unsupported CEL" error; invalid CEL is a
// positioned compilation error.
TEST(CelTest, RejectsWhatItDoesNotImplementWithAColumn) {
  const CompileCase cases[] = {
      {"device.driver.matches('^gpu')", "unsupported CEL function 'matches' (column 15)"},
      {"device.attributes['d'].x > 1.5", "unsupported CEL double literal (column 28)"},
      {"device.attributes['d'].x > 1u", "unsupported CEL unsigned integer literal (column 28)"},
      {"device.attributes['d'].x == b'a'", "unsupported CEL bytes literal (column 29)"},
      {"device.attributes['d'].x == r'a'", "unsupported CEL raw string literal (column 29)"},
      {"device.attributes['d'].x == '''a'''", "unsupported CEL triple-quoted string (column 29)"},
      {"device.attributes['d'].x == null", "unsupported CEL null literal (column 29)"},
      {"{'a': 1}['a'] == 1", "unsupported CEL map literal (column 1)"},
      {"device.driver + 'x' == 'y'", "unsupported CEL string concatenation (column 15)"},
      {"[1, 2].exists(x, x == 1)", "unsupported CEL macro 'exists' (column 8)"},
      {"[1, 2].all(x, x > 0)", "unsupported CEL macro 'all' (column 8)"},
      {"int(device.attributes['d'].x) == 1", "unsupported CEL function 'int' (column 1)"},
      {"device.driver.lowerAscii() == 'a'", "unsupported CEL function 'lowerAscii' (column 15)"},
      {"quantity(device.driver).sign() == 1",
       "unsupported CEL quantity() of a computed string (column 1)"},
      {"[1, 2][0] == 1", "unsupported CEL list indexing (column 7)"},
      {"'a\\u0041' == 'aA'", "unsupported CEL string escape '\\u' (column 3)"},
      {".device.driver == 'a'", "unsupported CEL leading-dot identifier (column 1)"},
      {"pod.name == 'a'",
       "compilation failed: undeclared reference to 'pod' (in container '') "
       "(column 1)"},
      {"device.name == 'a'", "compilation failed: undefined field 'name' (column 8)"},
      {"device.driver == 1",
       "compilation failed: found no matching overload for '_==_' applied "
       "to '(string, int)' (column 15)"},
      {"device.capacity['d'].x > quantity('1')",
       "compilation failed: found no matching overload for '_>_' applied to '(Quantity, "
       "Quantity)' (column 24)"},
      {"device.driver", "compilation failed: must evaluate to bool, got string (column 1)"},
      {"device.driver ==",
       "compilation failed: Syntax error: mismatched input '<EOF>' expecting "
       "an expression (column 17)"},
      {"device.driver = 'a'",
       "compilation failed: Syntax error: token recognition error at: '=' (column 15)"},
      {"quantity('1x') == quantity('1')",
       "compilation failed: quantity(\"1x\"): quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (column 1)"},
      {"semver('v1') == semver('1.0.0')",
       "compilation failed: semver(\"v1\"): invalid semver (column 1)"},
      {"if == 1", "compilation failed: reserved identifier: if (column 1)"},
      {"'abc", "compilation failed: Syntax error: unterminated string literal (column 1)"},
      {"99999999999999999999 > 0", "compilation failed: invalid int literal (column 1)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.expr);
    CompileResult r = Compile(c.expr);
    EXPECT_EQ(r.program, nullptr);
    EXPECT_EQ(r.error.ToString(), c.want);
  }
}

TEST(CelTest, NestingIsBounded) {
  std::string deep(200, '(');
  deep += "true";
  deep += std::string(200, ')');
  CompileResult r = Compile(deep);
  EXPECT_EQ(r.program, nullptr);
  EXPECT_EQ(r.error.message, "expression recursion limit exceeded");
}

TEST(CelTest, SemverPrecedence) {
  // semver.org §11 example order.
  const char* order[] = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
                         "1.0.0-beta",  "1.0.0-beta.2",  "1.0.0-beta.11",
                         "1.0.0-rc.1",  "1.0.0",         "1.0.1",
                         "1.1.0",       "2.0.0"};
  for (size_t i = 0; i + 1 < std::size(order); ++i) {
    Version a, b;
    ASSERT_TRUE(ParseSemver(order[i], &a));
    ASSERT_TRUE(ParseSemver(order[i + 1], &b));
    EXPECT_LT(CompareVersions(a, b), 0) << order[i] << " < " << order[i + 1];
    EXPECT_GT(CompareVersions(b, a), 0);
  }
  Version v;
  EXPECT_FALSE(ParseSemver("1.0", &v));
  EXPECT_FALSE(ParseSemver("01.0.0", &v));
  EXPECT_FALSE(ParseSemver("1.0.0-01", &v));
  EXPECT_TRUE(ParseSemver("1.0.0+build.7", &v));
}

}  // namespace
}  // namespace corral::cel
