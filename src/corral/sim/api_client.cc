#include "corral/sim/api_client.h"

#include <algorithm>

#include "corral/core/check.h"

namespace corral::sim {

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

// Go's time.Duration.Seconds: whole seconds plus the remainder, each converted on its own.
double Seconds(int64_t d) {
  return static_cast<double>(d / kNsPerSecond) +
         static_cast<double>(d % kNsPerSecond) / static_cast<double>(kNsPerSecond);
}

}  // namespace

TokenBucket::TokenBucket(float qps, int64_t burst)
    : limit_(static_cast<double>(qps)), burst_(burst), tokens_(static_cast<double>(burst)) {
  CORRAL_CHECK(qps > 0 && burst >= 1);
}

double TokenBucket::Advance(int64_t now_ns) const {
  if (!started_) return static_cast<double>(burst_);
  const int64_t last = std::min(last_ns_, now_ns);
  // x/time/rate's tokensFromDuration: elapsed seconds times the rate, capped at the burst.
  double tokens = tokens_ + Seconds(now_ns - last) * limit_;
  return std::min(tokens, static_cast<double>(burst_));
}

int64_t TokenBucket::ReserveN(int64_t now_ns, int64_t n, bool& ok) {
  ok = n <= burst_;
  if (!ok) return now_ns;
  double tokens = Advance(now_ns) - static_cast<double>(n);
  int64_t wait = 0;
  if (tokens < 0) {
    // durationFromTokens: seconds of debt times 1e9, truncated to whole nanoseconds.
    wait = static_cast<int64_t>((-tokens / limit_) * static_cast<double>(kNsPerSecond));
  }
  started_ = true;
  last_ns_ = now_ns;
  tokens_ = tokens;
  return now_ns + wait;
}

bool TokenBucket::AllowN(int64_t now_ns, int64_t n) {
  if (n > burst_) return false;
  const double tokens = Advance(now_ns) - static_cast<double>(n);
  if (tokens < 0) return false;
  started_ = true;
  last_ns_ = now_ns;
  tokens_ = tokens;
  return true;
}

int64_t ApiClient::Issue(uint32_t slot, uint32_t gen, Call call, int64_t now_ns) {
  if (!dispatcher_) return bucket_.Reserve(now_ns);
  auto it = waiting_.find(slot);
  if (it != waiting_.end() && it->second.gen == gen && it->second.at_ns > now_ns &&
      it->second.call == Call::kStatusPatch) {
    // A status patch merges into the waiting one; a binding overwrites it, in its place.
    it->second.call = call;
    return it->second.at_ns;
  }
  const int64_t at = bucket_.Reserve(now_ns);
  waiting_[slot] = Waiting{gen, call, at};
  return at;
}

bool ApiClient::ConditionChanged(uint32_t slot, uint32_t gen, const std::string& key) {
  Sent& s = sent_[slot];
  if (s.gen == gen && s.key == key && !s.key.empty()) return false;
  s.gen = gen;
  s.key = key;
  return true;
}

}  // namespace corral::sim
