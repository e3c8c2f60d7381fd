#include "corral/sim/provenance.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corral/sim/fleet_spec.h"

#ifndef CORRAL_VERSION_FULL
#error "CORRAL_VERSION_FULL is set by src/corral/sim/CMakeLists.txt"
#endif

namespace corral::sim {

namespace fs = std::filesystem;

uint64_t Fnv1a64(std::string_view bytes, uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= kFnv1a64Prime;
  }
  return h;
}

std::string FormatFnv1a64(uint64_t h) {
  return fmt::format("fnv1a64:{:016x}", h);
}

namespace {

// Feeds a file's bytes into `h`. Errors: the file cannot be read.
Result<uint64_t> HashFileInto(const fs::path& p, uint64_t h) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return Error::Invalid(fmt::format("cannot read {:?}", p.string()));
  char buf[1 << 16];
  while (f) {
    f.read(buf, sizeof buf);
    h = Fnv1a64(std::string_view(buf, static_cast<size_t>(f.gcount())), h);
  }
  if (f.bad()) return Error::Invalid(fmt::format("cannot read {:?}", p.string()));
  return h;
}

std::string JoinOrNone(const std::vector<std::string>& v) {
  if (v.empty()) return "none";
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string Row(std::string_view indent, std::string_view key, std::string_view value) {
  constexpr size_t kKeyWidth = 18;
  std::string line(indent);
  line += key;
  const size_t used = indent.size() + key.size();
  line.append(used < kKeyWidth ? kKeyWidth - used : 1, ' ');
  line += value;
  return line;
}

std::string WithHash(const std::string& path, const std::string& hash) {
  return hash.empty() ? path : fmt::format("{}  {}", path, hash);
}

void SchedulerLines(const SchedulerProvenance& s, std::string_view indent,
                    std::vector<std::string>& out) {
  out.push_back(Row(indent, "scheduler",
                    s.config_path.empty() ? "no configuration file (kube-scheduler's defaults)"
                                          : WithHash(s.config_path, s.config_hash)));
  out.push_back(Row(
      indent, "feature gates",
      fmt::format("set: {}; differ from the defaults: {}{}", JoinOrNone(s.gates_explicit),
                  JoinOrNone(s.gates_non_default),
                  s.emulated_version.empty() ? "" : "; emulated version: " + s.emulated_version)));
  for (const auto& prof : s.profiles) {
    out.push_back(Row(indent, "profile", prof.scheduler_name));
    const std::string inner = std::string(indent) + "  ";
    for (const auto& ep : prof.points) {
      out.push_back(Row(inner, ep.point, ep.plugins.empty() ? "—" : JoinOrNone(ep.plugins)));
    }
  }
}

bool SameScheduler(const SchedulerProvenance& a, const SchedulerProvenance& b) {
  return a.config_path == b.config_path && a.config_hash == b.config_hash &&
         a.gates_explicit == b.gates_explicit && a.gates_non_default == b.gates_non_default &&
         a.emulated_version == b.emulated_version && a.profiles == b.profiles;
}

void DispatcherLines(const DispatcherProvenance& d, std::vector<std::string>& out) {
  std::string head = d.scheduler;
  if (!d.dispatcher.empty()) head += ", dispatcher " + d.dispatcher;
  if (!d.detail.empty()) head += " (" + d.detail + ")";
  out.push_back(Row("", "fleet", head));
  if (d.profile.empty()) return;
  out.push_back(Row("  ", "profile",
                    d.config_path.empty() ? d.profile + " (built in)"
                                          : fmt::format("{}  {}", d.profile,
                                                        WithHash(d.config_path, d.config_hash))));
  out.push_back(Row("  ", "filters", JoinOrNone(d.filters)));
  out.push_back(Row("  ", "scores", JoinOrNone(d.scores)));
  if (!d.nomination.empty()) out.push_back(Row("  ", "nomination", d.nomination));
}

std::string ShortDuration(int64_t ns) {
  const int64_t s = ns / 1'000'000'000;
  if (ns % 60'000'000'000 == 0) return fmt::format("{}m", s / 60);
  if (ns % 1'000'000'000 == 0) return fmt::format("{}s", s);
  return fmt::format("{}ms", ns / 1'000'000);
}

}  // namespace

Result<DispatcherProvenance> DescribeDispatcher(const FleetSpec& fleet, const Interner& interner) {
  DispatcherProvenance d;
  const fleet::DispatchLoopConfig& c = fleet.config;
  if (c.kind == fleet::FleetKind::kKarmada) {
    // Karmada's scheduler with its default plugins (karmada_scheduler.h), in Corral's order.
    d.scheduler = "karmada";
    d.profile = "default";
    d.filters = {"APIEnablement", "TaintToleration", "ClusterAffinity", "SpreadConstraint",
                 "ClusterEviction"};
    d.scores = {"ClusterAffinity", "ClusterLocality"};
    d.detail = "general estimator";
    return d;
  }
  d.scheduler = "kueue";
  switch (c.dispatcher) {
    case fleet::KueueDispatcherKind::kAllAtOnce:
      d.dispatcher = "AllAtOnce";
      return d;
    case fleet::KueueDispatcherKind::kIncremental:
      d.dispatcher = "Incremental";
      d.detail = fmt::format("step {}, round {}", c.step_size, ShortDuration(c.round_timeout_ns));
      return d;
    case fleet::KueueDispatcherKind::kComposable:
      break;
  }
  d.dispatcher = "composable";
  d.profile = std::string(interner.Str(c.profile.meta.name));
  if (d.profile.empty()) d.profile = "(unnamed)";
  if (!fleet.profile_path.empty()) {
    d.config_path = fleet.profile_path;
    auto h = HashPath(fleet.profile_path);
    if (!h.ok()) return h.error();
    d.config_hash = *h;
  }
  for (Symbol f : c.profile.filters) d.filters.emplace_back(interner.Str(f));
  for (const auto& [name, weight] : c.profile.scores)
    d.scores.push_back(fmt::format("{}:{}", interner.Str(name), weight));
  d.nomination = c.profile.nomination == api::NominationMode::kTopK
                     ? fmt::format("TopK {}", c.profile.top_k)
                     : "Top1";
  return d;
}

Result<std::string> HashPath(const std::string& path) {
  std::error_code ec;
  const fs::path root(path);
  if (fs::is_directory(root, ec)) {
    std::vector<std::string> files;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec))
        files.push_back(it->path().lexically_relative(root).generic_string());
    }
    if (ec) return Error::Invalid(fmt::format("cannot read {:?}: {}", path, ec.message()));
    std::sort(files.begin(), files.end());
    uint64_t h = kFnv1a64Offset;
    for (const auto& rel : files) {
      h = Fnv1a64(rel, h);
      h = Fnv1a64(std::string_view("\0", 1), h);
      auto r = HashFileInto(root / rel, h);
      if (!r.ok()) return r.error();
      h = Fnv1a64(std::string_view("\0", 1), *r);
    }
    return FormatFnv1a64(h);
  }
  auto r = HashFileInto(root, kFnv1a64Offset);
  if (!r.ok()) return r.error();
  return FormatFnv1a64(*r);
}

std::string CorralVersion() {
  return CORRAL_VERSION_FULL;
}

Result<std::vector<InputProvenance>> DescribeInputs(const std::vector<std::string>& paths) {
  std::vector<InputProvenance> out;
  for (const auto& p : paths) {
    auto h = HashPath(p);
    if (!h.ok()) return h.error();
    out.push_back({p, *h});
  }
  return out;
}

std::vector<std::string> GateFlagItems(std::string_view flag) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  std::vector<std::string> out;
  while (!flag.empty()) {
    const size_t comma = flag.find(',');
    std::string_view item = trim(flag.substr(0, comma));
    flag = comma == std::string_view::npos ? std::string_view() : flag.substr(comma + 1);
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) continue;
    const std::string_view v = trim(item.substr(eq + 1));
    const bool on = v == "true" || v == "True" || v == "TRUE" || v == "1" || v == "t" || v == "T";
    out.push_back(fmt::format("{}={}", trim(item.substr(0, eq)), on ? "true" : "false"));
  }
  return out;
}

std::vector<std::string> ProvenanceLines(const Provenance& p) {
  std::vector<std::string> out;
  if (p.builtin_scenario) {
    out.push_back(Row("", "scenario", "built-in default"));
  } else {
    for (const auto& in : p.inputs) {
      out.push_back(
          Row("", p.command == "perf" ? "perf config" : "input", WithHash(in.path, in.hash)));
    }
  }
  for (const auto& m : p.manifests) out.push_back(Row("", "manifests", WithHash(m.path, m.hash)));
  if (p.has_seed) out.push_back(Row("", "seed", std::to_string(p.seed)));
  out.push_back(Row("", "corral", p.corral_version));
  for (const auto& d : p.dispatcher) DispatcherLines(d, out);
  std::vector<bool> printed(p.schedulers.size(), false);
  for (size_t i = 0; i < p.schedulers.size(); ++i) {
    const auto& s = p.schedulers[i];
    if (printed[i]) continue;
    if (s.cluster.empty()) {
      SchedulerLines(s, "", out);
      continue;
    }
    std::string names = s.cluster;
    for (size_t j = i + 1; j < p.schedulers.size(); ++j) {
      if (!printed[j] && !p.schedulers[j].cluster.empty() && SameScheduler(s, p.schedulers[j])) {
        printed[j] = true;
        names += ", " + p.schedulers[j].cluster;
      }
    }
    out.push_back(Row("", names == s.cluster ? "cluster" : "clusters", names));
    SchedulerLines(s, "  ", out);
  }
  return out;
}

nlohmann::ordered_json ProvenanceJson(const Provenance& p) {
  using json = nlohmann::ordered_json;
  json j;
  j["command"] = p.command;
  j["corral_version"] = p.corral_version;
  if (p.builtin_scenario) {
    j["scenario"] = "built-in default";
  } else {
    j["scenario"] = nullptr;
  }
  json inputs = json::array();
  for (const auto& in : p.inputs) inputs.push_back({{"path", in.path}, {"hash", in.hash}});
  j["inputs"] = std::move(inputs);
  json manifests = json::array();
  for (const auto& m : p.manifests) manifests.push_back({{"path", m.path}, {"hash", m.hash}});
  j["manifests"] = std::move(manifests);
  j["seed"] = p.has_seed ? json(p.seed) : json(nullptr);
  if (p.dispatcher.empty()) {
    j["dispatcher"] = nullptr;
  } else {
    const auto& d = p.dispatcher.front();
    auto opt = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
    j["dispatcher"] = {{"scheduler", d.scheduler},
                       {"dispatcher", opt(d.dispatcher)},
                       {"detail", opt(d.detail)},
                       {"profile", opt(d.profile)},
                       {"config_path", opt(d.config_path)},
                       {"config_hash", opt(d.config_hash)},
                       {"filters", d.filters},
                       {"scores", d.scores},
                       {"nomination", opt(d.nomination)}};
  }
  json scheds = json::array();
  for (const auto& s : p.schedulers) {
    json profiles = json::array();
    for (const auto& prof : s.profiles) {
      json points = json::object();
      for (const auto& ep : prof.points) points[ep.point] = ep.plugins;
      profiles.push_back({{"scheduler_name", prof.scheduler_name}, {"plugins", std::move(points)}});
    }
    json gates = {{"set", s.gates_explicit}, {"non_default", s.gates_non_default}};
    if (!s.emulated_version.empty()) gates["emulated_version"] = s.emulated_version;
    scheds.push_back({{"cluster", s.cluster.empty() ? json(nullptr) : json(s.cluster)},
                      {"config_path", s.config_path.empty() ? json(nullptr) : json(s.config_path)},
                      {"config_hash", s.config_hash.empty() ? json(nullptr) : json(s.config_hash)},
                      {"feature_gates", std::move(gates)},
                      {"profiles", std::move(profiles)}});
  }
  j["schedulers"] = std::move(scheds);
  return j;
}

}  // namespace corral::sim
