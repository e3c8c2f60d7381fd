// `corral simulate [SCENARIO.yaml | MANIFEST... | NODES.csv PODS.csv] [flags]`: runs the fleet
// simulator and prints the summary; writes the HTML report, JSON, CSV, Prometheus metrics and the
// event log on request. Without inputs it runs the built-in default scenario and
// writes corral-report.html.
//
// Output files are checked before the run (their directory exists and is writable; exit 2
// otherwise) and written whole: each goes to a temporary file in its directory that is renamed over
// the target once complete, so a reader never sees a truncated file. SIGINT and SIGTERM stop the
// run at the next event boundary; the summary and files then describe the partial run, marked as
// such, and the exit code is 128 + the signal's number (130, 143). A second signal ends the process
// at once (the default action), leaving at most a temporary file behind, never a truncated output.

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/app/schedule.h"
#include "corral/app/simulate.h"
#include "corral/core/output_file.h"
#include "corral/doc/decoder.h"
#include "corral/sim/input/default_scenario.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/input/trace.h"
#include "corral/sim/provenance.h"
#include "corral/sim/report/output.h"
#include "corral/sim/report/report.h"
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
  std::string emulated_version;
  bool no_report = false;
  bool quiet = false;
  bool progress = false;
  bool strict = false;
  std::string validate = "strict";
  std::string estimator;
  int64_t seed = -1;
  std::vector<std::string> explain;  // NS/NAME or NAME (namespace default)
};

// `--explain` targets: the last scheduling attempt of each, as `corral schedule --explain` shows
// an attempt.
class ExplainTargets {
 public:
  explicit ExplainTargets(const std::vector<std::string>& targets) {
    for (const auto& t : targets) {
      keys_.push_back(t.find('/') == std::string::npos ? "default/" + t : t);
    }
    last_.resize(keys_.size());
  }
  bool empty() const { return keys_.empty(); }
  // The index of the target `pod` is, or -1.
  int Find(const Interner& in, const api::Pod& pod) const {
    const std::string_view ns = in.Str(pod.meta.namespace_);
    const std::string_view name = in.Str(pod.meta.name);
    for (size_t i = 0; i < keys_.size(); ++i) {
      const std::string& k = keys_[i];
      if (k.size() == ns.size() + 1 + name.size() && k.starts_with(ns) && k[ns.size()] == '/' &&
          k.ends_with(name))
        return static_cast<int>(i);
    }
    return -1;
  }
  void Record(const Interner& in, uint32_t member, const api::Pod& pod,
              const scheduler::CycleExplain& ex, int64_t at_ns) {
    const int i = Find(in, pod);
    if (i < 0) return;
    Last& l = last_[static_cast<size_t>(i)];
    l.attempt = app::MakeExplainOut(in, pod, ex);
    l.member = member;
    l.at_ns = at_ns;
    ++l.attempts;
  }
  // The explanations as text, or an error naming the targets that were never attempted.
  Result<std::string> Format(const sim::SimSpec& spec) const {
    std::string s;
    std::string missing;
    for (size_t i = 0; i < keys_.size(); ++i) {
      const Last& l = last_[i];
      if (l.attempts == 0) {
        missing += (missing.empty() ? "" : ", ") + keys_[i];
        continue;
      }
      const std::string where = spec.clusters.empty()
                                    ? std::string()
                                    : fmt::format("cluster {}, ", spec.clusters[l.member].name);
      s += fmt::format("\nexplain {} ({}attempt {} at {}, its last): {}\n", keys_[i], where,
                       l.attempts, sim::FormatClock(l.at_ns),
                       l.attempt.selected.empty() ? "unschedulable, pending after it"
                                                  : "selected " + l.attempt.selected);
      s += app::FormatExplainBody(l.attempt);
    }
    if (!missing.empty()) {
      return Error::Invalid(fmt::format(
          "--explain: no scheduling attempt of {} in this run (the pod never existed, or never "
          "reached a scheduler; pod names are <workload>-<arrival>[-<k>], see the event log)",
          missing));
    }
    return s;
  }

 private:
  struct Last {
    app::ExplainOut attempt;
    uint32_t member = 0;
    int64_t at_ns = 0;
    int32_t attempts = 0;
  };
  std::vector<std::string> keys_;
  std::vector<Last> last_;
};

// The signal that asked the run to stop (0: none). Set from the signal handler.
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnStopSignal(int sig) {
  g_stop_signal.store(sig, std::memory_order_relaxed);
}

// SIGINT and SIGTERM raise g_stop_signal once; the handler resets itself, so a second signal
// ends the process with the default action.
void InstallStopHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void RestoreDefaultHandlers() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return fmt::format("signal {}", sig);
  }
}

// A monotonic wall clock for measuring the scheduler (only the CLI reads real time).
class SteadyClock final : public Clock {
 public:
  TimePoint Now() const override {
    return TimePoint(
        std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now().time_since_epoch()));
  }
};

bool IsCsv(const std::string& p) {
  return std::filesystem::path(p).extension() == ".csv";
}

// The progress line on stderr: virtual time reached (and the horizon when the run has one), events
// processed, pods and wall time. No percentage: an open-ended run has no known end, and virtual
// time does not pass at a steady wall-clock rate. On a terminal the line is redrawn in place at
// most every 100 ms; elsewhere (--progress into a file) one line is written per second.
class ProgressLine {
 public:
  explicit ProgressLine(bool tty) : tty_(tty), start_(std::chrono::steady_clock::now()) {}
  void Update(const sim::Progress& p) {
    auto now = std::chrono::steady_clock::now();
    const auto every = tty_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
    if (drawn_ && now - last_ < every) return;
    last_ = now;
    drawn_ = true;
    const std::string when =
        p.end_ns > 0
            ? fmt::format("{} / {}", sim::FormatClock(p.now_ns), sim::FormatClock(p.end_ns))
            : fmt::format("{} (open-ended, op {}/{})", sim::FormatClock(p.now_ns), p.op, p.ops);
    const double wall = std::chrono::duration<double>(now - start_).count();
    fmt::print(stderr,
               "{}virtual time {}  events {}  pods {} scheduled {} pending {}  {:.1f} s wall{}",
               tty_ ? "\r" : "progress: ", when, sim::Thousands(static_cast<int64_t>(p.events)),
               sim::Thousands(p.pods_arrived), sim::Thousands(p.pods_scheduled),
               sim::Thousands(p.pending), wall, tty_ ? "\x1b[K" : "\n");
    std::fflush(stderr);
  }
  void Clear() {
    if (drawn_ && tty_) fmt::print(stderr, "\r\x1b[K");
  }

 private:
  bool tty_;
  std::chrono::steady_clock::time_point start_, last_;
  bool drawn_ = false;
};

int Run(const SimulateFlags& flags) {
  if (!flags.explain.empty() && flags.output == "json") {
    fmt::print(stderr,
               "corral simulate: --explain prints text after the summary: use -o table (or "
               "corral schedule --explain -o json on the state)\n");
    return kExitBadInput;
  }
  const bool builtin = flags.inputs.empty();
  std::string report = flags.report;
  if (report.empty() && builtin) report = "corral-report.html";
  if (flags.no_report) report.clear();
  // Output paths first: a mistake there must not cost a long run.
  for (const auto& [flag, path] :
       {std::pair<std::string_view, const std::string&>{"--report", report},
        {"--csv", flags.csv},
        {"--metrics", flags.metrics},
        {"--event-log", flags.event_log}}) {
    if (path.empty() || (flag == "--event-log" && path == "-")) continue;
    if (std::string err = CheckOutputPath(flag, path); !err.empty()) {
      fmt::print(stderr, "corral simulate: {}\n", err);
      return kExitBadInput;
    }
  }

  Interner in = api::NewInterner();
  Diagnostics diags;
  Result<sim::SimSpec> spec = Error::Invalid("no input");
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
                              diags, {.strict = flags.strict, .fleet_estimator = flags.estimator});
  } else if (all_csv) {
    spec = sim::LoadAlibabaTrace(flags.inputs, in, diags, {});
  } else if (flags.inputs.size() == 1 && std::filesystem::is_regular_file(flags.inputs[0])) {
    std::ifstream f(flags.inputs[0], std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (sim::LooksLikeScenario(text)) {
      spec = sim::ParseScenario(
          text, flags.inputs[0], std::filesystem::path(flags.inputs[0]).parent_path().string(), in,
          diags, {.strict = flags.strict, .fleet_estimator = flags.estimator});
    } else {
      spec = sim::LoadManifestsSpec(flags.inputs, in, diags, flags.strict, unknown_fields);
    }
  } else {
    spec = sim::LoadManifestsSpec(flags.inputs, in, diags, flags.strict, unknown_fields);
  }
  for (const auto& d : diags.items()) {
    if (d.severity == Severity::kWarning) fmt::print(stderr, "{}\n", d.ToString());
  }
  if (spec.ok() && !flags.estimator.empty() && spec->fleet == nullptr) {
    fmt::print(stderr,
               "corral simulate: --estimator: applies to a scenario with a fleet section\n");
    return kExitBadInput;
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
  // A scenario with clusters has one scheduler per cluster: a flag for "the" scheduler would
  // apply to none of them.
  if (!s.clusters.empty() && (!flags.feature_gates.empty() || !flags.config.empty())) {
    fmt::print(stderr,
               "corral simulate: {}: the scenario has clusters, which set feature gates and "
               "configPath per cluster (clusters[].scheduler)\n",
               flags.feature_gates.empty() ? "--config" : "--feature-gates");
    return kExitBadInput;
  }
  if (!flags.emulated_version.empty()) {
    // kube's SetEmulationVersion: every scheduler's gates take the version's defaults and the
    // gates the scenario set are set again at that version.
    const framework::KubeVersion v = EmulatedVersion(flags.emulated_version);
    Result<void> st = s.gates.SetEmulationVersion(v);
    for (auto& c : s.clusters) {
      if (st.ok()) st = c.gates.SetEmulationVersion(v);
    }
    if (!st.ok()) {
      fmt::print(stderr,
                 "corral simulate: --emulated-version {}: the scenario's feature gates: {}\n",
                 flags.emulated_version, st.error().message);
      return kExitBadInput;
    }
  }
  if (!flags.feature_gates.empty()) {
    if (auto st = s.gates.ParseFlag(flags.feature_gates); !st.ok()) {
      fmt::print(stderr, "corral simulate: --feature-gates: {}\n", st.error().message);
      return kExitBadInput;
    }
    for (auto& g : sim::GateFlagItems(flags.feature_gates)) s.explicit_gates.push_back(g);
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
  // The inputs as given, with their content hashes.
  auto inputs = sim::DescribeInputs(flags.inputs);
  if (!inputs.ok()) {
    fmt::print(stderr, "corral simulate: {}\n", inputs.error().message);
    return kExitBadInput;
  }
  auto listed = sim::DescribeInputs(s.manifest_paths);
  if (!listed.ok()) {
    fmt::print(stderr, "corral simulate: {}\n", listed.error().message);
    return kExitBadInput;
  }

  SteadyClock wall;
  std::FILE* log_file = nullptr;
  std::string log_tmp;
  std::unique_ptr<sim::EventLog> log;
  if (!flags.event_log.empty()) {
    if (flags.event_log == "-") {
      log_file = stdout;
    } else {
      log_tmp = TempPathFor(flags.event_log);
      log_file = OpenTemp(log_tmp);
    }
    if (log_file == nullptr) {
      fmt::print(stderr, "corral simulate: --event-log: cannot write {:?}: {}\n", flags.event_log,
                 std::strerror(errno));
      return kExitFailure;
    }
    if (flags.event_log_format == "jsonl") {
      log = std::make_unique<sim::JsonLinesEventLog>(log_file);
    } else {
      log = std::make_unique<sim::FileEventLog>(log_file);
    }
  }
  // Progress on a terminal unless --quiet, or wherever stderr goes with --progress.
  const bool tty = isatty(STDERR_FILENO) != 0;
  ProgressLine bar(tty);
  app::RunRequest req;
  ExplainTargets explain(flags.explain);
  if (!explain.empty()) {
    req.explain = [&](const api::Pod& pod) { return explain.Find(in, pod) >= 0; };
    req.on_explain = [&](uint32_t member, const api::Pod& pod, const scheduler::CycleExplain& ex,
                         int64_t at_ns) { explain.Record(in, member, pod, ex, at_ns); };
  }
  req.wall = &wall;
  req.log = log.get();
  req.stop = &g_stop_signal;
  if (flags.progress || (!flags.quiet && tty))
    req.progress = [&](const sim::Progress& p) { bar.Update(p); };
  g_stop_signal.store(0);
  InstallStopHandlers();
  auto t0 = std::chrono::steady_clock::now();
  auto out = app::RunSimulation(s, in, diags, req);
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bar.Clear();
  if (!out.ok()) {
    RestoreDefaultHandlers();
    if (!log_tmp.empty()) {
      std::fclose(log_file);
      std::remove(log_tmp.c_str());
    }
    fmt::print(stderr, "{}\n", out.error().message);
    return out.error().code == ErrorCode::kInternal ? kExitFailure : kExitBadInput;
  }
  sim::RunResult& r = out->result;
  r.wall_seconds = wall_s;
  const int stop_signal = g_stop_signal.load();
  if (r.partial) r.partial_cause = SignalName(stop_signal);
  r.provenance.command = "simulate";
  r.provenance.builtin_scenario = builtin;
  r.provenance.inputs = std::move(inputs).value();
  r.provenance.manifests = std::move(listed).value();

  int rc = r.failure.empty() ? kExitOk : kExitFailure;
  if (!log_tmp.empty() && !CommitTemp(log_file, log_tmp, flags.event_log)) {
    fmt::print(stderr, "corral simulate: cannot write --event-log {:?}\n", flags.event_log);
    rc = kExitFailure;
  }
  std::string text = flags.output == "json" ? sim::FormatJson(r) : sim::FormatSummary(r);
  if (!explain.empty()) {
    auto why = explain.Format(s);
    if (!why.ok()) {
      fmt::print(stderr, "corral simulate: {}\n", why.error().message);
      rc = kExitBadInput;
    } else {
      text += *why;
    }
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);

  auto write = [&](const std::string& path, const std::string& content, std::string_view what) {
    if (!WriteFileAtomically(path, content).ok()) {
      fmt::print(stderr, "corral simulate: cannot write {} {:?}\n", what, path);
      rc = kExitFailure;
    }
  };
  if (!flags.csv.empty()) write(flags.csv, sim::FormatCsv(r), "--csv");
  if (!flags.metrics.empty()) write(flags.metrics, sim::FormatPrometheus(r), "--metrics");
  if (!report.empty()) {
    write(report, sim::RenderHtmlReport(r), "--report");
    if (!flags.quiet) fmt::print(stderr, "report: {}\n", report);
  }
  RestoreDefaultHandlers();
  if (!flags.quiet) {
    double rate =
        r.scheduler_wall_seconds > 0 ? static_cast<double>(r.cycles) / r.scheduler_wall_seconds : 0;
    fmt::print(
        stderr,
        "simulated {} in {:.2f} s wall ({} scheduling cycles, {:.0f} cycles/s in the scheduler)\n",
        sim::HumanDuration(r.end_ns), wall_s, sim::Thousands(r.cycles), rate);
  }
  if (r.partial) {
    fmt::print(stderr, "corral simulate: stopped by {} at virtual time {}; outputs are partial\n",
               r.partial_cause, sim::FormatClock(r.end_ns));
    return 128 + stop_signal;
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
  AddEmulatedVersionOption(app, flags->emulated_version);
  app->add_option(
      "--scheduling-cost", flags->cost,
      "Virtual time charged per scheduling cycle: instant (default), measured (wall time), or a "
      "Go duration");
  app->add_option("--bind-latency", flags->bind_latency,
                  "Binding latency (Go duration; default 0)");
  app->add_option("--estimator", flags->estimator,
                  "Fleet scenarios: general or accurate (each member's own scheduler); overrides "
                  "the fleet section's estimator");
  app->add_flag("--strict", flags->strict, "Warnings (unknown kinds, ...) are errors");
  AddValidateOption(app, flags->validate);
  app->add_option("--explain", flags->explain,
                  "Explain this pod (NS/NAME or NAME): its last scheduling attempt in the run, as "
                  "corral schedule --explain shows one (why a pod pending at the end is pending); "
                  "repeatable; table output only");
  app->add_flag("-q,--quiet", flags->quiet, "No progress line and no wall-clock line on stderr");
  app->add_flag(
      "--progress", flags->progress,
      "Progress line on stderr even when it is not a terminal or with -q (virtual time, events)");
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() { return Run(*flags); };
  return cmd;
}

}  // namespace corral::cli
