// `corral perf FILE [--test-case NAME] [--workload NAME] [--label-filter L] [-o table|json]
// [--emulated-version X.Y]`: runs
// kube scheduler_perf performance-config.yaml workloads on the simulator and reports
// SchedulingThroughput against each workload's threshold. Exit code 1 when a threshold fails or a
// workload errors.

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/app/perf.h"
#include "corral/doc/decoder.h"
#include "corral/sim/report/output.h"
#include "corral/sim/report/provenance_runs.h"

#include "command.h"
#include "flags.h"

namespace corral::cli {

namespace {

struct PerfFlags {
  std::string file;
  std::string test_case, workload, output = "table", cost;
  std::string label_filter = "performance";
  std::string event_log;
  std::string emulated_version;
  bool list = false;
  bool quiet = false;
};

class SteadyClock final : public Clock {
 public:
  TimePoint Now() const override {
    return TimePoint(
        std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now().time_since_epoch()));
  }
};

// The calling thread's CPU time: the scheduler's own cost of a cycle, which other processes sharing
// the machine do not inflate (a system call per read, about a microsecond).
class ThreadCpuClock final : public Clock {
 public:
  TimePoint Now() const override {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return TimePoint(Duration(int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec));
  }
};

int Run(const PerfFlags& flags) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto cfg = sim::PerfConfig::Load(flags.file, in, diags);
  for (const auto& d : diags.items()) {
    if (d.severity == Severity::kWarning) fmt::print(stderr, "{}\n", d.ToString());
  }
  if (!cfg.ok()) {
    fmt::print(stderr, "{}\n", cfg.error().message);
    return kExitBadInput;
  }
  if (flags.list) {
    for (const auto& r : cfg->All()) {
      std::string labels;
      for (const auto& l : r.labels) labels += (labels.empty() ? "" : ",") + l;
      fmt::print("{}  [{}]\n", r.name, labels);
    }
    return kExitOk;
  }
  sim::PerfSelection sel;
  sel.test_case = flags.test_case;
  sel.workload = flags.workload;
  sel.label_filter = flags.label_filter;
  auto refs = cfg->Select(sel);
  if (!refs.ok()) {
    fmt::print(stderr, "corral perf: {}\n", refs.error().message);
    return kExitBadInput;
  }
  if (refs->empty()) {
    fmt::print(
        stderr,
        "corral perf: no workload matches the label filter {:?} (use --label-filter '' for all)\n",
        flags.label_filter);
    return kExitBadInput;
  }
  SteadyClock wall;
  ThreadCpuClock cpu;
  app::PerfRunOptions opts;
  opts.wall = &wall;
  opts.emulated_version = EmulatedVersion(flags.emulated_version);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> log_file(nullptr, &std::fclose);
  std::unique_ptr<sim::FileEventLog> log;
  if (!flags.event_log.empty()) {
    if (flags.event_log != "-") {
      log_file.reset(std::fopen(flags.event_log.c_str(), "w"));
      if (log_file == nullptr) {
        fmt::print(stderr, "corral perf: --event-log: cannot write {:?}\n", flags.event_log);
        return kExitFailure;
      }
    }
    log = std::make_unique<sim::FileEventLog>(log_file != nullptr ? log_file.get() : stdout);
    opts.log = log.get();
  }
  if (!flags.cost.empty()) {
    if (flags.cost == "measured") {
      opts.cost = sim::CostModel{sim::CostModel::Mode::kMeasured, 0};
    } else if (flags.cost == "measured-cpu") {
      opts.cost = sim::CostModel{sim::CostModel::Mode::kMeasured, 0};
      opts.wall = &cpu;
    } else if (flags.cost == "instant") {
      opts.cost = sim::CostModel{sim::CostModel::Mode::kInstant, 0};
    } else {
      Duration d{};
      if (!doc::ParseGoDuration(flags.cost, d) || d.count() <= 0) {
        fmt::print(stderr,
                   "corral perf: --scheduling-cost: want measured, measured-cpu, instant or a Go "
                   "duration, "
                   "got {:?}\n",
                   flags.cost);
        return kExitBadInput;
      }
      opts.cost = sim::CostModel{sim::CostModel::Mode::kFixed, d.count()};
    }
  }
  const bool tty = !flags.quiet && isatty(STDERR_FILENO) != 0;
  std::vector<sim::PerfResult> results;
  bool bad_input = false;
  for (const auto& ref : *refs) {
    if (tty) {
      opts.progress = [&](const sim::Progress& p) {
        fmt::print(stderr, "\r{}: op {}/{}  pods {} scheduled {}\x1b[K", ref.name, p.op, p.ops,
                   sim::Thousands(p.pods_arrived), sim::Thousands(p.pods_scheduled));
      };
    }
    auto r = app::RunPerfWorkload(*cfg, ref, in, opts);
    if (opts.wall == &cpu && r.cost_model == "measured") r.cost_model = "measured-cpu";
    if (tty) fmt::print(stderr, "\r\x1b[K");
    if (!flags.quiet) {
      fmt::print(stderr, "{}: {} in {:.2f} s wall\n", ref.name, sim::PerfStatusName(r.status),
                 r.wall_seconds);
    }
    if (r.status == sim::PerfResult::Status::kError &&
        r.message.find(".yaml:") != std::string::npos)
      bad_input = true;
    results.push_back(std::move(r));
  }
  std::string text =
      flags.output == "json" ? sim::FormatPerfJson(results) : sim::FormatPerfTable(results);
  {
    // Provenance: the config file and version once, then each workload's scheduler setup.
    sim::Provenance common;
    common.command = "perf";
    common.corral_version = sim::CorralVersion();
    common.has_seed = false;
    if (auto inputs = sim::DescribeInputs({flags.file}); inputs.ok())
      common.inputs = std::move(inputs).value();
    std::vector<sim::NamedRun> runs;
    for (const auto& r : results) runs.push_back({r.name, &r.provenance});
    text = sim::AddRunsProvenance(text, flags.output == "json", common, runs);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (flags.output == "json") {
    for (const auto& r : results) {
      if (!r.message.empty()) fmt::print(stderr, "{}: {}\n", r.name, r.message);
    }
  }
  int rc = kExitOk;
  for (const auto& r : results) {
    if (r.status == sim::PerfResult::Status::kFail || r.status == sim::PerfResult::Status::kError)
      rc = kExitFailure;
  }
  if (bad_input) rc = kExitBadInput;
  return rc;
}

}  // namespace

Command AddPerfCommand(CLI::App& root) {
  auto flags = std::make_shared<PerfFlags>();
  CLI::App* app = root.add_subcommand(
      "perf",
      "Run kube scheduler_perf workloads (performance-config.yaml) on the simulator and report "
      "SchedulingThroughput against each workload's threshold. Without --test-case/--workload, "
      "runs the "
      "workloads selected by --label-filter (kube's default: performance).");
  app->add_option("file", flags->file, "scheduler_perf performance-config.yaml")->required();
  app->add_option("--test-case", flags->test_case, "Run only this test case");
  app->add_option("--workload", flags->workload, "Run only this workload");
  app->add_option(
      "--label-filter", flags->label_filter,
      "Comma-separated labels a workload must have; -label excludes (default: performance)");
  app->add_option("-o,--output", flags->output,
                  "Output format: table or json (kube's perf-dash DataItems)")
      ->check(CLI::IsMember({"table", "json"}));
  app->add_option("--scheduling-cost", flags->cost,
                  "Virtual time per scheduling cycle: measured (wall time, the default), "
                  "measured-cpu (the cycle's thread CPU time), instant, or a Go duration");
  AddEmulatedVersionOption(app, flags->emulated_version);
  app->add_flag("--list", flags->list, "List the test cases and workloads with their labels");
  app->add_option("--event-log", flags->event_log,
                  "Write each workload's event log to FILE ('-' for stdout, before the table)");
  app->add_flag("-q,--quiet", flags->quiet,
                "No progress and no per-workload wall-clock lines on stderr");
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() { return Run(*flags); };
  return cmd;
}

}  // namespace corral::cli
