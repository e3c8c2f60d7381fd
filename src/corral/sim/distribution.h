#pragma once
// Distribution: a duration drawn per use (pod run time, inter-arrival gap, binding latency).
//
// Contract:
//  (1) Sampling is deterministic: it draws only from the Rng passed in, with fully specified
//      arithmetic (Box-Muller for normal/lognormal, inversion for exponential), so the same seed
//      gives the same durations on every platform.
//  (2) Samples are clamped to [min, max] and are never negative. kForever samples kForeverNs.
//  (3) Parse accepts the scenario spellings (see docs/scenarios.md): a Go duration ("30m"),
//      "forever", or a map {fixed|uniform|exponential|lognormal|normal: ...}; problems go to
//      the Decoder.

#include <cstdint>
#include <limits>
#include <string>

#include "corral/core/clock.h"
#include "corral/core/rng.h"
#include "corral/doc/decoder.h"

namespace corral::sim {

inline constexpr int64_t kForeverNs = std::numeric_limits<int64_t>::max();

struct Distribution {
  enum class Kind : uint8_t { kFixed, kUniform, kExponential, kLogNormal, kNormal, kForever };
  Kind kind = Kind::kFixed;
  // Parameters in nanoseconds (sigma is dimensionless):
  //   kFixed: a;  kUniform: [a, b];  kExponential: mean a;  kLogNormal: median a, sigma;  kNormal:
  //   mean a, stddev b.
  double a = 0;
  double b = 0;
  double sigma = 0;
  int64_t min = 0;
  int64_t max = kForeverNs;

  static Distribution Fixed(Duration d) {
    Distribution x;
    x.a = static_cast<double>(d.count());
    return x;
  }
  static Distribution Forever() {
    Distribution x;
    x.kind = Kind::kForever;
    return x;
  }
  bool is_zero() const { return kind == Kind::kFixed && a == 0; }
  bool is_forever() const { return kind == Kind::kForever; }

  // A sample in nanoseconds (kForeverNs for kForever).
  int64_t SampleNs(Rng& rng) const;
  // Mean in nanoseconds (for descriptions and sanity checks); kForeverNs for kForever.
  double MeanNs() const;
  // "30m", "exp(mean 20m)", "lognormal(median 10m, sigma 1.2)", "forever".
  std::string ToString() const;
};

// Decodes a distribution at `n` (see contract 3). Returns false (with a diagnostic) when invalid.
bool DecodeDistribution(doc::Decoder& d, const doc::Node& n, Distribution& out);

// Reads a Go duration that virtual time can hold: not negative and at most kMaxVirtualNs. False
// (with a diagnostic at `n`) otherwise.
bool ReadVirtualDurationNs(doc::Decoder& d, const doc::Node& n, int64_t& out);

// A standard normal deviate (Box-Muller, one value per call, two uniforms).
double StandardNormal(Rng& rng);

// "1h02m03.5s"-style Go duration text of `ns`, shortest exact form ("90s" → "1m30s", 0 → "0s").
std::string FormatGoDuration(int64_t ns);

}  // namespace corral::sim
