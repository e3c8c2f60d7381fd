#include "corral/config/scheduler_config.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "corral/core/clock.h"
#include "corral/core/rng.h"
#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/framework/framework.h"
#include "corral/loader/fragments.h"
#include "corral/plugins/default_preemption/default_preemption.h"
#include "corral/plugins/dynamic_resources/binding_conditions.h"
#include "corral/plugins/inter_pod_affinity/inter_pod_affinity.h"
#include "corral/plugins/node_affinity/node_affinity.h"
#include "corral/plugins/node_resources/args.h"
#include "corral/plugins/pod_topology_spread/pod_topology_spread.h"
#include "corral/plugins/registry.h"
#include "corral/plugins/volume_binding/volume_binding.h"

namespace corral::config {

namespace {

using doc::Decoder;
using doc::Node;
using framework::PluginEntry;
using framework::PluginSet;

constexpr std::string_view kApiVersion = "kubescheduler.config.k8s.io/v1";
constexpr std::string_view kKind = "KubeSchedulerConfiguration";

// Plugins removed from the v1 API (kube's invalidPluginsByVersion).
constexpr std::string_view kRemovedPlugins[] = {"AzureDiskLimits", "CinderLimits", "EBSLimits",
                                                "GCEPDLimits"};

// Fields of the file that configure the kube-scheduler process, not scheduling decisions.
constexpr std::string_view kProcessFields[] = {
    "clientConnection",          "leaderElection",     "delayCacheUntilActive", "enableProfiling",
    "enableContentionProfiling", "healthzBindAddress", "metricsBindAddress"};

// An unknown key of the map being decoded is reported at the map's path (UnknownField adds the
// key), so it is checked before the key's own scope is opened. True when `key` is unknown.
bool ReportIfUnknown(Decoder& d, const Node& key, std::span<const std::string_view> known) {
  if (std::find(known.begin(), known.end(), key.text()) != known.end()) return false;
  d.UnknownField(key, known);
  return true;
}

// ---- plugins ------------------------------------------------------------------------------------

// Levenshtein distance between `a` and `b`, letters compared case-insensitively.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// An unknown plugin name is an error at its `name` field (kube reports it unpositioned when the
// framework is built), with the nearest registered name when one is within 2 edits (case ignored;
// the alphabetically first on a tie). "*" is accepted where `allow_star` (a `disabled` list).
void CheckPluginName(Decoder& d, const Node& item, std::string_view name, bool allow_star) {
  if (name.empty() || (allow_star && name == "*")) return;
  for (std::string_view removed : kRemovedPlugins) {
    if (name == removed) return;  // reported with kube's own message where it is enabled
  }
  static const std::vector<std::string> kNames = plugins::NewInTreeRegistry().Names();
  if (std::binary_search(kNames.begin(), kNames.end(), name)) return;
  std::string_view best;
  size_t best_distance = 3;
  for (const std::string& known : kNames) {
    const size_t dist = EditDistance(name, known);
    if (dist < best_distance) {
      best = known;
      best_distance = dist;
    }
  }
  std::string msg = fmt::format("Invalid value: {:?}: plugin does not exist", name);
  if (!best.empty()) msg += fmt::format("; did you mean {:?}?", best);
  const Node* at = item.is_map() ? item.Find("name") : nullptr;
  if (at != nullptr) {
    d.FieldError(item, "name", msg);
  } else {
    d.Error(item, msg);
  }
}

void DecodePluginEntry(Decoder& d, const Node& n, PluginEntry& e, bool with_weight) {
  static const doc::Field<PluginEntry> kFields[] = {
      {"name", [](Decoder& dd, const Node& v, PluginEntry& o) { dd.ReadString(v, o.name); }},
      {"weight", [](Decoder& dd, const Node& v, PluginEntry& o) { dd.ReadInt32(v, o.weight); }},
  };
  d.Struct(n, e, kFields);
  if (e.name.empty()) d.Required(n, "name");
  if (!with_weight && e.weight != 0) {
    d.FieldError(n, "weight", "weight is only used by score plugins (score or multiPoint)");
  } else if (e.weight < 0) {
    // kube turns 0 into the default weight 1; a negative weight would subtract the plugin's score.
    d.FieldError(n, "weight",
                 fmt::format("Invalid value: {}: must be greater than or equal to 0", e.weight));
  }
}

void DecodePluginSet(Decoder& d, const Node& n, PluginSet& out, bool with_weight) {
  if (!d.ExpectMap(n)) return;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    static constexpr std::string_view kKnown[] = {"enabled", "disabled"};
    if (ReportIfUnknown(d, n.key(i), kKnown)) continue;
    auto scope = d.Field(key);
    const Node& v = n.value(i);
    if (key == "enabled") {
      d.ForEachItem(v, [&](const Node& item) {
        PluginEntry e;
        DecodePluginEntry(d, item, e, with_weight);
        CheckPluginName(d, item, e.name, /*allow_star=*/false);
        for (std::string_view removed : kRemovedPlugins) {
          if (e.name == removed) {
            d.Error(
                item,
                fmt::format(
                    "Invalid value: {:?}: was invalid in version {:?} (KubeSchedulerConfiguration "
                    "is version {:?})",
                    e.name, kApiVersion, kApiVersion));
          }
        }
        if (!e.name.empty()) out.enabled.push_back(std::move(e));
      });
    } else if (key == "disabled") {
      d.ForEachItem(v, [&](const Node& item) {
        PluginEntry e;
        DecodePluginEntry(d, item, e, false);
        CheckPluginName(d, item, e.name, /*allow_star=*/true);
        if (!e.name.empty()) out.disabled.push_back(std::move(e.name));
      });
    }
  }
}

struct PointField {
  std::string_view name;
  PluginSet framework::Plugins::*member;
  bool weights;
};
constexpr PointField kPoints[] = {
    {"preEnqueue", &framework::Plugins::pre_enqueue, false},
    {"queueSort", &framework::Plugins::queue_sort, false},
    {"preFilter", &framework::Plugins::pre_filter, false},
    {"filter", &framework::Plugins::filter, false},
    {"postFilter", &framework::Plugins::post_filter, false},
    {"preScore", &framework::Plugins::pre_score, false},
    {"score", &framework::Plugins::score, true},
    {"reserve", &framework::Plugins::reserve, false},
    {"permit", &framework::Plugins::permit, false},
    {"preBind", &framework::Plugins::pre_bind, false},
    {"bind", &framework::Plugins::bind, false},
    {"postBind", &framework::Plugins::post_bind, false},
    {"multiPoint", &framework::Plugins::multi_point, true},
};

void DecodePlugins(Decoder& d, const Node& n, framework::Plugins& out) {
  if (!d.ExpectMap(n)) return;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    const PointField* f = nullptr;
    for (const auto& p : kPoints) {
      if (p.name == key) f = &p;
    }
    if (f == nullptr) {
      std::vector<std::string_view> known;
      for (const auto& p : kPoints) known.push_back(p.name);
      d.UnknownField(n.key(i), known);
      continue;
    }
    auto scope = d.Field(key);
    DecodePluginSet(d, n.value(i), out.*(f->member), f->weights);
  }
}

// ---- plugin args --------------------------------------------------------------------------------

void ReportArgsError(Decoder& d, const Node& at, const Error& e) {
  // The plugins' Validate messages already carry the field path (kube's field.Error format).
  d.diagnostics().Error(std::string(d.file()), at.line(), "", e.message);
}

std::shared_ptr<const framework::PluginArgs> DecodeFitArgs(Decoder& d, const Node& n) {
  auto args = std::make_shared<plugins::NodeResourcesFitArgs>();
  args->scoring_strategy.reset();
  auto read_strings = [](Decoder& dd, const Node& v, std::vector<std::string>& out) {
    dd.ReadList(v, out, [&](const Node& item, std::string& s) { dd.ReadString(item, s); });
  };
  auto read_resources = [](Decoder& dd, const Node& v, std::vector<plugins::ResourceSpec>& out) {
    static const doc::Field<plugins::ResourceSpec> kSpec[] = {
        {"name",
         [](Decoder& x, const Node& y, plugins::ResourceSpec& o) { x.ReadString(y, o.name); }},
        {"weight",
         [](Decoder& x, const Node& y, plugins::ResourceSpec& o) { x.ReadInt64(y, o.weight); }},
    };
    dd.ReadList(v, out,
                [&](const Node& item, plugins::ResourceSpec& s) { dd.Struct(item, s, kSpec); });
  };
  if (!d.ExpectMap(n)) return args;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    const Node& v = n.value(i);
    static constexpr std::string_view kKnown[] = {"ignoredResources", "ignoredResourceGroups",
                                                  "scoringStrategy"};
    if (ReportIfUnknown(d, n.key(i), kKnown)) continue;
    auto scope = d.Field(key);
    if (key == "ignoredResources") {
      read_strings(d, v, args->ignored_resources);
    } else if (key == "ignoredResourceGroups") {
      read_strings(d, v, args->ignored_resource_groups);
    } else if (key == "scoringStrategy") {
      if (!d.ExpectMap(v)) continue;
      plugins::ScoringStrategy st;
      for (size_t j = 0; j < v.size(); ++j) {
        std::string_view k2 = v.key(j).text();
        const Node& v2 = v.value(j);
        static constexpr std::string_view kStrategy[] = {"type", "resources",
                                                         "requestedToCapacityRatio"};
        if (ReportIfUnknown(d, v.key(j), kStrategy)) continue;
        auto s2 = d.Field(k2);
        if (k2 == "type") {
          d.ReadString(v2, st.type);
        } else if (k2 == "resources") {
          read_resources(d, v2, st.resources);
        } else if (k2 == "requestedToCapacityRatio") {
          plugins::RequestedToCapacityRatioParam p;
          if (const Node* shape = v2.Find("shape")) {
            auto s3 = d.Field("shape");
            static const doc::Field<plugins::UtilizationShapePoint> kPoint[] = {
                {"utilization",
                 [](Decoder& x, const Node& y, plugins::UtilizationShapePoint& o) {
                   x.ReadInt32(y, o.utilization);
                 }},
                {"score", [](Decoder& x, const Node& y,
                             plugins::UtilizationShapePoint& o) { x.ReadInt32(y, o.score); }},
            };
            d.ReadList(*shape, p.shape, [&](const Node& item, plugins::UtilizationShapePoint& pt) {
              d.Struct(item, pt, kPoint);
            });
          }
          st.requested_to_capacity_ratio = std::move(p);
        }
      }
      args->scoring_strategy = std::move(st);
    }
  }
  args->SetDefaults();
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodeBalancedArgs(Decoder& d, const Node& n) {
  auto args = std::make_shared<plugins::NodeResourcesBalancedAllocationArgs>();
  args->resources.clear();
  static const doc::Field<plugins::ResourceSpec> kSpec[] = {
      {"name",
       [](Decoder& x, const Node& y, plugins::ResourceSpec& o) { x.ReadString(y, o.name); }},
      {"weight",
       [](Decoder& x, const Node& y, plugins::ResourceSpec& o) { x.ReadInt64(y, o.weight); }},
  };
  static const doc::Field<plugins::NodeResourcesBalancedAllocationArgs> kFields[] = {
      {"resources",
       [](Decoder& x, const Node& y, plugins::NodeResourcesBalancedAllocationArgs& o) {
         x.ReadList(y, o.resources,
                    [&](const Node& item, plugins::ResourceSpec& s) { x.Struct(item, s, kSpec); });
       }},
  };
  d.Struct(n, *args, kFields);
  args->SetDefaults();
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodeInterPodAffinityArgs(Decoder& d, const Node& n) {
  auto args = std::make_shared<plugins::InterPodAffinityArgs>();
  static const doc::Field<plugins::InterPodAffinityArgs> kFields[] = {
      {"hardPodAffinityWeight",
       [](Decoder& x, const Node& y, plugins::InterPodAffinityArgs& o) {
         x.ReadInt32(y, o.hard_pod_affinity_weight);
       }},
      {"ignorePreferredTermsOfExistingPods",
       [](Decoder& x, const Node& y, plugins::InterPodAffinityArgs& o) {
         x.ReadBool(y, o.ignore_preferred_terms_of_existing_pods);
       }},
  };
  d.Struct(n, *args, kFields);
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodeNodeAffinityArgs(Decoder& d, const Node& n) {
  auto args = std::make_shared<plugins::NodeAffinityArgs>();
  static const doc::Field<plugins::NodeAffinityArgs> kFields[] = {
      {"addedAffinity",
       [](Decoder& x, const Node& y, plugins::NodeAffinityArgs& o) {
         if (y.is_null()) return;
         api::NodeAffinity na;
         loader::DecodeNodeAffinityFragment(x, y, na);
         o.added_affinity = std::move(na);
       }},
  };
  d.Struct(n, *args, kFields);
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodePodTopologySpreadArgs(Decoder& d,
                                                                         const Node& n) {
  auto args = std::make_shared<plugins::PodTopologySpreadArgs>();
  args->defaulting_type.clear();
  static const doc::Field<plugins::PodTopologySpreadArgs> kFields[] = {
      {"defaultConstraints",
       [](Decoder& x, const Node& y, plugins::PodTopologySpreadArgs& o) {
         x.ReadList(y, o.default_constraints,
                    [&](const Node& item, api::TopologySpreadConstraint& c) {
                      loader::DecodeTopologySpreadConstraintFragment(x, item, c);
                    });
       }},
      {"defaultingType",
       [](Decoder& x, const Node& y, plugins::PodTopologySpreadArgs& o) {
         x.ReadString(y, o.defaulting_type);
       }},
      // Corral extension (docs/deviations.md): sign pods whose default constraints select nothing.
      {"signWhenDefaultsSelectNothing",
       [](Decoder& x, const Node& y, plugins::PodTopologySpreadArgs& o) {
         x.ReadBool(y, o.sign_when_defaults_select_nothing);
       }},
  };
  d.Struct(n, *args, kFields);
  // kube SetDefaults_PodTopologySpreadArgs.
  if (args->defaulting_type.empty())
    args->defaulting_type = std::string(plugins::PodTopologySpreadArgs::kSystemDefaulting);
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodeVolumeBindingArgs(Decoder& d, const Node& n) {
  auto args = std::make_shared<plugins::VolumeBindingArgs>();
  static const doc::Field<plugins::VolumeBindingArgs> kFields[] = {
      {"bindTimeoutSeconds",
       [](Decoder& x, const Node& y, plugins::VolumeBindingArgs& o) {
         x.ReadInt64(y, o.bind_timeout_seconds);
       }},
      {"shape",
       [](Decoder& x, const Node& y, plugins::VolumeBindingArgs& o) {
         o.has_shape = !y.is_null();
         using Point = plugins::VolumeBindingArgs::ShapePoint;
         static const doc::Field<Point> kPoint[] = {
             {"utilization",
              [](Decoder& a, const Node& b, Point& pt) { a.ReadInt32(b, pt.utilization); }},
             {"score", [](Decoder& a, const Node& b, Point& pt) { a.ReadInt32(b, pt.score); }},
         };
         x.ReadList(y, o.shape, [&](const Node& item, Point& pt) { x.Struct(item, pt, kPoint); });
       }},
  };
  d.Struct(n, *args, kFields);
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodeDynamicResourcesArgs(Decoder& d, const Node& n) {
  auto args = std::make_shared<plugins::DynamicResourcesArgs>();
  static const doc::Field<plugins::DynamicResourcesArgs> kFields[] = {
      {"bindingTimeout",
       [](Decoder& x, const Node& y, plugins::DynamicResourcesArgs& o) {
         if (y.is_null()) return;
         Duration t{};
         if (x.ReadDuration(y, t)) o.binding_timeout = t;
       }},
      {"filterTimeout",
       [](Decoder&, const Node& y, plugins::DynamicResourcesArgs& o) {
         o.has_filter_timeout = !y.is_null();
       }},
  };
  d.Struct(n, *args, kFields);
  return args;
}

std::shared_ptr<const framework::PluginArgs> DecodeDefaultPreemptionArgs(Decoder& d,
                                                                         const Node& n) {
  auto args = std::make_shared<plugins::DefaultPreemptionArgs>();
  static const doc::Field<plugins::DefaultPreemptionArgs> kFields[] = {
      {"minCandidateNodesPercentage",
       [](Decoder& x, const Node& y, plugins::DefaultPreemptionArgs& o) {
         x.ReadInt32(y, o.min_candidate_nodes_percentage);
       }},
      {"minCandidateNodesAbsolute",
       [](Decoder& x, const Node& y, plugins::DefaultPreemptionArgs& o) {
         x.ReadInt32(y, o.min_candidate_nodes_absolute);
       }},
  };
  d.Struct(n, *args, kFields);
  return args;
}

using ArgsDecoder = std::shared_ptr<const framework::PluginArgs> (*)(Decoder&, const Node&);
using ArgsValidator = Result<void> (*)(const framework::PluginArgs&, std::string_view path,
                                       const Interner&);

struct ArgsType {
  std::string_view plugin;
  ArgsDecoder decode;
  ArgsValidator validate;
};

const ArgsType kArgsTypes[] = {
    {"DefaultPreemption", &DecodeDefaultPreemptionArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner&) {
       return static_cast<const plugins::DefaultPreemptionArgs&>(a).Validate(p);
     }},
    {"NodeResourcesFit", &DecodeFitArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner&) {
       return static_cast<const plugins::NodeResourcesFitArgs&>(a).Validate(p);
     }},
    {"NodeResourcesBalancedAllocation", &DecodeBalancedArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner&) {
       return static_cast<const plugins::NodeResourcesBalancedAllocationArgs&>(a).Validate(p);
     }},
    {"InterPodAffinity", &DecodeInterPodAffinityArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner&) {
       return plugins::ValidateInterPodAffinityArgs(
           static_cast<const plugins::InterPodAffinityArgs&>(a), p);
     }},
    {"NodeAffinity", &DecodeNodeAffinityArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner& in) {
       return static_cast<const plugins::NodeAffinityArgs&>(a).Validate(in, p);
     }},
    {"PodTopologySpread", &DecodePodTopologySpreadArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner& in) {
       return plugins::ValidatePodTopologySpreadArgs(
           static_cast<const plugins::PodTopologySpreadArgs&>(a), in, p);
     }},
    {"DynamicResources", &DecodeDynamicResourcesArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner&) {
       // The gate is checked again by the plugin, which knows the profile's gates.
       return static_cast<const plugins::DynamicResourcesArgs&>(a).Validate(p, true);
     }},
    {"VolumeBinding", &DecodeVolumeBindingArgs,
     [](const framework::PluginArgs& a, std::string_view p, const Interner&) {
       return static_cast<const plugins::VolumeBindingArgs&>(a).Validate(p);
     }},
};

// ---- profiles and the file ----------------------------------------------------------------------

struct ProfileInput {
  framework::ProfileConfig cfg;
  const Node* node = nullptr;
  const Node* name_node = nullptr;
  bool has_name = false;
};

void DecodeProfile(Decoder& d, const Node& n, ProfileInput& in, Interner& interner, size_t index) {
  in.node = &n;
  in.cfg.scheduler_name.clear();
  if (!d.ExpectMap(n)) return;
  std::set<std::string> seen_config;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string_view key = n.key(i).text();
    const Node& v = n.value(i);
    static constexpr std::string_view kKnown[] = {"schedulerName", "percentageOfNodesToScore",
                                                  "plugins", "pluginConfig"};
    if (ReportIfUnknown(d, n.key(i), kKnown)) continue;
    auto scope = d.Field(key);
    if (key == "schedulerName") {
      in.name_node = &v;
      in.has_name = d.ReadString(v, in.cfg.scheduler_name);
    } else if (key == "percentageOfNodesToScore") {
      int32_t pct = 0;
      if (d.ReadInt32(v, pct)) {
        in.cfg.percentage_of_nodes_to_score = pct;
        if (pct < 0 || pct > 100)
          d.Error(v, fmt::format("Invalid value: {}: not in valid range [0-100]", pct));
      }
    } else if (key == "plugins") {
      DecodePlugins(d, v, in.cfg.plugins);
    } else if (key == "pluginConfig") {
      size_t j = 0;
      d.ForEachItem(v, [&](const Node& item) {
        size_t idx = j++;
        std::string name;
        const Node* args = nullptr;
        if (!d.ExpectMap(item)) return;
        for (size_t k = 0; k < item.size(); ++k) {
          std::string_view k2 = item.key(k).text();
          static constexpr std::string_view kEntry[] = {"name", "args"};
          if (ReportIfUnknown(d, item.key(k), kEntry)) continue;
          auto s2 = d.Field(k2);
          if (k2 == "name") {
            d.ReadString(item.value(k), name);
          } else {
            args = &item.value(k);
          }
        }
        if (name.empty()) {
          d.Required(item, "name");
          return;
        }
        if (!seen_config.insert(name).second) {
          d.Error(item, fmt::format("Duplicate value: {:?}", name));
          return;
        }
        for (std::string_view removed : kRemovedPlugins) {
          if (name == removed) {
            d.Error(item, fmt::format("Invalid value: {:?}: was invalid in version {:?} "
                                      "(KubeSchedulerConfiguration is "
                                      "version {:?})",
                                      name, kApiVersion, kApiVersion));
            return;
          }
        }
        CheckPluginName(d, item, name, /*allow_star=*/false);
        const ArgsType* type = nullptr;
        for (const auto& t : kArgsTypes) {
          if (t.plugin == name) type = &t;
        }
        if (args == nullptr || args->is_null()) return;
        auto as = d.Field("args");
        if (type == nullptr) {
          d.Error(*args, fmt::format("plugin {:?} has no args that Corral models", name));
          return;
        }
        size_t before = d.error_count();
        auto decoded = type->decode(d, *args);
        if (d.error_count() != before) return;
        std::string path = fmt::format("profiles[{}].pluginConfig[{}].args", index, idx);
        if (auto st = type->validate(*decoded, path, interner); !st.ok()) {
          ReportArgsError(d, *args, st.error());
          return;
        }
        in.cfg.plugin_args[name] = std::move(decoded);
      });
    }
  }
}

// A Handle over an empty cluster: enough to construct every in-tree plugin, so that the errors the
// framework raises when it is built are found while the file's positions are still known.
class ProbeHandle final : public framework::Handle {
 public:
  ProbeHandle(const Interner& interner, const framework::FeatureGates& gates)
      : interner_(interner), gates_(gates) {}
  const Interner& interner() const override { return interner_; }
  const framework::FeatureGates& features() const override { return gates_; }
  const Clock& clock() const override { return clock_; }
  Rng& rng() override { return rng_; }
  const framework::Snapshot& snapshot() const override { return snapshot_; }
  const api::Namespace* GetNamespace(Symbol) const override { return nullptr; }
  std::span<const api::SelectorOwner* const> SelectorOwners(Symbol) const override { return {}; }
  std::span<const api::PodDisruptionBudget* const> PodDisruptionBudgets(Symbol) const override {
    return {};
  }
  std::span<const framework::PodInfo* const> NominatedPodsForNode(Symbol) const override {
    return {};
  }
  void Activate(std::span<const framework::PodInfo* const>) override {}

 private:
  const Interner& interner_;
  const framework::FeatureGates& gates_;
  ManualClock clock_;
  Rng rng_{1};
  framework::Snapshot snapshot_;
};

// The first scalar under `n` whose text is `text`, or null.
const Node* FindScalar(const Node& n, std::string_view text) {
  if (n.is_map()) {
    for (size_t i = 0; i < n.size(); ++i) {
      if (const Node* hit = FindScalar(n.value(i), text)) return hit;
    }
    return nullptr;
  }
  if (n.is_sequence()) {
    for (const Node& item : n.items()) {
      if (const Node* hit = FindScalar(item, text)) return hit;
    }
    return nullptr;
  }
  return n.is_scalar() && n.text() == text ? &n : nullptr;
}

bool SamePluginSet(const PluginSet& a, const PluginSet& b) {
  return a.enabled == b.enabled && a.disabled == b.disabled;
}

}  // namespace

Result<framework::SchedulerConfig> ParseSchedulerConfig(std::string_view text,
                                                        std::string_view file, Interner& interner,
                                                        const framework::FeatureGates& gates,
                                                        Diagnostics& diags,
                                                        const LoadConfigOptions& opts) {
  Diagnostics local;
  doc::Stream stream = doc::LooksLikeJson(text) ? doc::ParseJson(text, file, local)
                                                : doc::ParseYaml(text, file, local);
  Decoder d(file, local, &interner, {.strict = opts.strict});
  framework::SchedulerConfig cfg;
  std::vector<ProfileInput> profiles;
  std::vector<const Node*> docs;
  for (const Node& doc_root : stream.documents()) {
    if (!doc_root.is_null()) docs.push_back(&doc_root);
  }
  if (docs.size() != 1 && !local.has_errors()) {
    local.Error(
        std::string(file), 0, "",
        fmt::format("want exactly one KubeSchedulerConfiguration document, got {}", docs.size()));
  }
  if (docs.size() == 1) {
    const Node& root = *docs[0];
    if (d.ExpectMap(root)) {
      std::string api_version, kind;
      for (size_t i = 0; i < root.size(); ++i) {
        std::string_view key = root.key(i).text();
        const Node& v = root.value(i);
        static const std::vector<std::string_view> kKnown = [] {
          std::vector<std::string_view> known = {"apiVersion",
                                                 "kind",
                                                 "parallelism",
                                                 "percentageOfNodesToScore",
                                                 "podInitialBackoffSeconds",
                                                 "podMaxBackoffSeconds",
                                                 "profiles",
                                                 "extenders"};
          known.insert(known.end(), std::begin(kProcessFields), std::end(kProcessFields));
          return known;
        }();
        if (ReportIfUnknown(d, root.key(i), kKnown)) continue;
        auto scope = d.Field(key);
        if (key == "apiVersion") {
          d.ReadString(v, api_version);
        } else if (key == "kind") {
          d.ReadString(v, kind);
        } else if (key == "parallelism") {
          if (d.ReadInt32(v, cfg.parallelism) && cfg.parallelism <= 0) {
            d.Error(v,
                    fmt::format("Invalid value: {}: should be an integer value greater than zero",
                                cfg.parallelism));
          }
        } else if (key == "percentageOfNodesToScore") {
          int32_t pct = 0;
          if (d.ReadInt32(v, pct)) {
            cfg.percentage_of_nodes_to_score = pct;
            if (pct < 0 || pct > 100)
              d.Error(v, fmt::format("Invalid value: {}: not in valid range [0-100]", pct));
          }
        } else if (key == "podInitialBackoffSeconds") {
          if (d.ReadInt64(v, cfg.pod_initial_backoff_seconds) &&
              cfg.pod_initial_backoff_seconds <= 0) {
            d.Error(v, fmt::format("Invalid value: {}: must be greater than 0",
                                   cfg.pod_initial_backoff_seconds));
          }
        } else if (key == "podMaxBackoffSeconds") {
          d.ReadInt64(v, cfg.pod_max_backoff_seconds);
        } else if (key == "profiles") {
          size_t idx = 0;
          d.ForEachItem(v, [&](const Node& item) {
            ProfileInput in;
            DecodeProfile(d, item, in, interner, idx++);
            profiles.push_back(std::move(in));
          });
        } else if (key == "extenders") {
          if (!v.is_null() && !v.empty())
            d.Error(v, "scheduler extenders are not supported by Corral");
        }  // the process fields (kProcessFields) configure kube-scheduler, not decisions
      }
      if (api_version != kApiVersion) {
        auto scope = d.Field("apiVersion");
        d.Error(root,
                fmt::format("unsupported apiVersion {:?} (want {:?})", api_version, kApiVersion));
      }
      if (kind != kKind) {
        auto scope = d.Field("kind");
        d.Error(root, fmt::format("unsupported kind {:?} (want {:?})", kind, kKind));
      }
      if (cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds) {
        const Node* at = root.Find("podMaxBackoffSeconds");
        auto scope = d.Field("podMaxBackoffSeconds");
        d.Error(at ? *at : root,
                fmt::format(
                    "Invalid value: {}: must be greater than or equal to PodInitialBackoffSeconds",
                    cfg.pod_max_backoff_seconds));
      }
      // Profiles: defaulted name, required/duplicate checks, common queue sort.
      std::map<std::string, size_t> names;
      for (size_t i = 0; i < profiles.size(); ++i) {
        auto& p = profiles[i];
        auto ps = d.Field(fmt::format("profiles[{}]", i));
        // kube v1 defaulting names the profile only when it is the only one.
        if (profiles.size() == 1 && p.name_node == nullptr)
          p.cfg.scheduler_name = "default-scheduler";
        if (p.cfg.scheduler_name.empty()) {
          auto s = d.Field("schedulerName");
          d.Error(*p.node, "Required value");
        } else if (auto it = names.find(p.cfg.scheduler_name); it != names.end()) {
          auto s = d.Field("schedulerName");
          d.Error(p.name_node ? *p.name_node : *p.node,
                  fmt::format("Duplicate value: {:?}", p.cfg.scheduler_name));
        } else {
          names[p.cfg.scheduler_name] = i;
        }
        if (i > 0 && !SamePluginSet(p.cfg.plugins.queue_sort, profiles[0].cfg.plugins.queue_sort)) {
          auto s = d.Field("plugins.queueSort");
          d.Error(*p.node, "Invalid value: must be the same for all profiles");
        }
      }
    }
  }
  diags.Merge(local);
  if (local.has_errors()) {
    std::string msg;
    for (const auto& item : local.items()) {
      if (item.severity != Severity::kError) continue;
      if (!msg.empty()) msg += '\n';
      msg += item.ToString();
    }
    return Error::Invalid(msg);
  }
  for (auto& p : profiles) cfg.profiles.push_back(std::move(p.cfg));
  framework::ApplyDefaults(cfg, gates);
  // The framework's own checks (a plugin at an extension point it does not implement, a plugin
  // listed twice, no queue sort or bind plugin): each profile is built once over an empty cluster,
  // and an error is placed at the entry naming the plugin it quotes (else at the profile).
  {
    ProbeHandle probe(interner, gates);
    Diagnostics built_diags;
    static const framework::Registry kRegistry = plugins::NewInTreeRegistry();
    for (size_t i = 0; i < cfg.profiles.size(); ++i) {
      auto built = framework::Framework::New(cfg.profiles[i], kRegistry, probe);
      if (built.ok()) continue;
      const std::string& msg = built.error().message;
      const Node* at = profiles[i].node;
      std::string path = fmt::format("profiles[{}]", i);
      if (const Node* plugins = at->is_map() ? at->Find("plugins") : nullptr) {
        at = plugins;
        path += ".plugins";
        const size_t open = msg.find('"');
        const size_t close = open == std::string::npos ? open : msg.find('"', open + 1);
        if (close != std::string::npos) {
          if (const Node* hit = FindScalar(*plugins, msg.substr(open + 1, close - open - 1)))
            at = hit;
        }
      }
      built_diags.Error(std::string(file), at->line(), path, msg);
    }
    if (built_diags.has_errors()) {
      diags.Merge(built_diags);
      return Error::Invalid(built_diags.items().back().ToString());
    }
  }
  return cfg;
}

Result<framework::SchedulerConfig> LoadSchedulerConfig(const std::string& path, Interner& interner,
                                                       const framework::FeatureGates& gates,
                                                       Diagnostics& diags,
                                                       const LoadConfigOptions& opts) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return Error::NotFound(fmt::format("{}: cannot read the scheduler configuration file", path));
  std::ostringstream ss;
  ss << f.rdbuf();
  return ParseSchedulerConfig(ss.str(), path, interner, gates, diags, opts);
}

}  // namespace corral::config
