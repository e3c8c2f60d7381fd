#include "corral/framework/node_info.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "corral/framework/node_generation_log.h"

namespace corral::framework {

namespace {
// Process-wide generation counter (NodeInfo::generation). Relaxed: only uniqueness matters.
std::atomic<uint64_t> g_generation{0};

// This thread's log of the generations it handed out (node_generation_log.h): a ring of the
// newest kCapacity, allocated on first use.
struct GenerationLog {
  static constexpr size_t kCapacity = 4096;  // a power of two
  std::vector<std::pair<uint64_t, const NodeInfo*>> ring;
  uint64_t count = 0;  // entries ever logged
};
thread_local GenerationLog t_log;

uint64_t NextGeneration(const NodeInfo* node) {
  const uint64_t g = g_generation.fetch_add(1, std::memory_order_relaxed) + 1;
  if (t_log.ring.empty()) t_log.ring.resize(GenerationLog::kCapacity);
  t_log.ring[t_log.count & (GenerationLog::kCapacity - 1)] = {g, node};
  ++t_log.count;
  return g;
}
}  // namespace

uint64_t LatestNodeGeneration() {
  return g_generation.load(std::memory_order_relaxed);
}

bool NodesChangedOnThisThread(uint64_t since, uint64_t upto, std::vector<const NodeInfo*>* out) {
  out->clear();
  if (upto <= since) return true;
  if (upto - since > GenerationLog::kCapacity) return false;
  const uint64_t kept = std::min<uint64_t>(t_log.count, GenerationLog::kCapacity);
  uint64_t found = 0;
  // Newest first; this thread's generations increase along its log.
  for (uint64_t k = 0; k < kept; ++k) {
    const auto& [g, node] = t_log.ring[(t_log.count - 1 - k) & (GenerationLog::kCapacity - 1)];
    if (g <= since) break;
    if (g > upto) continue;
    out->push_back(node);
    ++found;
  }
  if (found != upto - since) return false;
  std::reverse(out->begin(), out->end());
  return true;
}

namespace {
void EraseOne(std::vector<const PodInfo*>& v, const PodInfo* p) {
  auto it = std::find(v.begin(), v.end(), p);
  if (it != v.end()) {
    // Swap-remove would reorder pods; kube keeps slice order stable except for the removed element.
    v.erase(it);
  }
}
}  // namespace

int64_t NodeInfo::ImageSize(Symbol image) const {
  auto it = std::lower_bound(image_sizes_.begin(), image_sizes_.end(), image,
                             [](const auto& e, Symbol n) { return e.first < n; });
  return it != image_sizes_.end() && it->first == image ? it->second : 0;
}

void NodeInfo::SetNode(const api::Node* node) {
  node_ = node;
  allocatable_ = Resource::FromList(node->allocatable);
  image_sizes_.clear();
  for (const auto& img : node->images) {
    for (Symbol name : img.names) image_sizes_.emplace_back(name, img.size_bytes);
  }
  std::sort(image_sizes_.begin(), image_sizes_.end());
  image_sizes_.erase(std::unique(image_sizes_.begin(), image_sizes_.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; }),
                     image_sizes_.end());
  generation_ = NextGeneration(this);
}

void NodeInfo::Account(const PodInfo* pod, int sign) {
  if (sign > 0) {
    requested_.Add(pod->request);
  } else {
    requested_.Sub(pod->request);
  }
  // Pods count against allocatable "pods" through pods_.size(), not through requested_.
  non_zero_requested_.milli_cpu += sign * pod->non_zero_milli_cpu;
  non_zero_requested_.memory += sign * pod->non_zero_memory;
}

void NodeInfo::AddPod(const PodInfo* pod) {
  pods_.push_back(pod);
  if (pod->HasAffinity()) pods_with_affinity_.push_back(pod);
  if (!pod->required_anti_affinity_terms.empty()) pods_with_required_anti_affinity_.push_back(pod);
  for (const auto& hp : pod->host_ports) used_ports_.push_back(hp);
  Account(pod, +1);
  generation_ = NextGeneration(this);
}

bool NodeInfo::RemovePod(const PodInfo* pod) {
  auto it = std::find(pods_.begin(), pods_.end(), pod);
  if (it == pods_.end()) return false;
  pods_.erase(it);
  EraseOne(pods_with_affinity_, pod);
  EraseOne(pods_with_required_anti_affinity_, pod);
  for (const auto& hp : pod->host_ports) {
    auto p = std::find(used_ports_.begin(), used_ports_.end(), hp);
    if (p != used_ports_.end()) used_ports_.erase(p);
  }
  Account(pod, -1);
  generation_ = NextGeneration(this);
  return true;
}

}  // namespace corral::framework
