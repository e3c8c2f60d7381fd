#pragma once
// A small CEL interpreter for the subset that DRA device selectors use (kube's
// k8s.io/dynamic-resource-allocation/cel environment): one variable, `device`, with `driver`,
// `attributes`, `capacity` and `allowMultipleAllocations`.
//
// Supported (docs/formats.md lists it with examples):
//   - literals: int (decimal and 0x hex), bool, string ('…' or "…" with \\ \' \" \n \t escapes),
//     list literals `[a, b]` (only as the right-hand side of `in`);
//   - `device.driver`, `device.attributes["domain"].id` / `device.attributes["domain"]["id"]`,
//     `device.capacity["domain"].id`, `device.allowMultipleAllocations`;
//   - `==` `!=` `<` `<=` `>` `>=`, `&&` `||` `!`, `?:`, int `+` `-` `*` `/` `%` and unary `-`,
//     `in` (map key or list membership), `has(device.attributes["domain"].id)`;
//   - string methods `startsWith`, `endsWith`, `contains`, `size()` and `size(s)`;
//   - list attributes (DRAListTypeAttributes): `x in attr`, `attr[i]`, `size(attr)` /
//     `attr.size()`, `==` / `!=` between lists, and kube's `includes` (`attr.includes(x)`: list
//     membership, or equality for a scalar attribute). kube's scheduler compiles selectors in its
//     stored-expressions environment, which has `includes` and list values whatever the gate;
//     Corral's subset does the same;
//   - `quantity("…")` with `compareTo`, `isGreaterThan`, `isLessThan`, `sign`, `isInteger`,
//     `asInteger`; `isQuantity("…")`;
//   - `semver("…")` with `compareTo`, `isGreaterThan`, `isLessThan`, `major`, `minor`, `patch`;
//     `isSemver("…")`. Version attributes are semver values, as in kube.
// Everything else (doubles, uints, bytes, maps, macros such as all/exists, `matches`, string
// concatenation, other functions) is rejected by Compile with an "unsupported CEL …" message, so
// an expression is never evaluated with a construct Corral does not implement.
//
// Semantics follow kube's environment: a missing attribute domain is an empty map, so
// `device.attributes["other"].x` is a runtime error "no such key: x" (kube's allocator turns a
// runtime error into an error for the pod, not a non-match); `&&` and `||` absorb errors as CEL
// does (`false && error` is false); `==` between values of different types is false while ordering
// them is an error; int arithmetic errors on overflow and division by zero.
//
// Evaluation allocates nothing unless it fails (the error message is built then) or compares lists.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/core/result.h"

namespace corral::cel {

// A semantic version (semver 2.0.0); build metadata is dropped, as in kube's semver library.
struct Version {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  std::string_view pre;  // pre-release identifiers, dot-separated; empty if none
};
// Parses a strict semver string (no leading "v", no missing minor/patch). False if invalid.
bool ParseSemver(std::string_view s, Version* out);
// <0, 0, >0 by semver precedence.
int CompareVersions(const Version& a, const Version& b);

// One device attribute value (resource.k8s.io DeviceAttribute): exactly one of int, bool, string,
// version or, with DRAListTypeAttributes, one of the lists ints, bools, strings and versions.
struct AttributeValue {
  enum class Kind : uint8_t { kInt, kBool, kString, kVersion };
  Kind kind = Kind::kInt;
  int64_t int_value = 0;
  bool bool_value = false;
  std::string_view string_value;  // kString; for kVersion the original text
  Version version;
  // A list attribute: its elements, each a scalar of `kind`, in the slice's order; the scalar
  // fields above are unused then. The loader never makes an empty list (kube requires a value).
  std::vector<AttributeValue> list;
  bool is_list() const { return !list.empty(); }
};

// An attribute or capacity entry, its qualified name split into domain and id (an unqualified
// name has the driver as its domain, as kube does).
struct DeviceAttribute {
  std::string_view domain;
  std::string_view id;
  AttributeValue value;
};
struct DeviceCapacity {
  std::string_view domain;
  std::string_view id;
  api::Quantity value;
};

// The device a selector is evaluated against. The views must outlive the evaluation.
struct Device {
  std::string_view driver;
  std::span<const DeviceAttribute> attributes;
  std::span<const DeviceCapacity> capacity;
  bool allow_multiple_allocations = false;
};

// A compile error: `column` is 1-based within the expression; `unsupported` distinguishes a
// construct outside Corral's subset from an expression kube rejects too.
struct CompileError {
  int column = 1;
  bool unsupported = false;
  std::string message;
  // "unsupported CEL …: column N" or "compilation failed: … (column N)".
  std::string ToString() const;
};

class Program {
 public:
  ~Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;

  // Evaluates the expression for `device`. Returns true with *matched set on success; on a run-time
  // error returns false and sets *error (when non-null) to CEL's message. Thread-safe (const, no
  // shared state).
  bool Matches(const Device& device, bool* matched, std::string* error) const;

  const std::string& source() const;

  struct Impl;  // defined in cel.cc; only Compile creates programs
  explicit Program(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// Parses and type-checks `expression`; the result type must be bool (or dynamic, checked at run
// time, as kube does).
struct CompileResult {
  std::unique_ptr<Program> program;  // null on error
  CompileError error;
};
CompileResult Compile(std::string_view expression);

}  // namespace corral::cel
