#include "corral/plugins/image_locality/image_locality.h"

#include <algorithm>
#include <utility>

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

namespace {

// One container's image, resolved for the cycle.
struct ImageSpread {
  Symbol name;        // canonical name; empty when no node reports it (it then adds nothing)
  double spread = 0;  // nodes holding it / all nodes, as kube computes it
};

struct ImageLocalityState final : framework::StateData {
  absl::InlinedVector<ImageSpread, 4> images;  // init containers, then containers
  int64_t num_containers = 0;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<ImageLocalityState>(*this);
  }
};

void ComputeState(const framework::PodInfo& pod, const Interner& in,
                  const framework::Snapshot& snapshot, ImageLocalityState* state) {
  const auto total = static_cast<double>(snapshot.NumNodes());
  auto add = [&](const std::vector<api::Container>& containers) {
    for (const api::Container& c : containers) {
      ImageSpread img;
      const std::string name = ImageLocality::NormalizedImageName(in.Str(c.image));
      if (std::optional<Symbol> sym = in.Find(name)) {
        img.name = *sym;
        img.spread = static_cast<double>(snapshot.ImageNumNodes(*sym)) / total;
      }
      state->images.push_back(img);
    }
  };
  add(pod.pod->init_containers);
  add(pod.pod->containers);
  state->num_containers =
      static_cast<int64_t>(pod.pod->init_containers.size() + pod.pod->containers.size());
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> ImageLocality::New(const framework::PluginArgs* args,
                                                              framework::Handle& handle) {
  if (Result<void> ok = NoArgs(kName, args); !ok.ok()) return ok.error();
  std::unique_ptr<framework::Plugin> plugin = std::make_unique<ImageLocality>(handle);
  return plugin;
}

std::string ImageLocality::NormalizedImageName(std::string_view name) {
  const size_t colon = name.rfind(':');
  const size_t slash = name.rfind('/');
  // strings.LastIndex returns -1 when absent: map npos to -1 for the comparison.
  const auto last = [](size_t i) {
    return i == std::string_view::npos ? -1 : static_cast<int64_t>(i);
  };
  std::string out(name);
  if (last(colon) <= last(slash)) out += ":latest";
  return out;
}

int64_t ImageLocality::CalculatePriority(int64_t sum_scores, int64_t num_containers) {
  const int64_t max_threshold = kMaxContainerThreshold * num_containers;
  if (sum_scores < kMinThreshold) {
    sum_scores = kMinThreshold;
  } else if (sum_scores > max_threshold) {
    sum_scores = max_threshold;
  }
  return framework::kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

framework::Status ImageLocality::PreScore(framework::CycleState& state, size_t slot,
                                          const framework::PodInfo& pod,
                                          std::span<const framework::NodeInfo* const> nodes) {
  (void)nodes;
  auto s = std::make_unique<ImageLocalityState>();
  ComputeState(pod, handle_.interner(), handle_.snapshot(), s.get());
  state.Write(slot, std::move(s));
  return {};
}

framework::Status ImageLocality::Score(const framework::CycleState& state, size_t slot,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node, int64_t* score) const {
  const auto* s = state.Get<ImageLocalityState>(slot);
  ImageLocalityState computed;
  if (s == nullptr) {
    ComputeState(pod, handle_.interner(), handle_.snapshot(), &computed);
    s = &computed;
  }
  int64_t sum = 0;
  for (const ImageSpread& img : s->images) {
    if (img.name.empty()) continue;
    const int64_t size = node.ImageSize(img.name);
    if (size == 0) continue;  // not on this node (or empty: adds 0 either way)
    sum += static_cast<int64_t>(static_cast<double>(size) * img.spread);
  }
  *score = CalculatePriority(sum, s->num_containers);
  return {};
}

framework::Status ImageLocality::Sign(const framework::PodInfo& pod,
                                      std::vector<framework::SignFragment>* fragments) const {
  const Interner& in = handle_.interner();
  std::vector<std::string> names;
  for (const auto* containers : {&pod.pod->init_containers, &pod.pod->containers}) {
    for (const api::Container& c : *containers)
      names.push_back(NormalizedImageName(in.Str(c.image)));
  }
  std::sort(names.begin(), names.end());
  std::string value = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) value += ',';
    signers::AppendJsonString(value, names[i]);
  }
  value += ']';
  fragments->push_back({std::string(kImageNamesSignerKey), std::move(value)});
  return {};
}

}  // namespace corral::plugins
