#include "corral/loader/internal/decode_list_attributes.h"

#include <fmt/format.h>

namespace corral::loader::internal {

namespace {

constexpr size_t kDeviceAttributeMaxValueLength = 64;

}  // namespace

bool IsListAttributeField(std::string_view key) {
  return key == "ints" || key == "bools" || key == "strings" || key == "versions";
}

void DecodeListAttribute(doc::Decoder& d, std::string_view key, const doc::Node& n,
                         cel::AttributeValue& out) {
  using Kind = cel::AttributeValue::Kind;
  out.kind = key == "ints"      ? Kind::kInt
             : key == "bools"   ? Kind::kBool
             : key == "strings" ? Kind::kString
                                : Kind::kVersion;
  out.list.clear();
  if (!d.ExpectSequence(n)) return;
  if (n.size() == 0) {
    d.Error(n, "Required value: must have at least one value");
    return;
  }
  d.ForEachItem(n, [&](const doc::Node& item) {
    cel::AttributeValue e;
    e.kind = out.kind;
    switch (out.kind) {
      case Kind::kInt:
        if (!d.ReadInt64(item, e.int_value)) return;
        break;
      case Kind::kBool:
        if (!d.ReadBool(item, e.bool_value)) return;
        break;
      case Kind::kString:
      case Kind::kVersion: {
        std::string_view s;
        if (!d.ReadString(item, s)) return;
        e.string_value = d.interner()->Str(d.Intern(s));
        if (s.size() > kDeviceAttributeMaxValueLength) {
          d.Error(item, fmt::format("Too long: may not be more than {} bytes",
                                    kDeviceAttributeMaxValueLength));
        }
        if (out.kind == Kind::kVersion && !cel::ParseSemver(e.string_value, &e.version)) {
          d.Error(item, fmt::format("Invalid value: {:?}: must be a string compatible with "
                                    "semver.org spec 2.0.0",
                                    s));
        }
        break;
      }
    }
    out.list.push_back(std::move(e));
  });
}

}  // namespace corral::loader::internal
