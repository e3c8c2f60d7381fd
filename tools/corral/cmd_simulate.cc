// `corral simulate [SCENARIO.yaml | MANIFEST... | NODES.csv PODS.csv] [flags]`: runs the fleet
// simulator and prints the summary; writes the HTML report, JSON, CSV, Prometheus metrics and the
// event log on request. Without inputs it runs the built-in default scenario and
// writes corral-report.html.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/app/simulate.h"
#include "corral/doc/decoder.h"
#include "corral/sim/default_scenario.h"
#include "corral/sim/manifests.h"
#include "corral/sim/output.h"
#include "corral/sim/report.h"
#include "corral/sim/scenario.h"
#include "corral/sim/trace.h"
#include "corral/sim/virtual_time.h"

#include "command.h"
#include "flags.h"

namespace corral::cli {

namespace {

struct SimulateFlags {
  std::vector<std::string> inputs;
  std::string output = "table";
  std::string report, csv, metrics, event_log, event_log_format = "text", config, feature_gates,
                                               cost, bind_latency, duration;
  bool no_report = false;
  bool quiet = false;
  bool strict = false;
  std::string validate = "strict";
  int64_t seed = -1;
};

// A monotonic wall clock for measuring the scheduler (only the CLI reads real time).
class SteadyClock final : public Clock {
 public:
  TimePoint Now() const override {
    return TimePoint(
        std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now().time_since_epoch()));
  }
};

bool WriteFile(const std::string& path, const std::string& content) {
  std::ofstream f(path, std::ios::binary);
  if (!f) return false;
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
  return static_cast<bool>(f);
}

bool IsCsv(const std::string& p) {
  return std::filesystem::path(p).extension() == ".csv";
}

// Progress bar on stderr, redrawn at most every 100 ms of wall time.
class ProgressBar {
 public:
  void Update(const sim::Progress& p) {
    auto now = std::chrono::steady_clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    drawn_ = true;
    double frac = p.end_ns > 0
                      ? static_cast<double>(p.now_ns) / static_cast<double>(p.end_ns)
                      : (p.ops > 0 ? static_cast<double>(p.op) / static_cast<double>(p.ops) : 0);
    frac = std::clamp(frac, 0.0, 1.0);
    constexpr int kWidth = 28;
    int filled = static_cast<int>(frac * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar += std::string(static_cast<size_t>(kWidth - filled), '.');
    std::string when =
        p.end_ns > 0
            ? fmt::format("{} / {}", sim::FormatClock(p.now_ns), sim::FormatClock(p.end_ns))
            : fmt::format("{} op {}/{}", sim::FormatClock(p.now_ns), p.op, p.ops);
    fmt::print(stderr, "\r[{}] {:3.0f}%  {}  pods {} scheduled {} pending {}\x1b[K", bar,
               frac * 100, when, sim::Thousands(p.pods_arrived), sim::Thousands(p.pods_scheduled),
               sim::Thousands(p.pending));
    std::fflush(stderr);
  }
  void Clear() {
    if (drawn_) fmt::print(stderr, "\r\x1b[K");
  }

 private:
  std::chrono::steady_clock::time_point last_;
  bool drawn_ = false;
};

int Run(const SimulateFlags& flags) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  Result<sim::SimSpec> spec = Error::Invalid("no input");
  const bool builtin = flags.inputs.empty();
  bool all_csv = !flags.inputs.empty();
  for (const auto& p : flags.inputs) all_csv = all_csv && IsCsv(p);
  const doc::FieldValidation unknown_fields = ParseValidate(flags.validate);
  // --validate relaxes manifests only: a scenario (or trace) is decoded strictly, and a flag that
  // would not be honoured is an error.
  if (unknown_fields != doc::FieldValidation::kStrict) {
    bool manifests = !builtin && !all_csv;
    if (manifests && flags.inputs.size() == 1 &&
        std::filesystem::is_regular_file(flags.inputs[0])) {
      std::ifstream f(flags.inputs[0], std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      manifests = !sim::LooksLikeScenario(text);
    }
    if (!manifests) {
      fmt::print(stderr,
                 "corral simulate: --validate {}: applies to manifest inputs only; scenario files "
                 "and traces are always decoded strictly\n",
                 flags.validate);
      return kExitBadInput;
    }
  }
  if (builtin) {
    spec = sim::ParseScenario(sim::DefaultScenarioYaml(), "<built-in default scenario>", "", in,
                              diags, {.strict = flags.strict});
  } else if (all_csv) {
    spec = sim::LoadAlibabaTrace(flags.inputs, in, diags, {});
  } else if (flags.inputs.size() == 1 && std::filesystem::is_regular_file(flags.inputs[0])) {
    std::ifstream f(flags.inputs[0], std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (sim::LooksLikeScenario(text)) {
      spec = sim::ParseScenario(text, flags.inputs[0],
                                std::filesystem::path(flags.inputs[0]).parent_path().string(), in,
                                diags, {.strict = flags.strict});
    } else {
      spec = sim::LoadManifestsSpec(flags.inputs, in, diags, flags.strict, unknown_fields);
    }
  } else {
    spec = sim::LoadManifestsSpec(flags.inputs, in, diags, flags.strict, unknown_fields);
  }
  for (const auto& d : diags.items()) {
    if (d.severity == Severity::kWarning) fmt::print(stderr, "{}\n", d.ToString());
  }
  if (!spec.ok()) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return spec.error().code == ErrorCode::kInternal ? kExitFailure : kExitBadInput;
  }
  sim::SimSpec& s = *spec;
  // Flags override the input.
  if (flags.seed >= 0) s.seed = static_cast<uint64_t>(flags.seed);
  if (!flags.duration.empty()) {
    Duration d{};
    if (!doc::ParseGoDuration(flags.duration, d) || d.count() <= 0) {
      fmt::print(stderr, "corral simulate: --duration: invalid duration {:?}\n", flags.duration);
      return kExitBadInput;
    }
    if (d.count() > sim::kMaxVirtualNs) {
      fmt::print(stderr, "corral simulate: --duration: {}\n",
                 sim::VirtualRangeError(flags.duration));
      return kExitBadInput;
    }
    s.duration_ns = d.count();
  }
  if (!flags.feature_gates.empty()) {
    if (auto st = s.gates.ParseFlag(flags.feature_gates); !st.ok()) {
      fmt::print(stderr, "corral simulate: --feature-gates: {}\n", st.error().message);
      return kExitBadInput;
    }
  }
  if (!flags.config.empty()) {
    s.scheduler_config_path = flags.config;
    s.scheduler_config.reset();
  }
  if (!flags.cost.empty()) {
    if (flags.cost == "instant") {
      s.cost = {sim::CostModel::Mode::kInstant, 0};
    } else if (flags.cost == "measured") {
      s.cost = {sim::CostModel::Mode::kMeasured, 0};
    } else {
      Duration d{};
      if (!doc::ParseGoDuration(flags.cost, d) || d.count() < 0) {
        fmt::print(stderr,
                   "corral simulate: --scheduling-cost: want instant, measured or a Go duration, "
                   "got {:?}\n",
                   flags.cost);
        return kExitBadInput;
      }
      s.cost = {sim::CostModel::Mode::kFixed, d.count()};
    }
  }
  if (!flags.bind_latency.empty()) {
    Duration d{};
    if (!doc::ParseGoDuration(flags.bind_latency, d) || d.count() < 0) {
      fmt::print(stderr, "corral simulate: --bind-latency: invalid duration {:?}\n",
                 flags.bind_latency);
      return kExitBadInput;
    }
    s.bind_latency = sim::Distribution::Fixed(d);
  }

  SteadyClock wall;
  std::FILE* log_file = nullptr;
  std::unique_ptr<sim::EventLog> log;
  if (!flags.event_log.empty()) {
    log_file = flags.event_log == "-" ? stdout : std::fopen(flags.event_log.c_str(), "wb");
    if (log_file == nullptr) {
      fmt::print(stderr, "corral simulate: --event-log: cannot write {:?}\n", flags.event_log);
      return kExitFailure;
    }
    if (flags.event_log_format == "jsonl") {
      log = std::make_unique<sim::JsonLinesEventLog>(log_file);
    } else {
      log = std::make_unique<sim::FileEventLog>(log_file);
    }
  }
  ProgressBar bar;
  app::RunRequest req;
  req.wall = &wall;
  req.log = log.get();
  if (!flags.quiet && isatty(STDERR_FILENO) != 0)
    req.progress = [&](const sim::Progress& p) { bar.Update(p); };
  auto t0 = std::chrono::steady_clock::now();
  auto out = app::RunSimulation(s, in, diags, req);
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bar.Clear();
  if (log_file != nullptr && log_file != stdout) std::fclose(log_file);
  if (!out.ok()) {
    fmt::print(stderr, "{}\n", out.error().message);
    return out.error().code == ErrorCode::kInternal ? kExitFailure : kExitBadInput;
  }
  sim::RunResult& r = out->result;
  r.wall_seconds = wall_s;

  std::string text = flags.output == "json" ? sim::FormatJson(r) : sim::FormatSummary(r);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);

  int rc = r.failure.empty() ? kExitOk : kExitFailure;
  auto write = [&](const std::string& path, const std::string& content, std::string_view what) {
    if (!WriteFile(path, content)) {
      fmt::print(stderr, "corral simulate: cannot write {} {:?}\n", what, path);
      rc = kExitFailure;
    }
  };
  if (!flags.csv.empty()) write(flags.csv, sim::FormatCsv(r), "--csv");
  if (!flags.metrics.empty()) write(flags.metrics, sim::FormatPrometheus(r), "--metrics");
  std::string report = flags.report;
  if (report.empty() && builtin) report = "corral-report.html";
  if (!report.empty() && !flags.no_report) {
    write(report, sim::RenderHtmlReport(r), "--report");
    if (!flags.quiet) fmt::print(stderr, "report: {}\n", report);
  }
  if (!flags.quiet) {
    double rate =
        r.scheduler_wall_seconds > 0 ? static_cast<double>(r.cycles) / r.scheduler_wall_seconds : 0;
    fmt::print(
        stderr,
        "simulated {} in {:.2f} s wall ({} scheduling cycles, {:.0f} cycles/s in the scheduler)\n",
        sim::HumanDuration(r.end_ns), wall_s, sim::Thousands(r.cycles), rate);
  }
  return rc;
}

}  // namespace

Command AddSimulateCommand(CLI::App& root) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* app = root.add_subcommand(
      "simulate",
      "Run the fleet simulator on a virtual clock: a Corral scenario (YAML), Kubernetes manifests "
      "(pods may "
      "carry a corral.dev/duration annotation), or an Alibaba GPU v2023 trace (node and pod CSVs). "
      "Without "
      "inputs, runs the built-in default scenario (2,000 nodes, one simulated day) and writes "
      "corral-report.html.");
  app->add_option("inputs", flags->inputs,
                  "Scenario file, manifest files/directories, or trace CSVs");
  app->add_option("-o,--output", flags->output, "Output format: table or json (the full timeline)")
      ->check(CLI::IsMember({"table", "json"}));
  app->add_option("--report", flags->report, "Write the self-contained HTML report to FILE");
  app->add_flag("--no-report", flags->no_report,
                "Do not write the HTML report (built-in scenario)");
  app->add_option("--csv", flags->csv, "Write the time series as CSV to FILE");
  app->add_option("--metrics", flags->metrics, "Write Prometheus text metrics to FILE");
  app->add_option("--event-log", flags->event_log, "Write the event log to FILE ('-' for stdout)");
  app->add_option("--event-log-format", flags->event_log_format,
                  "Event log format: text (one line per event) or jsonl (one JSON object per line)")
      ->check(CLI::IsMember({"text", "jsonl"}));
  AddSeedOption(app, flags->seed, "Seed (overrides the scenario's)");
  app->add_option("--duration", flags->duration,
                  "Simulated duration, Go syntax (overrides the scenario's)");
  app->add_option("--config", flags->config,
                  "KubeSchedulerConfiguration file (overrides the scenario's)");
  app->add_option("--feature-gates", flags->feature_gates,
                  "Feature gates by kube's names: Name=true|false,...");
  app->add_option(
      "--scheduling-cost", flags->cost,
      "Virtual time charged per scheduling cycle: instant (default), measured (wall time), or a "
      "Go duration");
  app->add_option("--bind-latency", flags->bind_latency,
                  "Binding latency (Go duration; default 0)");
  app->add_flag("--strict", flags->strict, "Warnings (unknown kinds, ...) are errors");
  AddValidateOption(app, flags->validate);
  app->add_flag("-q,--quiet", flags->quiet, "No progress bar and no wall-clock line on stderr");
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() { return Run(*flags); };
  return cmd;
}

}  // namespace corral::cli
