#pragma once
// The outcome of a plugin call (kube's framework.Status), shared by every scheduling level.
// Scheduling outcomes are values, not errors:
//   kSuccess                       satisfied (a default-constructed Status, never allocates)
//   kError                         an internal failure; the subject is requeued with error backoff
//   kUnschedulable                 does not fit now; preemption (PostFilter) may help
//   kUnschedulableAndUnresolvable  does not fit, and preemption cannot help: the target is never
//                                  a candidate
//   kWait                          Permit: hold the subject until allowed, rejected or timed out
//   kSkip                          PreFilter/PreScore: skip the coupled Filter/Score plugin this
//                                  cycle; Bind: not this plugin's subject
//   kPending                       stop here and requeue without backoff
//
// Reasons are string_views. A reason must outlive the scheduling cycle that produced it: use string
// literals, strings owned by the plugin or the snapshot, or WithOwnedReason() for text built on
// the fly.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/inlined_vector.h>

namespace corral::pipeline {

enum class Code : uint8_t {
  kSuccess,
  kError,
  kUnschedulable,
  kUnschedulableAndUnresolvable,
  kWait,
  kSkip,
  kPending,
};

std::string_view CodeName(Code code);

class Status {
 public:
  Status() = default;
  Status(Code code, std::string_view reason) : code_(code) {
    if (!reason.empty()) reasons_.push_back(reason);
  }
  static Status Unschedulable(std::string_view reason) { return {Code::kUnschedulable, reason}; }
  static Status Unresolvable(std::string_view reason) {
    return {Code::kUnschedulableAndUnresolvable, reason};
  }
  static Status Skip() { return {Code::kSkip, {}}; }
  // An error whose message is built on the fly.
  static Status Error(std::string message);
  // A status of `code` with a reason whose text is owned by the status.
  static Status WithOwnedReason(Code code, std::string reason);

  Code code() const { return code_; }
  bool ok() const { return code_ == Code::kSuccess; }
  bool IsSkip() const { return code_ == Code::kSkip; }
  bool IsRejected() const {
    return code_ == Code::kUnschedulable || code_ == Code::kUnschedulableAndUnresolvable ||
           code_ == Code::kPending;
  }
  const absl::InlinedVector<std::string_view, 1>& reasons() const { return reasons_; }
  // Whether `other` is this very value: the same code, the same plugin and reason views (the same
  // bytes at the same addresses) and the same owned storage. Never dereferences a view, so it is
  // safe on statuses whose reasons are no longer current; equal text at different addresses is
  // not identical.
  bool IdenticalTo(const Status& other) const {
    if (code_ != other.code_ || owned_ != other.owned_ || !SameView(plugin_, other.plugin_) ||
        reasons_.size() != other.reasons_.size()) {
      return false;
    }
    for (size_t i = 0; i < reasons_.size(); ++i) {
      if (!SameView(reasons_[i], other.reasons_[i])) return false;
    }
    return true;
  }
  // Reasons joined by ", " (kube's Status.Message()).
  std::string Message() const;

  // The plugin that produced this status; set by the framework runner.
  std::string_view plugin() const { return plugin_; }
  Status& WithPlugin(std::string_view plugin) {
    plugin_ = plugin;
    return *this;
  }
  Status& AddReason(std::string_view reason) {
    reasons_.push_back(reason);
    return *this;
  }
  Status& AddOwnedReason(std::string reason);

 private:
  static bool SameView(std::string_view a, std::string_view b) {
    return a.data() == b.data() && a.size() == b.size();
  }

  Code code_ = Code::kSuccess;
  std::string_view plugin_;
  absl::InlinedVector<std::string_view, 1> reasons_;
  // Backing storage for owned reasons (rare path). Shared so that copies of a Status stay cheap
  // and valid.
  std::shared_ptr<std::deque<std::string>> owned_;
};

}  // namespace corral::pipeline
