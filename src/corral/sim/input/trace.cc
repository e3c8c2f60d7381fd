#include "corral/sim/input/trace.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/doc/input.h"
#include "corral/sim/input/explicit_workload.h"
#include "corral/sim/input/scenario.h"

namespace corral::sim {

namespace {

// The largest memory_mib whose byte count (× 2^20) still fits in a Quantity's int64 units; a
// larger value is a positioned error, never a wrapped or capped quantity.
constexpr int64_t kMaxMib = std::numeric_limits<int64_t>::max() / (1024 * 1024);
constexpr std::string_view kNodeHeader[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
constexpr std::string_view kPodHeader[] = {
    "name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
    "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};

// Splits one CSV line (RFC 4180 quotes supported, no embedded newlines).
std::vector<std::string_view> SplitCsv(std::string_view line, std::vector<std::string>& storage) {
  std::vector<std::string_view> out;
  storage.clear();
  size_t i = 0;
  bool any_quoted = line.find('"') != std::string_view::npos;
  if (!any_quoted) {
    while (true) {
      size_t j = line.find(',', i);
      out.push_back(line.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
      if (j == std::string_view::npos) break;
      i = j + 1;
    }
    return out;
  }
  storage.reserve(16);
  std::string cur;
  bool quoted = false;
  for (size_t k = 0; k < line.size(); ++k) {
    char c = line[k];
    if (quoted) {
      if (c == '"' && k + 1 < line.size() && line[k + 1] == '"') {
        cur += '"';
        ++k;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      storage.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  storage.push_back(std::move(cur));
  for (const auto& s : storage) out.emplace_back(s);
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

struct CsvRow {
  uint32_t line = 0;
  std::vector<std::string_view> fields;
};

// Reads header + rows; reports a bad header and rows with the wrong number of fields.
bool ReadCsv(std::string_view text, std::string_view file, std::span<const std::string_view> want,
             size_t min_cols, std::deque<std::string>& owned, std::vector<CsvRow>& rows,
             Diagnostics& diags) {
  std::vector<std::string> scratch;
  uint32_t line_no = 0;
  size_t pos = 0;
  bool header_done = false;
  size_t cols = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    line = Trim(line);
    if (line_no == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    if (line.empty()) continue;
    auto f = SplitCsv(line, scratch);
    if (!scratch.empty()) {
      // Quoted fields: keep their unquoted text alive.
      size_t base = owned.size();
      for (auto& s : scratch) owned.push_back(std::move(s));
      f.clear();
      for (size_t k = base; k < owned.size(); ++k) f.emplace_back(owned[k]);
    }
    for (auto& x : f) x = Trim(x);
    if (!header_done) {
      header_done = true;
      cols = f.size();
      bool ok = cols >= min_cols && cols <= want.size();
      for (size_t k = 0; ok && k < cols; ++k) ok = f[k] == want[k];
      if (!ok) {
        std::string w;
        for (size_t k = 0; k < want.size(); ++k) w += (k > 0 ? "," : "") + std::string(want[k]);
        diags.Error(std::string(file), line_no, "",
                    fmt::format("unexpected header {:?} (want {:?}, or its first {} columns)", line,
                                w, min_cols));
        return false;
      }
      continue;
    }
    if (f.size() != cols) {
      diags.Error(std::string(file), line_no, "",
                  fmt::format("want {} fields, got {}", cols, f.size()));
      continue;
    }
    rows.push_back({line_no, std::move(f)});
  }
  if (!header_done) {
    diags.Error(std::string(file), 0, "", "empty file (want a CSV header)");
    return false;
  }
  return true;
}

bool Int(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Times may be written as integers or decimals ("12.0"); kept in whole seconds × 1e9.
bool Seconds(std::string_view s, int64_t& ns) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !(v >= 0) || v > 9e9) return false;
  ns = static_cast<int64_t>(v * 1e9);
  return true;
}

api::ResourceList SortedResources(std::vector<std::pair<Symbol, api::Quantity>> r) {
  std::sort(r.begin(), r.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return r;
}

}  // namespace

Result<SimSpec> ParseAlibabaTrace(std::string_view nodes_csv, std::string_view nodes_file,
                                  std::string_view pods_csv, std::string_view pods_file,
                                  Interner& in, Diagnostics& diags, const TraceOptions& opts) {
  std::deque<std::string> owned;  // unquoted fields; a deque keeps their addresses stable
  std::vector<CsvRow> node_rows, pod_rows;
  bool ok_nodes = ReadCsv(nodes_csv, nodes_file, kNodeHeader, 5, owned, node_rows, diags);
  bool ok_pods = ReadCsv(pods_csv, pods_file, kPodHeader, 5, owned, pod_rows, diags);
  SimSpec spec;
  spec.name = "alibaba-gpu-v2023";
  spec.source = fmt::format("{} {}", nodes_file, pods_file);
  spec.description =
      fmt::format("Alibaba GPU trace v2023: {} nodes, {} pods", node_rows.size(), pod_rows.size());
  if (!ok_nodes || !ok_pods) return Error::Invalid(DiagnosticsMessage(diags));

  const Symbol gpu = in.Intern(kGpuResource);
  const Symbol model_label = in.Intern(kGpuModelLabel);
  const Symbol qos_label = in.Intern("alibabacloud.com/qos");
  const Symbol ready = in.Intern("Ready");
  auto field_error = [&](std::string_view file, uint32_t line, std::string_view col,
                         std::string msg) {
    diags.Error(std::string(file), line, std::string(col), std::move(msg));
  };

  // Nodes.
  std::set<std::string_view> node_names;
  std::set<std::string_view> models;
  for (const CsvRow& row : node_rows) {
    const auto& f = row.fields;
    int64_t cpu = 0, mem = 0, g = 0;
    bool ok = true;
    if (f[0].empty()) {
      field_error(nodes_file, row.line, "sn", "empty node name");
      ok = false;
    } else if (!node_names.insert(f[0]).second) {
      field_error(nodes_file, row.line, "sn", fmt::format("duplicate node {:?}", f[0]));
      ok = false;
    }
    if (!Int(f[1], cpu) || cpu < 0) {
      field_error(nodes_file, row.line, "cpu_milli",
                  fmt::format("invalid integer {:?} (want milli-CPUs ≥ 0)", f[1]));
      ok = false;
    }
    if (!Int(f[2], mem) || mem < 0 || mem > kMaxMib) {
      field_error(nodes_file, row.line, "memory_mib",
                  fmt::format("invalid integer {:?} (want MiB in [0, {}])", f[2], kMaxMib));
      ok = false;
    }
    if (!Int(f[3], g) || g < 0) {
      field_error(nodes_file, row.line, "gpu",
                  fmt::format("invalid integer {:?} (want GPUs ≥ 0)", f[3]));
      ok = false;
    }
    if (!ok) continue;
    api::Node n;
    n.meta.name = in.Intern(f[0]);
    n.meta.source = {in.Intern(nodes_file), row.line};
    std::vector<std::pair<Symbol, api::Quantity>> res = {
        {api::wk::kCpu, api::Quantity::FromMilli(cpu)},
        {api::wk::kMemory,
         api::Quantity::FromInt(mem * 1024 * 1024, api::Quantity::Format::kBinarySI)},
        {api::wk::kPods, api::Quantity::FromInt(opts.pods_per_node)}};
    if (g > 0) res.emplace_back(gpu, api::Quantity::FromInt(g));
    n.capacity = SortedResources(std::move(res));
    n.allocatable = n.capacity;
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    if (f.size() > 4 && !f[4].empty()) {
      n.meta.labels.Set(model_label, in.Intern(f[4]));
      models.insert(f[4]);
    }
    n.conditions.push_back({ready, api::wk::kTrue});
    spec.initial_nodes.push_back(std::move(n));
  }

  // Pods: one template per distinct shape.
  using Shape = std::tuple<int64_t, int64_t, int64_t, std::string, std::string>;
  std::map<Shape, uint32_t> shapes;
  std::set<std::string_view> pod_names;
  struct Row {
    int64_t create = 0, duration = kForeverNs;
    uint32_t tmpl = 0;
    Symbol name;
  };
  std::vector<Row> rows;
  int64_t min_create = INT64_MAX, last = 0;
  const bool timed = !pod_rows.empty() && pod_rows[0].fields.size() >= 11;
  for (const CsvRow& row : pod_rows) {
    const auto& f = row.fields;
    int64_t cpu = 0, mem = 0, ngpu = 0, gmilli = 0;
    bool ok = true;
    if (f[0].empty()) {
      field_error(pods_file, row.line, "name", "empty pod name");
      ok = false;
    } else if (!pod_names.insert(f[0]).second) {
      field_error(pods_file, row.line, "name", fmt::format("duplicate pod {:?}", f[0]));
      ok = false;
    }
    if (!Int(f[1], cpu) || cpu < 0) {
      field_error(pods_file, row.line, "cpu_milli",
                  fmt::format("invalid integer {:?} (want milli-CPUs ≥ 0)", f[1]));
      ok = false;
    }
    if (!Int(f[2], mem) || mem < 0 || mem > kMaxMib) {
      field_error(pods_file, row.line, "memory_mib",
                  fmt::format("invalid integer {:?} (want MiB in [0, {}])", f[2], kMaxMib));
      ok = false;
    }
    if (!Int(f[3], ngpu) || ngpu < 0) {
      field_error(pods_file, row.line, "num_gpu",
                  fmt::format("invalid integer {:?} (want GPUs ≥ 0)", f[3]));
      ok = false;
    }
    if (!Int(f[4], gmilli) || gmilli < 0 || gmilli > 1000) {
      field_error(pods_file, row.line, "gpu_milli",
                  fmt::format("invalid integer {:?} (want 0..1000 milli-GPUs per GPU)", f[4]));
      ok = false;
    }
    std::string spec_s, qos;
    Row r;
    if (timed) {
      spec_s = std::string(f[5]);
      qos = std::string(f[6]);
      int64_t create = 0, del = 0, sched = 0;
      if (!Seconds(f[8], create)) {
        field_error(pods_file, row.line, "creation_time",
                    fmt::format("invalid time {:?} (want seconds ≥ 0)", f[8]));
        ok = false;
      }
      bool has_del = !f[9].empty(), has_sched = !f[10].empty();
      if (has_del && !Seconds(f[9], del)) {
        field_error(pods_file, row.line, "deletion_time",
                    fmt::format("invalid time {:?} (want seconds ≥ 0)", f[9]));
        ok = false;
      }
      if (has_sched && !Seconds(f[10], sched)) {
        field_error(pods_file, row.line, "scheduled_time",
                    fmt::format("invalid time {:?} (want seconds ≥ 0)", f[10]));
        ok = false;
      }
      if (ok && has_del && del < create) {
        field_error(pods_file, row.line, "deletion_time",
                    fmt::format("deletion_time {} is before creation_time {}", f[9], f[8]));
        ok = false;
      }
      if (ok && has_sched && sched < create) {
        field_error(pods_file, row.line, "scheduled_time",
                    fmt::format("scheduled_time {} is before creation_time {}", f[10], f[8]));
        ok = false;
      }
      if (ok) {
        r.create = create;
        if (has_del) r.duration = del - (has_sched ? std::min(sched, del) : create);
        min_create = std::min(min_create, create);
      }
    }
    if (!spec_s.empty()) {
      // Every listed model should exist on some node; an unknown one leaves the pod unschedulable,
      // which is worth a warning rather than a silent surprise.
      size_t start = 0;
      while (start <= spec_s.size()) {
        size_t bar = spec_s.find('|', start);
        std::string_view m = std::string_view(spec_s).substr(
            start, bar == std::string::npos ? std::string::npos : bar - start);
        if (m.empty()) {
          field_error(pods_file, row.line, "gpu_spec",
                      fmt::format("empty GPU model in {:?}", spec_s));
          ok = false;
        }
        if (bar == std::string::npos) break;
        start = bar + 1;
      }
    }
    if (!ok) continue;
    Shape key{cpu, mem, ngpu, spec_s, qos};
    auto [it, fresh] = shapes.try_emplace(key, static_cast<uint32_t>(spec.pod_templates.size()));
    if (fresh) {
      PodTemplate t;
      t.name = fmt::format("shape-{}", spec.pod_templates.size());
      t.name_prefix = "pod-";
      api::Pod& p = t.pod;
      p.meta.namespace_ = api::wk::kDefaultNamespace;
      p.scheduler_name = api::wk::kDefaultScheduler;
      p.termination_grace_period_seconds = 30;
      if (!qos.empty()) p.meta.labels.Set(qos_label, in.Intern(qos));
      api::Container c;
      c.name = in.Intern("main");
      c.image = in.Intern("registry.k8s.io/pause:3.10");
      std::vector<std::pair<Symbol, api::Quantity>> req = {
          {api::wk::kCpu, api::Quantity::FromMilli(cpu)},
          {api::wk::kMemory,
           api::Quantity::FromInt(mem * 1024 * 1024, api::Quantity::Format::kBinarySI)}};
      if (ngpu > 0) req.emplace_back(gpu, api::Quantity::FromInt(ngpu));
      c.resources.requests = SortedResources(req);
      if (ngpu > 0) c.resources.limits = SortedResources({{gpu, api::Quantity::FromInt(ngpu)}});
      p.containers.push_back(std::move(c));
      if (!spec_s.empty()) {
        api::NodeSelectorRequirement reqm;
        reqm.key = model_label;
        reqm.op = api::NodeSelectorOp::kIn;
        size_t start = 0;
        while (true) {
          size_t bar = spec_s.find('|', start);
          reqm.values.push_back(in.Intern(std::string_view(spec_s).substr(
              start, bar == std::string::npos ? std::string::npos : bar - start)));
          if (bar == std::string::npos) break;
          start = bar + 1;
        }
        for (Symbol v : reqm.values) {
          if (!models.contains(in.Str(v))) {
            diags.Warning(std::string(pods_file), row.line, "gpu_spec",
                          fmt::format("no node has GPU model {:?}; pods asking for it stay pending",
                                      in.Str(v)));
          }
        }
        api::NodeSelectorTerm term;
        term.match_expressions.push_back(std::move(reqm));
        api::NodeAffinity na;
        na.required = api::NodeSelector{{std::move(term)}};
        p.affinity = api::Affinity{};
        p.affinity->node_affinity = std::move(na);
      }
      spec.pod_templates.push_back(std::move(t));
    }
    r.tmpl = it->second;
    r.name = in.Intern(f[0]);
    rows.push_back(r);
  }
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));

  Workload wk;
  wk.name = "trace";
  wk.arrival.kind = Arrival::Kind::kExplicit;
  wk.recreate_on_evict = true;
  if (min_create == INT64_MAX) min_create = 0;
  for (const Row& r : rows) {
    ExplicitArrival a;
    a.time_ns = r.create - min_create;
    a.duration_ns = r.duration;
    a.tmpl = r.tmpl;
    a.name = r.name;
    last = std::max(last, a.time_ns);
    if (a.duration_ns != kForeverNs) last = std::max(last, a.time_ns + a.duration_ns);
    wk.explicit_arrivals.push_back(a);
  }
  AppendExplicitWorkload(std::move(wk), StartAt::kBack, spec);
  spec.duration_ns = last + 1'000'000'000;
  if (!timed)
    spec.notes.push_back(
        "the pod list has no time columns: every pod arrives at 0 and runs forever");
  spec.notes.push_back(
      "shared-GPU pods (gpu_milli < 1000) request a whole nvidia.com/gpu (no GPU sharing model)");
  return spec;
}

Result<SimSpec> LoadAlibabaTrace(const std::vector<std::string>& files, Interner& interner,
                                 Diagnostics& diags, const TraceOptions& opts) {
  std::string nodes, pods, nodes_file, pods_file;
  for (const auto& f : files) {
    auto input = doc::InputBuffer::ReadFile(f);
    if (!input.ok()) {
      diags.Error(f, 0, "", "cannot read file");
      continue;
    }
    std::string text(input->text());
    std::string_view first = std::string_view(text).substr(0, text.find('\n'));
    if (first.starts_with("\xEF\xBB\xBF")) first.remove_prefix(3);
    if (first.starts_with("sn,")) {
      if (!nodes_file.empty())
        diags.Error(f, 1, "", fmt::format("a second node list (the first is {})", nodes_file));
      nodes = std::move(text);
      nodes_file = f;
    } else if (first.starts_with("name,")) {
      if (!pods_file.empty())
        diags.Error(f, 1, "", fmt::format("a second pod list (the first is {})", pods_file));
      pods = std::move(text);
      pods_file = f;
    } else {
      diags.Error(f, 1, "",
                  "not an Alibaba GPU v2023 list: want a header starting with \"sn,\" (nodes) or "
                  "\"name,\" (pods)");
    }
  }
  if (!diags.has_errors()) {
    if (nodes_file.empty()) diags.Error("", 0, "", "missing the node list (openb_node_list_*.csv)");
    if (pods_file.empty()) diags.Error("", 0, "", "missing the pod list (openb_pod_list_*.csv)");
  }
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  return ParseAlibabaTrace(nodes, nodes_file, pods, pods_file, interner, diags, opts);
}

}  // namespace corral::sim
