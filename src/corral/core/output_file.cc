#include "corral/core/output_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace corral {

std::string CheckOutputPath(std::string_view flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (path.empty() || p.filename().empty())
    return fmt::format("{}: {:?} does not name a file", flag, path);
  if (!fs::exists(dir, ec))
    return fmt::format("{}: directory {:?} does not exist", flag, dir.string());
  if (!fs::is_directory(dir, ec))
    return fmt::format("{}: {:?} is not a directory", flag, dir.string());
  if (fs::is_directory(p, ec)) return fmt::format("{}: {:?} is a directory", flag, path);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return fmt::format("{}: cannot write in directory {:?}: {}", flag, dir.string(),
                       std::strerror(errno));
  }
  return "";
}

std::string TempPathFor(const std::string& path) {
  std::filesystem::path p(path);
  return (p.parent_path() / fmt::format(".{}.tmp-{}", p.filename().string(), getpid())).string();
}

std::FILE* OpenTemp(const std::string& tmp) {
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  std::FILE* f = fdopen(fd, "wb");
  if (f == nullptr) close(fd);
  return f;
}

bool CommitTemp(std::FILE* f, const std::string& tmp, const std::string& path) {
  bool ok = std::fflush(f) == 0 && std::ferror(f) == 0;
  ok = std::fclose(f) == 0 && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

Result<void> WriteFileAtomically(const std::string& path, std::string_view content) {
  const std::string tmp = TempPathFor(path);
  std::FILE* f = OpenTemp(tmp);
  if (f == nullptr) {
    return Error::Internal(fmt::format("cannot write {:?}: {}", tmp, std::strerror(errno)));
  }
  std::fwrite(content.data(), 1, content.size(), f);
  if (!CommitTemp(f, tmp, path)) return Error::Internal(fmt::format("cannot write {:?}", path));
  return Result<void>::Ok();
}

}  // namespace corral
