#pragma once
// The scheduler's API client under a rate limit, in virtual time: client-go's token bucket
// (flowcontrol.NewTokenBucketRateLimiter, which is golang.org/x/time/rate's Limiter) and the calls
// a scheduler makes through it (bindings, status patches, preemption's victim patches and deletes).
//
// Contract:
//  - TokenBucket starts full (burst tokens) and refills at qps tokens per second up to burst.
//    A call reserves one token at the virtual time it is made and proceeds at the returned time,
//    never earlier; reservations are served in the order they are made (x/time/rate's reserveN:
//    tokens may go negative, a debt later calls wait behind), with Go's float arithmetic and
//    truncation to whole nanoseconds, so the times match kube's to the nanosecond.
//  - ApiClient adds kube's two call paths on top of one bucket per scheduler. Direct calls
//    (SchedulerAsyncAPICalls off) each take a token. With the scheduler's API dispatcher
//    (SchedulerAsyncAPICalls on) a call for a pod whose previous call has not run yet does not take
//    a token: a status patch merges into a waiting status patch, and a binding overwrites a waiting
//    status patch and runs in its place in the queue.
//  - Nothing here allocates per call but the per-pod entries of the dispatcher's queue; a run
//    without a limit creates no ApiClient at all.

#include <cstdint>
#include <string>

#include <absl/container/flat_hash_map.h>

namespace corral::sim {

class TokenBucket {
 public:
  // REQUIRES: qps > 0 and burst >= 1 (the values client-go turns into a limiter).
  TokenBucket(float qps, int64_t burst);

  // Reserves `n` tokens for a call made at `now_ns` and returns the time it may proceed
  // (client-go's Wait: WaitN(ctx, 1)). False in `ok` when n exceeds the burst (Go's Wait returns an
  // error then and the call is not made); the bucket is then unchanged.
  int64_t ReserveN(int64_t now_ns, int64_t n, bool& ok);
  int64_t Reserve(int64_t now_ns) {
    bool ok = true;
    return ReserveN(now_ns, 1, ok);
  }
  // client-go's TryAccept (AllowN(now, 1)): takes a token only when one is available now.
  bool AllowN(int64_t now_ns, int64_t n);

 private:
  // x/time/rate's advance: the tokens at `now_ns` (the last reservation's time moves back when
  // `now_ns` is earlier).
  double Advance(int64_t now_ns) const;

  double limit_;
  int64_t burst_;
  double tokens_;
  int64_t last_ns_ = 0;
  bool started_ = false;  // Go's zero `last`: the first call finds the bucket full
};

class ApiClient {
 public:
  enum class Call : uint8_t { kStatusPatch, kBinding };

  ApiClient(float qps, int64_t burst, bool dispatcher)
      : bucket_(qps, burst), dispatcher_(dispatcher) {}

  bool dispatcher() const { return dispatcher_; }

  // A call about pod slot `slot` (generation `gen`) made at `now_ns`; returns when it takes effect.
  // Through the dispatcher, a call that merges into or overwrites a waiting call of the same pod
  // takes effect when that call runs.
  int64_t Issue(uint32_t slot, uint32_t gen, Call call, int64_t now_ns);
  // A call that never goes through the dispatcher (preemption's victim patch and delete).
  int64_t Direct(int64_t now_ns) { return bucket_.Reserve(now_ns); }

  // The condition (message and nominated node) last sent for a pod: kube patches the PodScheduled
  // condition only when it changes. True, and `key` recorded, when it differs from the last one.
  bool ConditionChanged(uint32_t slot, uint32_t gen, const std::string& key);

 private:
  struct Waiting {
    uint32_t gen = 0;
    Call call = Call::kStatusPatch;
    int64_t at_ns = 0;
  };
  struct Sent {
    uint32_t gen = 0;
    std::string key;
  };

  TokenBucket bucket_;
  bool dispatcher_;
  absl::flat_hash_map<uint32_t, Waiting> waiting_;
  absl::flat_hash_map<uint32_t, Sent> sent_;
};

}  // namespace corral::sim
