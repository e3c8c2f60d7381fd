// Compiles arbitrary bytes as a DRA device-selector CEL expression and evaluates what compiles
// against two fixed devices. Contracts checked:
//   1. Compile never crashes; a failure has a non-empty message and a column within the input
//      (or one past its end), and is either "unsupported CEL …" or "compilation failed: …".
//   2. Compiling is deterministic: the same input gives the same error or an equivalent program.
//   3. Evaluation never crashes; a run-time failure has a non-empty message, and evaluating twice
//      gives the same result.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "corral/api/quantity.h"
#include "corral/cel/cel.h"
#include "corral/core/check.h"

namespace {

using corral::cel::AttributeValue;
using corral::cel::Compile;
using corral::cel::CompileResult;
using corral::cel::Device;
using corral::cel::DeviceAttribute;
using corral::cel::DeviceCapacity;

struct Devices {
  DeviceAttribute attrs[6];
  DeviceCapacity caps[2];
  Device gpu;
  Device empty;

  Devices() {
    attrs[0] = {"gpu.example.com",
                "model",
                {.kind = AttributeValue::Kind::kString, .string_value = "LATEST-GPU-MODEL"}};
    attrs[1] = {"gpu.example.com", "index", {.kind = AttributeValue::Kind::kInt, .int_value = 7}};
    attrs[2] = {"dra.example.com",
                "preallocate",
                {.kind = AttributeValue::Kind::kBool, .bool_value = true}};
    AttributeValue v{.kind = AttributeValue::Kind::kVersion, .string_value = "1.2.3"};
    CORRAL_CHECK(corral::cel::ParseSemver("1.2.3", &v.version));
    attrs[3] = {"gpu.example.com", "driverVersion", v};
    // List attributes (DRAListTypeAttributes), as kube's standard pcieRoot and a NUMA list.
    AttributeValue roots{.kind = AttributeValue::Kind::kString};
    roots.list = {{.kind = AttributeValue::Kind::kString, .string_value = "pci0000:00"},
                  {.kind = AttributeValue::Kind::kString, .string_value = "pci0000:40"}};
    attrs[4] = {"resource.kubernetes.io", "pcieRoot", roots};
    AttributeValue numa{.kind = AttributeValue::Kind::kInt};
    numa.list = {{.kind = AttributeValue::Kind::kInt, .int_value = 0},
                 {.kind = AttributeValue::Kind::kInt, .int_value = 1}};
    attrs[5] = {"gpu.example.com", "numa", numa};
    caps[0] = {"gpu.example.com", "memory", *corral::api::Quantity::Parse("40Gi")};
    caps[1] = {"dra.example.com", "counters", *corral::api::Quantity::Parse("2")};
    gpu = Device{.driver = "gpu.example.com", .attributes = attrs, .capacity = caps};
    empty = Device{.driver = "other.example.com"};
  }
};

void Evaluate(const corral::cel::Program& p, const Device& d) {
  bool m1 = false, m2 = false;
  std::string e1, e2;
  const bool ok1 = p.Matches(d, &m1, &e1);
  const bool ok2 = p.Matches(d, &m2, &e2);
  CORRAL_CHECK(ok1 == ok2 && m1 == m2 && e1 == e2);
  CORRAL_CHECK(ok1 ? e1.empty() : !e1.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Devices devices;
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  CompileResult r = Compile(input);
  CompileResult again = Compile(input);
  CORRAL_CHECK((r.program == nullptr) == (again.program == nullptr));
  if (r.program == nullptr) {
    CORRAL_CHECK(!r.error.message.empty());
    CORRAL_CHECK(r.error.column >= 1 && static_cast<size_t>(r.error.column) <= size + 1);
    CORRAL_CHECK(r.error.ToString() == again.error.ToString());
    const std::string s = r.error.ToString();
    CORRAL_CHECK(s.starts_with("unsupported CEL ") || s.starts_with("compilation failed: "));
    return 0;
  }
  Evaluate(*r.program, devices.gpu);
  Evaluate(*r.program, devices.empty);
  return 0;
}
