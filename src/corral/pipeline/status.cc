#include "corral/pipeline/status.h"

namespace corral::pipeline {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kSuccess:
      return "Success";
    case Code::kError:
      return "Error";
    case Code::kUnschedulable:
      return "Unschedulable";
    case Code::kUnschedulableAndUnresolvable:
      return "UnschedulableAndUnresolvable";
    case Code::kWait:
      return "Wait";
    case Code::kSkip:
      return "Skip";
    case Code::kPending:
      return "Pending";
  }
  return "Unknown";
}

Status Status::Error(std::string message) {
  return WithOwnedReason(Code::kError, std::move(message));
}

Status Status::WithOwnedReason(Code code, std::string reason) {
  Status s;
  s.code_ = code;
  s.AddOwnedReason(std::move(reason));
  return s;
}

Status& Status::AddOwnedReason(std::string reason) {
  if (!owned_) owned_ = std::make_shared<std::deque<std::string>>();
  owned_->push_back(
      std::move(reason));  // deque::push_back keeps earlier elements (and views) valid
  reasons_.push_back(owned_->back());
  return *this;
}

std::string Status::Message() const {
  std::string out;
  for (size_t i = 0; i < reasons_.size(); ++i) {
    if (i > 0) out += ", ";
    out += reasons_[i];
  }
  return out;
}

}  // namespace corral::pipeline
