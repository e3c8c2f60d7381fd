#include "corral/compare/sweep.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/sim/input/scenario.h"

namespace corral::compare {

namespace {

namespace fs = std::filesystem;
using doc::Decoder;
using doc::Node;

struct VariantIn {
  Variant v;
  const Node* self = nullptr;
};

struct SweepIn {
  std::string name;
  std::string scenario;
  const Node* scenario_node = nullptr;
  int64_t seed_count = 0;
  std::vector<uint64_t> seeds;
  std::vector<VariantIn> variants;
  std::vector<std::pair<std::string, std::vector<std::string>>> parameters;
  const Node* parameters_node = nullptr;
  std::string base_dir;
};

std::string Resolve(const std::string& base, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute() || base.empty()) return p;
  return (fs::path(base) / p).lexically_normal().string();
}

// A scalar's text as an option value: strings as written, numbers by their text.
bool ReadScalarText(Decoder& d, const Node& n, std::string& out) {
  if (n.is_null()) return false;
  if (!n.is_scalar()) {
    d.Error(n, fmt::format("want a string or a number, got {}", Decoder::Describe(n)));
    return false;
  }
  out = std::string(n.text());
  return true;
}

const doc::Field<VariantIn> kVariantFields[] = {
    {"name",
     [](Decoder& d, const Node& n, VariantIn& o) {
       if (d.ReadString(n, o.v.name) && !ValidVariantName(o.v.name)) {
         d.Error(n, fmt::format("invalid variant name {:?} (want 1-40 characters of A-Z a-z 0-9 "
                                ". _ -)",
                                o.v.name));
       }
     }},
    {"config",
     [](Decoder& d, const Node& n, VariantIn& o) { d.ReadString(n, o.v.overrides.config); }},
    {"pools",
     [](Decoder& d, const Node& n, VariantIn& o) { d.ReadString(n, o.v.overrides.pools); }},
    {"clusterConfigs",
     [](Decoder& d, const Node& n, VariantIn& o) {
       d.ForEachEntry(n, [&](const Node& key_node, const Node& value) {
         const std::string key(key_node.text());
         std::string file;
         if (d.ReadString(value, file)) o.v.overrides.cluster_configs.emplace_back(key, file);
       });
     }},
    {"featureGates",
     [](Decoder& d, const Node& n, VariantIn& o) {
       std::string flag;
       d.ForEachEntry(n, [&](const Node& key_node, const Node& value) {
         const std::string key(key_node.text());
         bool on = false;
         if (!d.ReadBool(value, on)) return;
         framework::FeatureGates check;
         if (auto st = check.Set(key, on); !st.ok()) {
           d.Error(value, st.error().message);
           return;
         }
         if (!flag.empty()) flag += ',';
         flag += fmt::format("{}={}", key, on ? "true" : "false");
       });
       o.v.overrides.feature_gates = flag;
     }},
    {"nodes",
     [](Decoder& d, const Node& n, VariantIn& o) {
       d.ForEachEntry(n, [&](const Node& key_node, const Node& value) {
         const std::string key(key_node.text());
         int64_t count = 0;
         if (d.ReadInt64(value, count, 0, kMaxPoolNodes))
           o.v.overrides.nodes.emplace_back(key, count);
       });
     }},
    {"rates",
     [](Decoder& d, const Node& n, VariantIn& o) {
       d.ForEachEntry(n, [&](const Node& key_node, const Node& value) {
         const std::string key(key_node.text());
         std::string rate;
         if (!ReadScalarText(d, value, rate)) return;
         double per_s = 0;
         if (!sim::ParseRate(rate, per_s)) {
           d.Error(value, fmt::format("invalid rate {:?} (want a positive number per second, or "
                                      "\"N/s\", \"N/min\", \"N/h\", \"N/d\")",
                                      rate));
           return;
         }
         o.v.overrides.rates.emplace_back(key, rate);
       });
     }},
};

const doc::Field<SweepIn> kMetaFields[] = {
    {"name", [](Decoder& d, const Node& n, SweepIn& o) { d.ReadString(n, o.name); }},
};

const doc::Field<SweepIn> kSweepFields[] = {
    {"apiVersion",
     [](Decoder& d, const Node& n, SweepIn&) {
       std::string_view s;
       if (d.ReadString(n, s) && s != "corral.dev/v1alpha1") {
         d.Error(n, fmt::format("unsupported apiVersion {:?} (want corral.dev/v1alpha1)", s));
       }
     }},
    {"kind",
     [](Decoder& d, const Node& n, SweepIn&) {
       std::string_view s;
       if (d.ReadString(n, s) && s != "Sweep") d.Error(n, fmt::format("kind {:?}: want Sweep", s));
     }},
    {"metadata", [](Decoder& d, const Node& n, SweepIn& o) { d.Struct(n, o, kMetaFields); }},
    {"scenario",
     [](Decoder& d, const Node& n, SweepIn& o) {
       o.scenario_node = &n;
       d.ReadString(n, o.scenario);
     }},
    {"seeds",
     [](Decoder& d, const Node& n, SweepIn& o) {
       if (n.is_sequence()) {
         d.ForEachItem(n, [&](const Node& item) {
           int64_t s = 0;
           if (d.ReadInt64(item, s, 0)) o.seeds.push_back(static_cast<uint64_t>(s));
         });
         if (n.empty()) d.Error(n, "at least one seed");
         return;
       }
       if (d.ReadInt64(n, o.seed_count, 1, 1000)) return;
     }},
    {"variants",
     [](Decoder& d, const Node& n, SweepIn& o) {
       d.ReadList(n, o.variants, [&](const Node& item, VariantIn& v) {
         v.self = &item;
         d.Struct(item, v, kVariantFields);
         if (item.is_map() && v.v.name.empty()) d.Required(item, "name");
       });
     }},
    {"parameters",
     [](Decoder& d, const Node& n, SweepIn& o) {
       o.parameters_node = &n;
       d.ForEachEntry(n, [&](const Node& key_node, const Node& value) {
         const std::string key(key_node.text());
         std::vector<std::string> values;
         if (!d.ExpectSequence(value)) return;
         d.ForEachItem(value, [&](const Node& item) {
           std::string text;
           if (!ReadScalarText(d, item, text)) return;
           Overrides probe;
           if (auto st = ParseOverride(fmt::format("{}={}", key, text), probe); !st.ok()) {
             d.Error(item, st.error().message);
             return;
           }
           values.push_back(std::move(text));
         });
         if (value.empty()) d.Error(value, "at least one value");
         o.parameters.emplace_back(key, std::move(values));
       });
     }},
};

// The number of runs of a matrix, into `runs`; false when it exceeds kMaxSweepRuns (the product is
// checked factor by factor, so it never overflows).
bool MatrixRuns(const std::vector<std::pair<std::string, std::vector<std::string>>>& parameters,
                size_t variants, size_t seeds, size_t& runs) {
  runs = 1;
  auto times = [&](size_t n) {
    if (n != 0 && runs > kMaxSweepRuns / n) return false;
    runs *= n;
    return true;
  };
  for (const auto& [key, values] : parameters) {
    if (!times(values.size())) return false;
  }
  return times(variants) && times(seeds);
}

uint64_t Fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string ReadAll(const std::string& path, bool& ok) {
  std::ifstream f(path, std::ios::binary);
  ok = static_cast<bool>(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Quotes a YAML string when it needs it (always double-quoted: JSON string syntax is valid YAML).
std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool Dns1123(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

}  // namespace

Result<SweepSpec> LoadSweepSpec(const std::string& path, Diagnostics& diags) {
  bool ok = false;
  std::string text = ReadAll(path, ok);
  if (!ok) return Error::NotFound(fmt::format("{}: cannot read file", path));
  doc::Stream stream = doc::ParseYaml(text, path, diags);
  if (diags.has_errors()) return Error::Invalid(sim::DiagnosticsMessage(diags));
  auto docs = stream.documents();
  if (docs.empty() || docs[0].is_null()) {
    diags.Error(path, 1, "", "empty sweep file");
    return Error::Invalid(sim::DiagnosticsMessage(diags));
  }
  if (docs.size() > 1) diags.Error(path, docs[1].line(), "", "a sweep file holds one document");
  Decoder d(path, diags, nullptr, {.strict = true});
  SweepIn in;
  d.Struct(docs[0], in, kSweepFields);
  const Node& root = docs[0];
  if (root.is_map()) {
    if (root.Find("kind") == nullptr) d.Required(root, "kind", "Sweep");
    if (root.Find("apiVersion") == nullptr) d.Required(root, "apiVersion", "corral.dev/v1alpha1");
    if (in.scenario.empty()) d.Required(root, "scenario", "the scenario file");
    if (in.variants.empty()) d.Required(root, "variants", "at least one variant");
    if (root.Find("seeds") == nullptr) d.Required(root, "seeds", "a count or a list of seeds");
    std::set<std::string> names;
    for (size_t i = 0; i < in.variants.size(); ++i) {
      const auto& v = in.variants[i];
      if (!v.v.name.empty() && !names.insert(v.v.name).second) {
        auto s1 = d.Field("variants");
        auto s2 = d.Index(i);
        d.FieldError(*v.self, "name", fmt::format("duplicate variant name {:?}", v.v.name));
      }
    }
    const size_t seeds = in.seeds.empty() ? static_cast<size_t>(in.seed_count) : in.seeds.size();
    size_t runs = 0;
    if (!MatrixRuns(in.parameters, in.variants.size(), seeds, runs)) {
      const std::string message = fmt::format(
          "the matrix has more than {} runs (parameter points × variants × seeds); a "
          "sweep holds at most that many, each a whole simulation",
          kMaxSweepRuns);
      if (in.parameters_node != nullptr) {
        d.FieldError(*in.parameters_node, "parameters", message);
      } else {
        d.Error(root, message);
      }
    }
  }
  if (in.name.empty()) in.name = fs::path(path).stem().string();
  if (diags.has_errors()) return Error::Invalid(sim::DiagnosticsMessage(diags));

  SweepSpec spec;
  spec.file = path;
  spec.name = in.name;
  const std::string base = fs::path(path).parent_path().string();
  spec.scenario = Resolve(base, in.scenario);
  uint64_t h = Fnv1a(0xcbf29ce484222325ULL, text);
  bool read = false;
  std::string scenario_text = ReadAll(spec.scenario, read);
  if (!read) {
    diags.Error(path, in.scenario_node->line(), "scenario",
                fmt::format("cannot read the scenario {:?}", spec.scenario));
    return Error::Invalid(sim::DiagnosticsMessage(diags));
  }
  h = Fnv1a(h, scenario_text);
  for (auto& vi : in.variants) {
    Variant v = std::move(vi.v);
    if (!v.overrides.config.empty()) v.overrides.config = Resolve(base, v.overrides.config);
    for (auto& [k, f] : v.overrides.cluster_configs) f = Resolve(base, f);
    if (!v.overrides.pools.empty()) v.overrides.pools = Resolve(base, v.overrides.pools);
    for (const std::string& f : {v.overrides.config, v.overrides.pools}) {
      if (!f.empty()) h = Fnv1a(h, ReadAll(f, read));
    }
    for (const auto& [k, f] : v.overrides.cluster_configs) h = Fnv1a(h, ReadAll(f, read));
    spec.variants.push_back(std::move(v));
  }
  for (auto& [key, values] : in.parameters) {
    if (key == "config" || key.starts_with("config.") || key == "pools") {
      for (auto& v : values) {
        v = Resolve(base, v);
        h = Fnv1a(h, ReadAll(v, read));
      }
    }
    spec.parameters.emplace_back(key, values);
  }
  if (!in.seeds.empty()) {
    spec.seeds = in.seeds;
  } else {
    auto first = ScenarioSeed(spec.scenario);
    if (!first.ok()) return first.error();
    spec.seed_count = static_cast<int>(in.seed_count);
    for (int64_t k = 0; k < in.seed_count; ++k)
      spec.seeds.push_back(*first + static_cast<uint64_t>(k));
  }
  spec.digest = fmt::format("{:016x}", h);
  return spec;
}

Result<std::vector<RunPlan>> PlanSweep(const SweepSpec& spec) {
  size_t runs = 0;
  if (!MatrixRuns(spec.parameters, spec.variants.size(), spec.seeds.size(), runs)) {
    return Error::Invalid(
        fmt::format("{}: the matrix has more than {} runs", spec.file, kMaxSweepRuns));
  }
  // Points: the cartesian product of the parameters, the first varying slowest.
  std::vector<Overrides> points(1);
  std::vector<std::string> labels(1);
  for (const auto& [key, values] : spec.parameters) {
    std::vector<Overrides> next;
    std::vector<std::string> next_labels;
    for (size_t p = 0; p < points.size(); ++p) {
      for (const auto& value : values) {
        Overrides o = points[p];
        if (auto st = ParseOverride(fmt::format("{}={}", key, value), o); !st.ok())
          return st.error();
        next.push_back(std::move(o));
        next_labels.push_back(labels[p].empty() ? fmt::format("{}={}", key, value)
                                                : fmt::format("{};{}={}", labels[p], key, value));
      }
    }
    points = std::move(next);
    labels = std::move(next_labels);
  }
  std::vector<RunPlan> plans;
  const size_t total = points.size() * spec.variants.size() * spec.seeds.size();
  for (size_t p = 0; p < points.size(); ++p) {
    for (const auto& v : spec.variants) {
      for (uint64_t seed : spec.seeds) {
        RunPlan plan;
        plan.scenario_path = spec.scenario;
        plan.variant = v;
        plan.parameters = points[p];
        plan.point = labels[p];
        plan.seed = seed;
        plan.index = plans.size();
        plan.total = total;
        plan.digest = spec.digest;
        plans.push_back(std::move(plan));
      }
    }
  }
  return plans;
}

Result<Shard> ParseShard(std::string_view text) {
  size_t slash = text.find('/');
  Shard s;
  auto num = [](std::string_view t, size_t& out) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size() && !t.empty();
  };
  if (slash == std::string_view::npos || !num(text.substr(0, slash), s.index) ||
      !num(text.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count) {
    return Error::Invalid(fmt::format("--shard: want I/N with 0 ≤ I < N, got {:?}", text));
  }
  return s;
}

std::vector<RunPlan> ShardOf(const std::vector<RunPlan>& plans, const Shard& shard) {
  std::vector<RunPlan> out;
  for (const auto& p : plans) {
    if (p.index % shard.count == shard.index) out.push_back(p);
  }
  return out;
}

Result<void> CheckComplete(const std::vector<RunRecord>& records) {
  if (records.empty()) return Error::Invalid("no run files (run-*.json) in the directory");
  const size_t total = records[0].total;
  std::vector<int> seen(total, 0);
  for (const auto& r : records) {
    if (r.digest != records[0].digest || r.total != total) {
      return Error::Invalid(fmt::format(
          "the directory mixes results of different sweeps (run {} of {} and run {} of {})",
          records[0].index, records[0].variant, r.index, r.variant));
    }
    if (r.index >= total) return Error::Invalid(fmt::format("run index {} ≥ {}", r.index, total));
    ++seen[r.index];
  }
  std::vector<size_t> missing;
  for (size_t i = 0; i < total; ++i) {
    if (seen[i] == 0) missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t k = 0; k < missing.size() && k < 10; ++k)
      list += fmt::format("{}{}", k == 0 ? "" : ", ", missing[k]);
    if (missing.size() > 10) list += ", …";
    return Error::Internal(
        fmt::format("{} of {} runs are missing (runs {}); run the shards that "
                    "hold them (run i belongs to shard i mod N)",
                    missing.size(), total, list));
  }
  return Result<void>::Ok();
}

Result<std::string> EmitJob(const SweepSpec& spec, const JobOptions& opts) {
  std::string name = opts.job_name;
  if (name.empty()) {
    name = "corral-sweep-";
    for (char c : spec.name) {
      char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      name += ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9')) ? l : '-';
    }
    while (name.size() > 63 || name.back() == '-') name.pop_back();
  }
  if (!Dns1123(name)) {
    return Error::Invalid(fmt::format(
        "--job-name: {:?} is not a valid name (lowercase letters, digits and '-', at most 63)",
        name));
  }
  if (!Dns1123(opts.results_claim)) {
    return Error::Invalid(fmt::format(
        "--results-claim: {:?} is not a valid PersistentVolumeClaim name", opts.results_claim));
  }
  if (opts.shards < 1 || opts.shards > 100000) {
    return Error::Invalid(fmt::format("--shards: want 1 to 100000, got {}", opts.shards));
  }
  if (opts.image.empty()) return Error::Invalid("--image: empty");
  const std::string out_dir = "/results/" + name;
  std::string y;
  y += fmt::format("# corral sweep {} --emit-job: {} shards as a Kubernetes Indexed Job.\n",
                   spec.file, opts.shards);
  y += fmt::format(
      "# Pod i runs shard i (JOB_COMPLETION_INDEX) in the image's /corral directory (the\n"
      "# repository, as the Dockerfile lays it out) and writes one result file per run to the\n"
      "# volume claim {:?} under {}.\n"
      "# When the Job is complete: corral sweep merge {}\n",
      opts.results_claim, out_dir, out_dir);
  y += "apiVersion: batch/v1\nkind: Job\nmetadata:\n";
  y += fmt::format("  name: {}\n", name);
  y += "  labels:\n    app.kubernetes.io/name: corral\n    app.kubernetes.io/component: sweep\n";
  y += "spec:\n  completionMode: Indexed\n";
  y += fmt::format("  completions: {}\n  parallelism: {}\n", opts.shards, opts.shards);
  y += "  backoffLimit: 3\n  template:\n    metadata:\n      labels:\n";
  y += "        app.kubernetes.io/name: corral\n        app.kubernetes.io/component: sweep\n";
  y += "    spec:\n      restartPolicy: Never\n      containers:\n      - name: sweep\n";
  y += fmt::format("        image: {}\n", Quote(opts.image));
  y += "        workingDir: /corral\n";
  y += "        command:\n        - corral\n        - sweep\n";
  y += fmt::format("        - {}\n", Quote(opts.spec_path));
  y += fmt::format("        - --shard\n        - {}\n",
                   Quote(fmt::format("$(JOB_COMPLETION_INDEX)/{}", opts.shards)));
  y += fmt::format("        - --out\n        - {}\n", Quote(out_dir));
  y += fmt::format("        - --jobs\n        - {}\n", Quote(std::to_string(opts.cpus)));
  y += "        - --quiet\n";
  y += "        resources:\n          requests:\n";
  y += fmt::format("            cpu: {}\n            memory: 1Gi\n",
                   Quote(std::to_string(opts.cpus)));
  y += "        volumeMounts:\n        - name: results\n          mountPath: /results\n";
  y += "      volumes:\n      - name: results\n        persistentVolumeClaim:\n";
  y += fmt::format("          claimName: {}\n", opts.results_claim);
  return y;
}

}  // namespace corral::compare
