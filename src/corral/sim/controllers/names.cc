#include "corral/sim/controllers/names.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "corral/api/well_known.h"

namespace corral::sim::controllers {

std::string GenerateName(std::string_view base, Rng& rng) {
  std::string out(base.substr(0, std::min(base.size(), kMaxGeneratedNameLength)));
  for (int i = 0; i < 5; ++i) out += kNameAlphabet[rng.Uniform(kNameAlphabet.size())];
  return out;
}

std::string SafeEncodeString(std::string_view s) {
  std::string out(s.size(), ' ');
  for (size_t i = 0; i < s.size(); ++i) {
    out[i] = kNameAlphabet[static_cast<unsigned char>(s[i]) % kNameAlphabet.size()];
  }
  return out;
}

std::string TemplateHash(std::string_view text) {
  uint32_t h = 2166136261U;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619U;
  }
  return SafeEncodeString(std::to_string(h));
}

std::string CanonicalTemplateText(const api::Pod& pod, const Interner& in) {
  std::string out;
  auto sym = [&](Symbol s) { return in.Str(s); };
  // Label sets are ordered by symbol; the text orders them by name, so that it does not depend on
  // the order in which names were interned.
  auto labels = [&](std::string_view what, const api::LabelSet& set) {
    std::vector<std::pair<std::string_view, std::string_view>> kv;
    for (const auto& [k, v] : set.items()) kv.emplace_back(sym(k), sym(v));
    std::sort(kv.begin(), kv.end());
    for (const auto& [k, v] : kv) fmt::format_to(std::back_inserter(out), "{} {}={};", what, k, v);
  };
  labels("l", pod.meta.labels);
  for (const auto& [k, v] : pod.meta.annotations) {
    fmt::format_to(std::back_inserter(out), "a {}={};", sym(k), v);
  }
  auto containers = [&](std::string_view what, const std::vector<api::Container>& cs) {
    for (const auto& c : cs) {
      fmt::format_to(std::back_inserter(out), "{} {}", what, sym(c.name));
      for (const auto& [r, q] : c.resources.requests) {
        fmt::format_to(std::back_inserter(out), " r {}={}", sym(r), q.String());
      }
      for (const auto& [r, q] : c.resources.limits) {
        fmt::format_to(std::back_inserter(out), " l {}={}", sym(r), q.String());
      }
      out += ';';
    }
  };
  containers("i", pod.init_containers);
  containers("c", pod.containers);
  labels("ns", pod.node_selector);
  fmt::format_to(std::back_inserter(out), "pc {};sn {};t {};v {};rc {};",
                 sym(pod.priority_class_name), sym(pod.scheduler_name), pod.tolerations.size(),
                 pod.volumes.size(), pod.resource_claims.size());
  return out;
}

std::string JobIndexedPrefix(std::string_view job, int32_t index) {
  std::string append = fmt::format("-{}-", index);
  if (job.size() + append.size() > kMaxGeneratedNameLength) {
    job = job.substr(0, kMaxGeneratedNameLength - append.size());
  }
  return std::string(job) + append;
}

std::string NewUid(Rng& rng) {
  const uint64_t a = rng.Next(), b = rng.Next();
  // Version 4, variant 10xx.
  const uint64_t hi = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;
  const uint64_t lo = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xffff,
                     hi & 0xffff, lo >> 48, lo & 0xffffffffffffULL);
}

void AddDaemonSetTolerations(api::Pod& pod, Interner& in) {
  struct Add {
    std::string_view key;
    api::TaintEffect effect;
  };
  std::vector<Add> adds = {
      {"node.kubernetes.io/not-ready", api::TaintEffect::kNoExecute},
      {"node.kubernetes.io/unreachable", api::TaintEffect::kNoExecute},
      {"node.kubernetes.io/disk-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/memory-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/pid-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/unschedulable", api::TaintEffect::kNoSchedule},
  };
  if (pod.host_network)
    adds.push_back({"node.kubernetes.io/network-unavailable", api::TaintEffect::kNoSchedule});
  for (const Add& a : adds) {
    api::Toleration t;
    t.key = in.Intern(a.key);
    t.op = api::TolerationOp::kExists;
    t.effect = a.effect;
    // v1helper.AddOrUpdateTolerationInPodSpec: a toleration that matches (key, operator, value,
    // effect) is replaced when it differs (only tolerationSeconds can) and kept when equal.
    bool found = false;
    for (api::Toleration& old : pod.tolerations) {
      if (old.key == t.key && old.op == t.op && old.value == t.value && old.effect == t.effect) {
        old = t;
        found = true;
        break;
      }
    }
    if (!found) pod.tolerations.push_back(t);
  }
}

void PinToNode(api::Pod& pod, Symbol node, Interner& in) {
  api::NodeSelectorRequirement req;
  req.key = in.Intern("metadata.name");
  req.op = api::NodeSelectorOp::kIn;
  req.values = {node};
  api::NodeSelector sel;
  sel.node_selector_terms.resize(1);
  sel.node_selector_terms[0].match_fields.push_back(std::move(req));
  if (!pod.affinity.has_value()) pod.affinity.emplace();
  if (!pod.affinity->node_affinity.has_value()) pod.affinity->node_affinity.emplace();
  pod.affinity->node_affinity->required = std::move(sel);
}

}  // namespace corral::sim::controllers
