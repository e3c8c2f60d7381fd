#pragma once
// Diagnostics: the errors and warnings that loaders collect. Every diagnostic names the file, the
// line and the field path, and says what was expected:
//   nodes.yaml:14: spec.taints[0].effect: unknown effect "NoSchedul" (want NoSchedule,
//   PreferNoSchedule, NoExecute)
// A loader reports all diagnostics of a file, not only the first.

#include <cstdint>
#include <string>
#include <vector>

namespace corral {

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string file;   // as given by the user (path), may be empty for in-memory input
  uint32_t line = 0;  // 1-based; 0 when unknown
  std::string path;   // field path, e.g. "spec.taints[0].effect"; empty for whole-object messages
  std::string message;

  // "file:line: path: message" (parts that are empty are left out).
  std::string ToString() const;
};

// An ordered collection of diagnostics.
class Diagnostics {
 public:
  void Error(std::string file, uint32_t line, std::string path, std::string message);
  void Warning(std::string file, uint32_t line, std::string path, std::string message);
  void Add(Diagnostic d) {
    if (d.severity == Severity::kError) ++error_count_;
    items_.push_back(std::move(d));
  }

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  size_t warning_count() const { return items_.size() - error_count_; }
  const std::vector<Diagnostic>& items() const { return items_; }

  // Appends every diagnostic of `other`.
  void Merge(const Diagnostics& other);

 private:
  std::vector<Diagnostic> items_;
  size_t error_count_ = 0;
};

}  // namespace corral
