#pragma once
// Text outputs of a simulation run, all pure functions of a RunResult (and therefore deterministic:
// no wall-clock figure appears in any of them):
//  - FormatSummary: the table printed at the end of every run;
//  - FormatJson: `-o json`, the full result with the timeline (schema in docs/output-schema.md);
//  - FormatCsv: the time series, one row per sample (`--csv FILE`);
//  - FormatPrometheus: Prometheus text exposition format 0.0.4 (`--metrics FILE`).
// Features the scheduler does not expose yet appear as clearly labelled absent values (`—` with the
// reason in the summary, `null` plus `"available": false` in JSON, a comment in Prometheus text).

#include <cstdio>
#include <string>

#include "corral/sim/engine.h"
#include "corral/sim/metrics.h"

namespace corral::sim {

std::string FormatSummary(const RunResult& r);
std::string FormatJson(const RunResult& r);
std::string FormatCsv(const RunResult& r);
std::string FormatPrometheus(const RunResult& r);

// A short human duration: "0s", "850ms", "12.3s", "4m05s", "2h10m", "3d04h".
std::string HumanDuration(int64_t ns);
// 1234567 → "1,234,567".
std::string Thousands(int64_t v);

// Writes event-log lines to a FILE (buffered); the caller owns the FILE.
class FileEventLog final : public TextEventLog {
 public:
  explicit FileEventLog(std::FILE* f) : f_(f) {}
  void Line(std::string_view line) override {
    std::fwrite(line.data(), 1, line.size(), f_);
    std::fputc('\n', f_);
  }

 private:
  std::FILE* f_;
};

// Collects event-log lines in memory (tests).
class StringEventLog final : public TextEventLog {
 public:
  void Line(std::string_view line) override {
    text_.append(line);
    text_ += '\n';
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// Writes the event log as JSON Lines to a FILE (`--event-log-format jsonl`): one object per event,
// {"t": virtual seconds (3 decimals), "kind": ..., "detail": ...}.
class JsonLinesEventLog final : public EventLog {
 public:
  explicit JsonLinesEventLog(std::FILE* f) : f_(f) {}
  void Event(int64_t t_ns, std::string_view kind, std::string_view detail) override;

 private:
  std::FILE* f_;
  std::string line_;
};

}  // namespace corral::sim
