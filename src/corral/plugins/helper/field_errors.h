#pragma once
// Validation errors for plugin args in apimachinery's format
// (k8s.io/apimachinery/pkg/util/validation/field and utilerrors.NewAggregate), so that an invalid
// config reports the same text as kube-scheduler:
//   scoringStrategy.resources[0].weight: Invalid value: 0: resource weight of cpu not in ...
// Several errors aggregate as "[e1, e2]" (duplicates dropped); one error is reported bare.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/core/result.h"

namespace corral::plugins::helper {

// A field path (field.Path). The default path is kube's nil root: Child("a") renders as "a".
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : path_(root) {}
  FieldPath Child(std::string_view name) const;
  FieldPath Index(size_t i) const;
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// Go's strconv.Quote for the strings that appear in config values: backslash escapes for \a \b \f
// \n \r \t \v, \" and \\, \xNN for other control bytes; other bytes are copied (valid UTF-8
// stays readable).
std::string GoQuote(std::string_view s);

class FieldErrors {
 public:
  // "<path>: Invalid value: <value>: <detail>" (integers bare, strings quoted).
  void Invalid(const FieldPath& path, int64_t value, std::string_view detail);
  void Invalid(const FieldPath& path, std::string_view value, std::string_view detail);
  // "<path>: Duplicate value: "<value>"".
  void Duplicate(const FieldPath& path, std::string_view value);
  // "<path>: Required value: <detail>".
  void Required(const FieldPath& path, std::string_view detail);
  // "<path>: Unsupported value: "<value>": supported values: "a", "b"".
  void NotSupported(const FieldPath& path, std::string_view value,
                    std::span<const std::string_view> supported);

  bool empty() const { return errors_.empty(); }
  const std::vector<std::string>& errors() const { return errors_; }
  // Success when empty; otherwise an ErrorCode::kInvalidInput error with the aggregated message.
  Result<void> ToResult() const;

 private:
  std::vector<std::string> errors_;
};

}  // namespace corral::plugins::helper
