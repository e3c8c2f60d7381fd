#include "corral/core/diagnostics.h"

#include <fmt/format.h>

namespace corral {

std::string Diagnostic::ToString() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) out += fmt::format(":{}", line);
    out += ": ";
  }
  if (severity == Severity::kWarning) out += "warning: ";
  if (!path.empty()) {
    out += path;
    out += ": ";
  }
  out += message;
  return out;
}

void Diagnostics::Error(std::string file, uint32_t line, std::string path, std::string message) {
  items_.push_back({Severity::kError, std::move(file), line, std::move(path), std::move(message)});
  ++error_count_;
}

void Diagnostics::Warning(std::string file, uint32_t line, std::string path, std::string message) {
  items_.push_back(
      {Severity::kWarning, std::move(file), line, std::move(path), std::move(message)});
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (const auto& d : other.items_) {
    items_.push_back(d);
    if (d.severity == Severity::kError) ++error_count_;
  }
}

}  // namespace corral
