#include "corral/sim/distribution.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "corral/sim/virtual_time.h"

namespace corral::sim {

double StandardNormal(Rng& rng) {
  // 1 - U keeps the logarithm's argument in (0, 1].
  double u1 = 1.0 - rng.UniformDouble();
  double u2 = rng.UniformDouble();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

int64_t Distribution::SampleNs(Rng& rng) const {
  double v = 0;
  switch (kind) {
    case Kind::kForever:
      return kForeverNs;
    case Kind::kFixed:
      v = a;
      break;
    case Kind::kUniform:
      v = a + (b - a) * rng.UniformDouble();
      break;
    case Kind::kExponential:
      v = -a * std::log(1.0 - rng.UniformDouble());
      break;
    case Kind::kLogNormal:
      v = a * std::exp(sigma * StandardNormal(rng));
      break;
    case Kind::kNormal:
      v = a + b * StandardNormal(rng);
      break;
  }
  if (!(v > 0)) v = 0;  // also NaN
  constexpr double kCap = 9.0e18;
  int64_t ns = v >= kCap ? static_cast<int64_t>(kCap) : static_cast<int64_t>(std::llround(v));
  return std::clamp(ns, min, max);
}

double Distribution::MeanNs() const {
  switch (kind) {
    case Kind::kForever:
      return static_cast<double>(kForeverNs);
    case Kind::kFixed:
      return a;
    case Kind::kUniform:
      return (a + b) / 2;
    case Kind::kExponential:
      return a;
    case Kind::kLogNormal:
      return a * std::exp(sigma * sigma / 2);
    case Kind::kNormal:
      return a;
  }
  return a;
}

std::string FormatGoDuration(int64_t ns) {
  if (ns == kForeverNs) return "forever";
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  uint64_t u = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  if (u < 1000) return fmt::format("{}{}ns", sign, u);
  auto frac = [](uint64_t whole, uint64_t rem, uint64_t scale) {
    std::string s = std::to_string(whole);
    if (rem == 0) return s;
    std::string f =
        fmt::format("{:0{}}", rem, static_cast<int>(std::log10(static_cast<double>(scale)) + 0.5));
    while (!f.empty() && f.back() == '0') f.pop_back();
    return s + "." + f;
  };
  if (u < 1000000) return sign + frac(u / 1000, u % 1000, 1000) + "µs";
  if (u < 1000000000) return sign + frac(u / 1000000, u % 1000000, 1000000) + "ms";
  uint64_t secs = u / 1000000000, rem = u % 1000000000;
  uint64_t h = secs / 3600, m = (secs / 60) % 60, s = secs % 60;
  std::string out = sign;
  if (h > 0) out += fmt::format("{}h", h);
  if (h > 0 || m > 0) out += fmt::format("{}m", m);
  out += frac(s, rem, 1000000000) + "s";
  return out;
}

std::string Distribution::ToString() const {
  auto d = [](double ns) { return FormatGoDuration(static_cast<int64_t>(std::llround(ns))); };
  switch (kind) {
    case Kind::kForever:
      return "forever";
    case Kind::kFixed:
      return d(a);
    case Kind::kUniform:
      return fmt::format("uniform({}..{})", d(a), d(b));
    case Kind::kExponential:
      return fmt::format("exponential(mean {})", d(a));
    case Kind::kLogNormal:
      return fmt::format("lognormal(median {}, sigma {})", d(a), sigma);
    case Kind::kNormal:
      return fmt::format("normal(mean {}, stddev {})", d(a), d(b));
  }
  return "?";
}

namespace {

struct DistIn {
  Distribution dist;
  int kinds = 0;
};

bool ReadNs(doc::Decoder& d, const doc::Node& n, double& out) {
  int64_t ns = 0;
  if (!ReadVirtualDurationNs(d, n, ns)) return false;
  out = static_cast<double>(ns);
  return true;
}

const doc::Field<DistIn> kFixedFields[] = {
    {"value", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.a); }},
};
const doc::Field<DistIn> kUniformFields[] = {
    {"min", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.a); }},
    {"max", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.b); }},
};
const doc::Field<DistIn> kExpFields[] = {
    {"mean", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.a); }},
};
const doc::Field<DistIn> kLogNormalFields[] = {
    {"median", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.a); }},
    {"sigma",
     [](doc::Decoder& d, const doc::Node& n, DistIn& o) {
       if (d.ReadFloat(n, o.dist.sigma) && (o.dist.sigma < 0 || o.dist.sigma > 10)) {
         d.Error(n, "must be between 0 and 10");
       }
     }},
};
const doc::Field<DistIn> kNormalFields[] = {
    {"mean", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.a); }},
    {"stddev", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { ReadNs(d, n, o.dist.b); }},
};

void Bound(doc::Decoder& d, const doc::Node& n, int64_t& out) {
  Duration v{};
  if (!d.ReadDuration(n, v)) return;
  if (v.count() > kMaxVirtualNs) {
    d.Error(n, VirtualRangeError(n.text()));
    return;
  }
  out = v.count();
}

const doc::Field<DistIn> kDistFields[] = {
    {"fixed",
     [](doc::Decoder& d, const doc::Node& n, DistIn& o) {
       ++o.kinds;
       o.dist.kind = Distribution::Kind::kFixed;
       if (n.is_map()) {
         d.Struct(n, o, kFixedFields);
       } else {
         ReadNs(d, n, o.dist.a);
       }
     }},
    {"uniform",
     [](doc::Decoder& d, const doc::Node& n, DistIn& o) {
       ++o.kinds;
       o.dist.kind = Distribution::Kind::kUniform;
       auto seen = d.Struct(n, o, kUniformFields);
       if (n.is_map() && !seen.has("min")) d.Required(n, "min");
       if (n.is_map() && !seen.has("max")) d.Required(n, "max");
       if (seen.has("min") && seen.has("max") && o.dist.b < o.dist.a)
         d.Error(n, "max must not be below min");
     }},
    {"exponential",
     [](doc::Decoder& d, const doc::Node& n, DistIn& o) {
       ++o.kinds;
       o.dist.kind = Distribution::Kind::kExponential;
       if (n.is_map()) {
         if (!d.Struct(n, o, kExpFields).has("mean")) d.Required(n, "mean");
       } else {
         ReadNs(d, n, o.dist.a);
       }
     }},
    {"lognormal",
     [](doc::Decoder& d, const doc::Node& n, DistIn& o) {
       ++o.kinds;
       o.dist.kind = Distribution::Kind::kLogNormal;
       o.dist.sigma = 1.0;
       auto seen = d.Struct(n, o, kLogNormalFields);
       if (n.is_map() && !seen.has("median")) d.Required(n, "median");
     }},
    {"normal",
     [](doc::Decoder& d, const doc::Node& n, DistIn& o) {
       ++o.kinds;
       o.dist.kind = Distribution::Kind::kNormal;
       auto seen = d.Struct(n, o, kNormalFields);
       if (n.is_map() && !seen.has("mean")) d.Required(n, "mean");
       if (n.is_map() && !seen.has("stddev")) d.Required(n, "stddev");
     }},
    {"min", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { Bound(d, n, o.dist.min); }},
    {"max", [](doc::Decoder& d, const doc::Node& n, DistIn& o) { Bound(d, n, o.dist.max); }},
};

}  // namespace

bool ReadVirtualDurationNs(doc::Decoder& d, const doc::Node& n, int64_t& out) {
  Duration v{};
  if (!d.ReadDuration(n, v)) return false;
  if (v.count() < 0) {
    d.Error(n, "must not be negative");
    return false;
  }
  if (v.count() > kMaxVirtualNs) {
    d.Error(n, VirtualRangeError(n.text()));
    return false;
  }
  out = v.count();
  return true;
}

bool DecodeDistribution(doc::Decoder& d, const doc::Node& n, Distribution& out) {
  if (n.is_null()) return false;
  size_t errors = d.error_count();
  if (n.is_scalar()) {
    std::string_view s;
    if (!d.ReadString(n, s)) return false;
    if (s == "forever") {
      out = Distribution::Forever();
      return true;
    }
    int64_t ns = 0;
    if (!ReadVirtualDurationNs(d, n, ns)) return false;
    out = Distribution::Fixed(Duration(ns));
    return true;
  }
  DistIn in;
  d.Struct(n, in, kDistFields);
  if (!n.is_map()) return false;
  if (in.kinds != 1) {
    d.Error(n, in.kinds == 0
                   ? "want one of fixed, uniform, exponential, lognormal, normal"
                   : "give exactly one of fixed, uniform, exponential, lognormal, normal");
    return false;
  }
  if (in.dist.min > in.dist.max) {
    d.Error(n, "max must not be below min");
    return false;
  }
  if (d.error_count() != errors) return false;
  out = in.dist;
  return true;
}

}  // namespace corral::sim
