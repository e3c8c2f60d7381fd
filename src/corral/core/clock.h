#pragma once
// Time is injected, never read from a global: the library asks a Clock. The simulator and tests use
// a ManualClock (virtual time); only the CLI may construct a SystemClock.

#include <chrono>
#include <cstdint>

namespace corral {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::sys_time<Duration>;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

// Virtual time that moves only when told to.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint{}) : now_(start) {}
  TimePoint Now() const override { return now_; }
  void Set(TimePoint t) { now_ = t; }
  void Advance(Duration d) { now_ += d; }

 private:
  TimePoint now_;
};

// Wall-clock time, for measuring the scheduler's own speed.
class SystemClock final : public Clock {
 public:
  TimePoint Now() const override {
    return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  }
};

}  // namespace corral
