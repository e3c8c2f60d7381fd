#include "corral/scheduler/waiting_pods.h"

#include <algorithm>

#include <fmt/format.h>

#include "corral/core/check.h"

namespace corral::scheduler {

WaitingPod& WaitingPods::Add(const framework::PodInfo* pod, std::unique_ptr<WaitingPod> wp) {
  CORRAL_CHECK_MSG(!by_pod_.contains(pod), "pod is already waiting on permit");
  wp->order = ++next_order_;
  order_[wp->order] = pod;
  WaitingPod& ref = *wp;
  by_pod_[pod] = std::move(wp);
  return ref;
}

WaitingPod* WaitingPods::Get(const framework::PodInfo* pod) {
  auto it = by_pod_.find(pod);
  return it == by_pod_.end() ? nullptr : it->second.get();
}

std::unique_ptr<WaitingPod> WaitingPods::Take(const framework::PodInfo* pod) {
  auto it = by_pod_.find(pod);
  if (it == by_pod_.end()) return nullptr;
  std::unique_ptr<WaitingPod> wp = std::move(it->second);
  by_pod_.erase(it);
  order_.erase(wp->order);
  resolved_.erase(std::remove(resolved_.begin(), resolved_.end(), pod), resolved_.end());
  return wp;
}

bool WaitingPods::Allow(const framework::PodInfo* pod, std::string_view plugin) {
  WaitingPod* wp = Get(pod);
  if (wp == nullptr || wp->outcome != WaitingPod::Outcome::kWaiting) return false;
  auto& p = wp->pending;
  p.erase(std::remove_if(p.begin(), p.end(),
                         [&](const WaitingPod::Pending& x) { return x.plugin == plugin; }),
          p.end());
  if (p.empty()) {
    wp->outcome = WaitingPod::Outcome::kAllowed;
    resolved_.push_back(pod);
  }
  return true;
}

bool WaitingPods::Reject(const framework::PodInfo* pod, std::string_view plugin,
                         std::string message) {
  WaitingPod* wp = Get(pod);
  if (wp == nullptr || wp->outcome != WaitingPod::Outcome::kWaiting) return false;
  wp->outcome = WaitingPod::Outcome::kRejected;
  wp->reject_plugin = plugin;
  wp->reject_message = std::move(message);
  resolved_.push_back(pod);
  return true;
}

void WaitingPods::ExpireUntil(TimePoint now) {
  std::vector<std::pair<const framework::PodInfo*, const WaitingPod::Pending*>> expired;
  for (const auto& [order, pod] : order_) {
    (void)order;
    const WaitingPod& wp = *by_pod_.at(pod);
    if (wp.outcome != WaitingPod::Outcome::kWaiting) continue;
    const WaitingPod::Pending* first = nullptr;
    for (const auto& p : wp.pending) {
      if (p.deadline <= now && (first == nullptr || p.deadline < first->deadline)) first = &p;
    }
    if (first != nullptr) expired.emplace_back(pod, first);
  }
  for (auto [pod, p] : expired) {
    Reject(pod, p->plugin,
           fmt::format("rejected due to timeout after waiting {} at plugin {}",
                       GoDuration(p->timeout), p->plugin));
  }
}

std::optional<TimePoint> WaitingPods::NextDeadline() const {
  std::optional<TimePoint> best;
  for (const auto& [pod, wp] : by_pod_) {
    (void)pod;
    if (wp->outcome != WaitingPod::Outcome::kWaiting) continue;
    for (const auto& p : wp->pending) {
      if (!best.has_value() || p.deadline < *best) best = p.deadline;
    }
  }
  return best;
}

std::vector<const framework::PodInfo*> WaitingPods::TakeResolved() {
  std::vector<const framework::PodInfo*> out;
  out.swap(resolved_);
  return out;
}

std::string GoDuration(Duration d) {
  // Go: "0s" for zero; below one second a unit of ns/µs/ms; otherwise [h]h[m]m s.fraction "s".
  int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  uint64_t u = ns < 0 ? static_cast<uint64_t>(-ns) : static_cast<uint64_t>(ns);
  auto frac = [](uint64_t v, uint64_t unit) {
    std::string s = std::to_string(v / unit);
    uint64_t rem = v % unit;
    if (rem == 0) return s;
    std::string digits = std::to_string(rem);
    std::string pad(std::to_string(unit).size() - 1 - digits.size(), '0');
    digits = pad + digits;
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    return s + "." + digits;
  };
  if (u < 1000) return sign + std::to_string(u) + "ns";
  if (u < 1000000) return sign + frac(u, 1000) + "\u00b5s";
  if (u < 1000000000) return sign + frac(u, 1000000) + "ms";
  uint64_t secs_ns = u % 60000000000ULL;
  uint64_t total_min = u / 60000000000ULL;
  std::string out = sign;
  if (total_min >= 60) out += std::to_string(total_min / 60) + "h";
  if (total_min > 0) out += std::to_string(total_min % 60) + "m";
  return out + frac(secs_ns, 1000000000ULL) + "s";
}

}  // namespace corral::scheduler
