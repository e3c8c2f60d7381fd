#include "corral/framework/feature_gates.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>

#include <fmt/format.h>

namespace corral::framework {

namespace {

using PR = PreRelease;
constexpr KubeVersion V(int minor) {
  return KubeVersion{1, minor};
}
constexpr KubeVersion kAlways{0, 0};  // kube's version 0.0: available at every version

// kube's versioned specs (KK pkg/features/kube_features.go and the scheduler's feature list of
// v1.37), oldest first, as kube lists them.
constexpr VersionedSpec kOpportunisticBatching[] = {{V(35), true, PR::kBeta}};
constexpr VersionedSpec kGenericWorkload[] = {{V(35), false, PR::kAlpha},
                                              {V(37), false, PR::kBeta}};
constexpr VersionedSpec kTopologyAwareWorkloadScheduling[] = {{V(36), false, PR::kAlpha}};
constexpr VersionedSpec kSchedulerQueueingHints[] = {
    {V(28), false, PR::kBeta}, {V(32), true, PR::kBeta}, {V(34), true, PR::kGA, true}};
constexpr VersionedSpec kSchedulerPopFromBackoffQ[] = {{V(33), true, PR::kBeta}};
constexpr VersionedSpec kSchedulerAsyncPreemption[] = {{V(32), false, PR::kAlpha},
                                                       {V(33), true, PR::kBeta}};
constexpr VersionedSpec kPodLevelResources[] = {{V(32), false, PR::kAlpha},
                                                {V(34), true, PR::kBeta}};
constexpr VersionedSpec kSidecarContainers[] = {
    {V(28), false, PR::kAlpha}, {V(29), true, PR::kBeta}, {V(33), true, PR::kGA, true}};
constexpr VersionedSpec kDynamicResourceAllocation[] = {{V(26), false, PR::kAlpha},
                                                        {V(32), false, PR::kBeta},
                                                        {V(34), true, PR::kGA},
                                                        {V(35), true, PR::kGA, true}};
constexpr VersionedSpec kDRAExtendedResource[] = {
    {V(34), false, PR::kAlpha}, {V(36), true, PR::kBeta}, {V(37), true, PR::kGA, true}};
constexpr VersionedSpec kDRAPrioritizedList[] = {{V(33), false, PR::kAlpha},
                                                 {V(34), true, PR::kBeta},
                                                 {V(36), true, PR::kGA},
                                                 {V(37), true, PR::kGA, true}};
constexpr VersionedSpec kDRADeviceTaints[] = {
    {V(33), false, PR::kAlpha}, {V(36), true, PR::kBeta}, {V(37), true, PR::kGA}};
constexpr VersionedSpec kDRADeviceTaintRules[] = {
    {V(35), false, PR::kAlpha}, {V(36), false, PR::kBeta}, {V(37), true, PR::kGA}};
constexpr VersionedSpec kMatchLabelKeysInPodTopologySpread[] = {{V(25), false, PR::kAlpha},
                                                                {V(27), true, PR::kBeta}};
constexpr VersionedSpec kNodeInclusionPolicyInPodTopologySpread[] = {
    {V(25), false, PR::kAlpha}, {V(26), true, PR::kBeta}, {V(33), true, PR::kGA, true}};
constexpr VersionedSpec kMatchLabelKeysInPodAffinity[] = {
    {V(29), false, PR::kAlpha}, {V(31), true, PR::kBeta}, {V(33), true, PR::kGA, true}};
constexpr VersionedSpec kCompositePodGroup[] = {{V(37), false, PR::kAlpha}};
constexpr VersionedSpec kStorageCapacityScoring[] = {{V(33), false, PR::kAlpha},
                                                     {V(37), true, PR::kBeta}};
constexpr VersionedSpec kInPlacePodVerticalScaling[] = {
    {V(27), false, PR::kAlpha}, {V(33), true, PR::kBeta}, {V(35), true, PR::kGA, true}};
constexpr VersionedSpec kInPlacePodVerticalScalingSchedulerPreemption[] = {
    {V(37), false, PR::kAlpha}};
constexpr VersionedSpec kDRAListTypeAttributes[] = {{V(36), false, PR::kAlpha}};
constexpr VersionedSpec kDRAResourceClaimDeviceStatus[] = {
    {V(32), false, PR::kAlpha}, {V(33), true, PR::kBeta}, {V(37), true, PR::kGA, true}};
constexpr VersionedSpec kDRADeviceBindingConditions[] = {{V(34), false, PR::kAlpha},
                                                         {V(36), true, PR::kBeta}};
constexpr VersionedSpec kDRADeviceCompatibilityGroups[] = {{V(37), false, PR::kAlpha}};
constexpr VersionedSpec kDRAWorkloadResourceClaims[] = {{V(36), false, PR::kAlpha},
                                                        {V(37), false, PR::kBeta}};
constexpr VersionedSpec kNodeDeclaredFeatures[] = {
    {V(35), false, PR::kAlpha}, {V(36), true, PR::kBeta}, {V(37), true, PR::kGA, true}};
// Corral-only gates (docs/deviations.md): on, at every version.
constexpr VersionedSpec kCorralOn[] = {{kAlways, true, PR::kBeta}};

constexpr std::string_view kResizeOffNotModelled =
    "Corral's pods always carry their resize state (kube's behaviour with the gate on)";
constexpr std::string_view kPrioritizedListOffNotModelled =
    "Corral's DRA allocator always honours firstAvailable (kube's behaviour with the gate on)";

// Indexed by Feature. GenericWorkload is beta and off in kube v1.37 and TopologyAwareWorkload-
// Scheduling alpha and off; Corral enables both by default (documented deviation:
// docs/deviations.md).
constexpr std::array<FeatureSpec, static_cast<size_t>(Feature::kCount)> kSpecs = {{
    {"OpportunisticBatching", kOpportunisticBatching},
    {"GenericWorkload", kGenericWorkload, true},
    {"TopologyAwareWorkloadScheduling", kTopologyAwareWorkloadScheduling, true},
    {"SchedulerQueueingHints", kSchedulerQueueingHints},
    {"SchedulerPopFromBackoffQ", kSchedulerPopFromBackoffQ},
    {"SchedulerAsyncPreemption", kSchedulerAsyncPreemption},
    {"PodLevelResources", kPodLevelResources},
    {"SidecarContainers", kSidecarContainers},
    {"DynamicResourceAllocation", kDynamicResourceAllocation},
    {"DRAExtendedResource", kDRAExtendedResource},
    {"DRAPrioritizedList", kDRAPrioritizedList, false, kPrioritizedListOffNotModelled},
    {"DRADeviceTaints", kDRADeviceTaints},
    {"DRADeviceTaintRules", kDRADeviceTaintRules},
    {"MatchLabelKeysInPodTopologySpread", kMatchLabelKeysInPodTopologySpread},
    {"NodeInclusionPolicyInPodTopologySpread", kNodeInclusionPolicyInPodTopologySpread},
    {"MatchLabelKeysInPodAffinity", kMatchLabelKeysInPodAffinity},
    {"CompositePodGroup", kCompositePodGroup},
    {"StorageCapacityScoring", kStorageCapacityScoring},
    {"InPlacePodVerticalScaling", kInPlacePodVerticalScaling, false, kResizeOffNotModelled},
    {"InPlacePodVerticalScalingSchedulerPreemption", kInPlacePodVerticalScalingSchedulerPreemption},
    {"DRAListTypeAttributes", kDRAListTypeAttributes},
    {"DRAResourceClaimDeviceStatus", kDRAResourceClaimDeviceStatus},
    {"DRADeviceBindingConditions", kDRADeviceBindingConditions},
    {"DRADeviceCompatibilityGroups", kDRADeviceCompatibilityGroups},
    {"DRAWorkloadResourceClaims", kDRAWorkloadResourceClaims},
    {"NodeDeclaredFeatures", kNodeDeclaredFeatures},
    {"CorralBatchingExtensions", kCorralOn},
    {"CorralBatchingRescoreHook", kCorralOn},
    {"CorralIncrementalPreScore", kCorralOn},
    {"CorralFilterMemo", kCorralOn},
    {"CorralPreemptionMemo", kCorralOn},
}};

// ---- kube's version parser (apimachinery util/version: Parse = ParseSemantic, else
// ParseGeneric) --------------------------------------------------------------------------------

struct ParsedVersion {
  std::vector<uint64_t> components;
  std::string pre_release, build_metadata;
  uint64_t Patch() const { return components.size() < 3 ? 0 : components[2]; }
  std::string String() const {
    std::string out;
    for (size_t i = 0; i < components.size(); ++i) {
      if (i > 0) out += '.';
      out += std::to_string(components[i]);
    }
    if (!pre_release.empty()) out += "-" + pre_release;
    if (!build_metadata.empty()) out += "+" + build_metadata;
    return out;
  }
};

bool IsGoSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-';
}

// One of `[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*` at the start of s; its length, or 0.
size_t DottedIdents(std::string_view s) {
  size_t i = 0;
  while (true) {
    size_t start = i;
    while (i < s.size() && IsIdentChar(s[i])) ++i;
    if (i == start) return start == 0 ? 0 : start - 1;  // drop a trailing '.'
    if (i < s.size() && s[i] == '.') {
      ++i;
      continue;
    }
    return i;
  }
}

Result<ParsedVersion> ParseKubeVersion(std::string_view str, bool semver) {
  std::string_view s = str;
  while (!s.empty() && IsGoSpace(s.front())) s.remove_prefix(1);
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  size_t n = 0;  // the numbers: [0-9]+(\.[0-9]+)*
  while (true) {
    size_t start = n;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n])) != 0) ++n;
    if (n == start) {
      if (start == 0) {
        return Error::Invalid(fmt::format("could not parse {:?} as version", str));
      }
      n = start - 1;  // a '.' not followed by a digit belongs to the extra part
      break;
    }
    if (n + 1 < s.size() && s[n] == '.' &&
        std::isdigit(static_cast<unsigned char>(s[n + 1])) != 0) {
      ++n;
      continue;
    }
    break;
  }
  std::string_view numbers = s.substr(0, n), extra = s.substr(n);
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    size_t dot = numbers.find('.', from);
    parts.push_back(numbers.substr(from, dot == std::string_view::npos ? dot : dot - from));
    if (dot == std::string_view::npos) break;
    from = dot + 1;
  }
  if ((semver && parts.size() != 3) || (!semver && parts.size() < 2)) {
    return Error::Invalid(fmt::format("illegal version string {:?}", str));
  }
  ParsedVersion v;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view comp = parts[i];
    if ((i == 0 || semver) && comp.size() > 1 && comp.front() == '0') {
      return Error::Invalid(
          fmt::format("illegal zero-prefixed version component {:?} in {:?}", comp, str));
    }
    uint64_t num = 0;
    auto [ptr, ec] = std::from_chars(comp.data(), comp.data() + comp.size(), num);
    if (ec != std::errc() || ptr != comp.data() + comp.size()) {
      return Error::Invalid(fmt::format(
          "illegal non-numeric version component {:?} in {:?}: strconv.ParseUint: parsing {:?}: "
          "value out of range",
          comp, str, comp));
    }
    v.components.push_back(num);
  }
  if (semver && !extra.empty()) {
    // `^(?:-(idents))?(?:\+(idents))?\s*$`
    std::string_view e = extra;
    bool ok = true;
    if (!e.empty() && e.front() == '-') {
      size_t len = DottedIdents(e.substr(1));
      if (len == 0) ok = false;
      v.pre_release = std::string(e.substr(1, len));
      e.remove_prefix(1 + len);
    }
    if (ok && !e.empty() && e.front() == '+') {
      size_t len = DottedIdents(e.substr(1));
      if (len == 0) ok = false;
      v.build_metadata = std::string(e.substr(1, len));
      e.remove_prefix(1 + len);
    }
    while (ok && !e.empty() && IsGoSpace(e.front())) e.remove_prefix(1);
    if (!ok || !e.empty()) {
      return Error::Invalid(
          fmt::format("could not parse pre-release/metadata ({}) in version {:?}", extra, str));
    }
    for (size_t from = 0; from <= v.pre_release.size() && !v.pre_release.empty();) {
      size_t dot = v.pre_release.find('.', from);
      std::string_view comp = std::string_view(v.pre_release).substr(from, dot - from);
      bool numeric = !comp.empty() && std::all_of(comp.begin(), comp.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      });
      if (numeric && comp.size() > 1 && comp.front() == '0') {
        return Error::Invalid(
            fmt::format("illegal zero-prefixed version component {:?} in {:?}", comp, str));
      }
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
  }
  return v;
}

}  // namespace

std::string KubeVersion::String() const {
  return fmt::format("{}.{}", major, minor);
}

VersionedSpec FeatureSpec::At(KubeVersion v) const {
  for (size_t i = specs.size(); i-- > 0;) {
    if (specs[i].version <= v) return specs[i];
  }
  return VersionedSpec{KubeVersion{0, 0}, false, PreRelease::kPreAlpha, false};
}

bool FeatureSpec::DefaultAt(KubeVersion v) const {
  VersionedSpec s = At(v);
  if (s.pre_release == PreRelease::kPreAlpha) return false;
  return corral_default_on || s.default_value;
}

const FeatureSpec& SpecOf(Feature f) {
  return kSpecs[static_cast<size_t>(f)];
}

const FeatureSpec* FindFeature(std::string_view name) {
  for (const auto& s : kSpecs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Result<KubeVersion> ParseEmulatedVersion(std::string_view flag) {
  // pflag's StringSlice: comma-separated items; then component-base's toVersionMap.
  std::map<std::string, ParsedVersion> by_component;
  for (size_t from = 0; from < flag.size();) {
    size_t comma = flag.find(',', from);
    std::string_view item =
        flag.substr(from, comma == std::string_view::npos ? comma : comma - from);
    from = comma == std::string_view::npos ? flag.size() : comma + 1;
    std::string component = "kube";
    std::string_view value = item;
    if (size_t eq = item.find('='); eq != std::string_view::npos) {
      auto trim = [](std::string_view s) {
        while (!s.empty() && IsGoSpace(s.front())) s.remove_prefix(1);
        while (!s.empty() && IsGoSpace(s.back())) s.remove_suffix(1);
        return s;
      };
      component = std::string(trim(item.substr(0, eq)));
      value = trim(item.substr(eq + 1));
    }
    Result<ParsedVersion> v = ParseKubeVersion(value, true);
    if (!v.ok()) v = ParseKubeVersion(value, false);
    if (!v.ok()) return v.error();
    if (v->Patch() != 0) {
      return Error::Invalid(
          fmt::format("patch version not allowed, got: {}={}", component, v->String()));
    }
    if (auto it = by_component.find(component); it != by_component.end()) {
      return Error::Invalid(fmt::format("duplicate version flag, {}={} and {}={}", component,
                                        it->second.String(), component, v->String()));
    }
    by_component.emplace(component, *std::move(v));
  }
  KubeVersion out = kBinaryVersion;
  for (const auto& [component, v] : by_component) {
    if (component != "kube") {
      return Error::Invalid(fmt::format("component not registered: {}", component));
    }
    const uint64_t major = v.components[0], minor = v.components[1];
    const KubeVersion floor = kEmulationVersionFloor, binary = kBinaryVersion;
    const bool in_range = major == 1 && minor >= static_cast<uint64_t>(floor.minor) &&
                          minor <= static_cast<uint64_t>(binary.minor);
    if (!in_range) {
      // kube's effectiveVersion.Validate (the binary version with patch 0).
      return Error::Invalid(fmt::format("emulation version {}.{} is not between [{}, {}.0]", major,
                                        minor, floor.String(), binary.String()));
    }
    out = KubeVersion{1, static_cast<int>(minor)};
  }
  return out;
}

FeatureGates::FeatureGates() : FeatureGates(kBinaryVersion) {}

FeatureGates::FeatureGates(KubeVersion emulated) : version_(emulated) {
  values_.reserve(kSpecs.size());
  for (const auto& s : kSpecs) values_.push_back(s.DefaultAt(version_));
}

Result<void> FeatureGates::Set(std::string_view name, bool value) {
  for (size_t i = 0; i < kSpecs.size(); ++i) {
    const FeatureSpec& spec = kSpecs[i];
    if (spec.name != name) continue;
    const VersionedSpec at = spec.At(version_);
    if (at.locked && value != at.default_value) {
      return Error::Invalid(fmt::format("cannot set feature gate {} to {}, feature is locked to {}",
                                        name, value, at.default_value));
    }
    if (at.pre_release == PreRelease::kPreAlpha) {
      // kube's min compatibility version is the emulated version − 1 (component-base's
      // SetEmulationVersion; never below the floor, binary − 4).
      const KubeVersion min_compat{version_.major, version_.minor - 1};
      return Error::Invalid(fmt::format(
          "cannot set feature gate {} to {}, feature is PreAlpha at emulated version {}, min "
          "compatibility version {}",
          name, value, version_.String(), min_compat.String()));
    }
    if (!value && !spec.off_not_modelled.empty()) {
      return Error::Invalid(fmt::format("feature gate {}=false is not modelled by Corral: {}", name,
                                        spec.off_not_modelled));
    }
    values_[i] = value;
    set_.emplace_back(static_cast<Feature>(i), value);
    return {};
  }
  return Error::Invalid(fmt::format("unrecognized feature gate: {}", name));
}

Result<void> FeatureGates::ParseFlag(std::string_view flag) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  while (!flag.empty()) {
    size_t comma = flag.find(',');
    std::string_view item = trim(flag.substr(0, comma));
    flag = comma == std::string_view::npos ? std::string_view() : flag.substr(comma + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Error::Invalid(fmt::format("missing bool value for {}", item));
    }
    std::string_view name = trim(item.substr(0, eq));
    std::string_view val = trim(item.substr(eq + 1));
    bool b;
    if (val == "true" || val == "True" || val == "TRUE" || val == "1" || val == "t" || val == "T") {
      b = true;
    } else if (val == "false" || val == "False" || val == "FALSE" || val == "0" || val == "f" ||
               val == "F") {
      b = false;
    } else {
      return Error::Invalid(fmt::format(
          "invalid value of {}={}, err: strconv.ParseBool: parsing \"{}\": invalid syntax", name,
          val, val));
    }
    Result<void> st = Set(name, b);
    if (!st.ok()) return st;
  }
  return {};
}

Result<void> FeatureGates::SetEmulationVersion(KubeVersion v) {
  FeatureGates next(v);
  for (const auto& [f, value] : set_) {
    if (auto st = next.Set(SpecOf(f).name, value); !st.ok()) return st;
  }
  *this = std::move(next);
  return {};
}

std::vector<std::string> FeatureGates::NonDefault() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < kSpecs.size(); ++i) {
    if (values_[i] != kSpecs[i].DefaultAt(version_)) {
      out.push_back(fmt::format("{}={}", kSpecs[i].name, values_[i] ? "true" : "false"));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace corral::framework
