#include "corral/compare/runner.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corral/core/output_file.h"

namespace corral::compare {

namespace {

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A record already in the results directory: same matrix and same run, or an error.
Result<bool> HaveRun(const std::string& path, const RunPlan& plan, RunRecord& out) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  auto r = RecordFromJson(ReadAll(path), path);
  if (!r.ok()) return r.error();
  if (r->digest != plan.digest || r->index != plan.index || r->total != plan.total ||
      r->variant != plan.variant.name || r->seed != plan.seed || r->point != plan.point) {
    return Error::Invalid(fmt::format(
        "{}: a result of another sweep (its inputs or matrix differ); use a new results directory "
        "or remove the old files",
        path));
  }
  out = std::move(r).value();
  return true;
}

class Clock {
 public:
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace

std::string RunFileName(const RunPlan& plan) {
  return fmt::format("run-{:05}-{}-seed{}.json", plan.index, plan.variant.name, plan.seed);
}

Result<std::vector<RunRecord>> RunPlans(const std::vector<RunPlan>& plans, const RunOptions& opts) {
  Clock clock;
  RunProgress prog;
  prog.total = plans.size();
  std::vector<std::optional<RunRecord>> records(plans.size());
  std::string dir = opts.dir;
  bool temp_dir = false;
  if (dir.empty() && opts.jobs > 1) {
    std::string tmpl = (fs::temp_directory_path() / "corral-compare-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr)
      return Error::Internal("cannot create a temporary directory");
    dir = tmpl;
    temp_dir = true;
  }
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error::Internal(fmt::format("cannot create {:?}: {}", dir, ec.message()));
  }
  auto path_of = [&](size_t i) { return (fs::path(dir) / RunFileName(plans[i])).string(); };
  std::vector<size_t> todo;
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!dir.empty() && !temp_dir) {
      RunRecord r;
      auto have = HaveRun(path_of(i), plans[i], r);
      if (!have.ok()) return have.error();
      if (*have) {
        records[i] = std::move(r);
        ++prog.done;
        ++prog.skipped;
        continue;
      }
    }
    todo.push_back(i);
  }
  size_t made = 0;
  auto report = [&]() {
    prog.elapsed_s = clock.Elapsed();
    if (made > 0) {
      prog.eta_s =
          prog.elapsed_s / static_cast<double>(made) * static_cast<double>(prog.total - prog.done);
    }
    if (opts.progress) opts.progress(prog);
  };
  report();
  Result<void> failure = Result<void>::Ok();
  if (opts.jobs <= 1) {
    for (size_t i : todo) {
      auto r = RunOne(plans[i]);
      if (!r.ok()) return r.error();
      // Through the file form, as the runs of child processes and shards come back.
      std::string json = RecordToJson(*r);
      if (!dir.empty()) {
        if (auto st = WriteFileAtomically(path_of(i), json); !st.ok()) return st.error();
      }
      auto back = RecordFromJson(json, RunFileName(plans[i]));
      if (!back.ok()) return back.error();
      records[i] = std::move(back).value();
      ++made;
      ++prog.done;
      report();
    }
  } else {
    std::map<pid_t, size_t> running;
    size_t next = 0;
    while (next < todo.size() || !running.empty()) {
      while (failure.ok() && next < todo.size() &&
             running.size() < static_cast<size_t>(opts.jobs)) {
        size_t i = todo[next++];
        std::fflush(nullptr);
        pid_t pid = fork();
        if (pid < 0) {
          failure = Error::Internal("fork failed");
          break;
        }
        if (pid == 0) {
          auto r = RunOne(plans[i]);
          int rc = 0;
          if (!r.ok()) {
            std::ofstream(path_of(i) + ".err", std::ios::binary) << r.error().message;
            rc = r.error().code == ErrorCode::kInternal ? 1 : 2;
          } else if (!WriteFileAtomically(path_of(i), RecordToJson(*r)).ok()) {
            rc = 1;
          }
          std::fflush(nullptr);
          _exit(rc);
        }
        running.emplace(pid, i);
      }
      if (running.empty()) break;
      int status = 0;
      pid_t pid = waitpid(-1, &status, 0);
      if (pid < 0) {
        failure = Error::Internal("waitpid failed");
        break;
      }
      auto it = running.find(pid);
      if (it == running.end()) continue;
      size_t i = it->second;
      running.erase(it);
      const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
      if (rc != 0) {
        std::string msg = ReadAll(path_of(i) + ".err");
        std::error_code ec;
        fs::remove(path_of(i) + ".err", ec);
        if (failure.ok()) {
          failure =
              Error{rc == 2 ? ErrorCode::kInvalidInput : ErrorCode::kInternal,
                    msg.empty() ? fmt::format("run {} ({} seed {}) failed", RunFileName(plans[i]),
                                              plans[i].variant.name, plans[i].seed)
                                : msg};
        }
        continue;
      }
      auto r = RecordFromJson(ReadAll(path_of(i)), path_of(i));
      if (!r.ok()) {
        if (failure.ok()) failure = r.error();
        continue;
      }
      records[i] = std::move(r).value();
      ++made;
      ++prog.done;
      report();
    }
  }
  if (temp_dir) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  if (!failure.ok()) return failure.error();
  std::vector<RunRecord> out;
  out.reserve(records.size());
  for (auto& r : records) out.push_back(std::move(*r));
  return out;
}

Result<std::vector<RunRecord>> ReadRunFiles(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error::NotFound(fmt::format("{}: not a directory", dir));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.starts_with("run-") && name.ends_with(".json")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<RunRecord> out;
  for (const auto& f : files) {
    auto r = RecordFromJson(ReadAll(f), f);
    if (!r.ok()) return r.error();
    out.push_back(std::move(r).value());
  }
  return out;
}

}  // namespace corral::compare
