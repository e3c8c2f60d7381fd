#include "cmd_analysis.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include "corral/compare/compare_report.h"
#include "corral/compare/comparison.h"
#include "corral/core/output_file.h"

namespace corral::cli {

namespace {

std::string Clock(double s) {
  auto t = static_cast<int64_t>(s + 0.5);
  if (t >= 3600) return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
  return fmt::format("{}:{:02}", t / 60, t % 60);
}

}  // namespace

void AddRunFlags(CLI::App* app, RunFlags& flags, std::string_view jobs_default, int max_jobs) {
  app->add_option("-j,--jobs", flags.jobs,
                  fmt::format("Runs at once, each in its own process (default: {})", jobs_default))
      ->check(CLI::Range(1, max_jobs));
  app->add_option("-o,--output", flags.output, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app->add_flag("-q,--quiet", flags.quiet, "No progress line on stderr");
}

int ExitCodeOf(const Error& e) {
  return e.code == ErrorCode::kInternal ? kExitFailure : kExitBadInput;
}

RunProgressLine::RunProgressLine(std::string what, bool quiet)
    : what_(std::move(what)), enabled_(!quiet && isatty(STDERR_FILENO) != 0) {}

void RunProgressLine::Update(const compare::RunProgress& p) {
  if (!enabled_) return;
  if (drawn_ && p.done < p.total && p.elapsed_s - last_ < 0.1) return;
  last_ = p.elapsed_s;
  drawn_ = true;
  std::string eta = p.eta_s < 0 ? "ETA —" : "ETA " + Clock(p.eta_s);
  std::string skipped = p.skipped > 0 ? fmt::format(" ({} skipped)", p.skipped) : "";
  fmt::print(stderr, "\r{}: {}/{} runs{} · {} elapsed · {}\x1b[K", what_, p.done, p.total, skipped,
             Clock(p.elapsed_s), eta);
  std::fflush(stderr);
}

void RunProgressLine::Clear() {
  if (drawn_) fmt::print(stderr, "\r\x1b[K");
  drawn_ = false;
}

int PrintComparison(std::string_view command, std::vector<compare::RunRecord> records,
                    const std::string& output, const std::string& report) {
  auto cmp = compare::Compare(std::move(records));
  if (!cmp.ok()) {
    fmt::print(stderr, "corral {}: {}\n", command, cmp.error().message);
    return ExitCodeOf(cmp.error());
  }
  std::string text =
      output == "json" ? compare::FormatCompareJson(*cmp) : compare::FormatCompareText(*cmp);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!report.empty()) {
    auto st = WriteFileAtomically(report, compare::RenderCompareHtml(*cmp));
    if (!st.ok()) {
      fmt::print(stderr, "corral {}: --report: {}\n", command, st.error().message);
      return kExitFailure;
    }
  }
  bool failed = false;
  for (const auto& p : cmp->points) failed = failed || !p.failures.empty();
  return failed ? kExitFailure : kExitOk;
}

}  // namespace corral::cli
