#include "corral/plugins/helper/field_errors.h"

#include <algorithm>

#include <fmt/format.h>

namespace corral::plugins::helper {

FieldPath FieldPath::Child(std::string_view name) const {
  FieldPath p;
  p.path_ = path_.empty() ? std::string(name) : path_ + "." + std::string(name);
  return p;
}

FieldPath FieldPath::Index(size_t i) const {
  FieldPath p;
  p.path_ = fmt::format("{}[{}]", path_, i);
  return p;
}

std::string GoQuote(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

void FieldErrors::Invalid(const FieldPath& path, int64_t value, std::string_view detail) {
  errors_.push_back(fmt::format("{}: Invalid value: {}: {}", path.str(), value, detail));
}

void FieldErrors::Invalid(const FieldPath& path, std::string_view value, std::string_view detail) {
  errors_.push_back(fmt::format("{}: Invalid value: {}: {}", path.str(), GoQuote(value), detail));
}

void FieldErrors::Duplicate(const FieldPath& path, std::string_view value) {
  errors_.push_back(fmt::format("{}: Duplicate value: {}", path.str(), GoQuote(value)));
}

void FieldErrors::Required(const FieldPath& path, std::string_view detail) {
  errors_.push_back(fmt::format("{}: Required value: {}", path.str(), detail));
}

void FieldErrors::NotSupported(const FieldPath& path, std::string_view value,
                               std::span<const std::string_view> supported) {
  std::string msg = fmt::format("{}: Unsupported value: {}", path.str(), GoQuote(value));
  if (!supported.empty()) {
    msg += ": supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) {
      if (i > 0) msg += ", ";
      msg += GoQuote(supported[i]);
    }
  }
  errors_.push_back(std::move(msg));
}

Result<void> FieldErrors::ToResult() const {
  if (errors_.empty()) return {};
  if (errors_.size() == 1) return Error::Invalid(errors_[0]);
  // utilerrors aggregate: distinct messages in order, joined by ", " inside brackets (no brackets
  // when only one distinct message remains).
  std::vector<std::string_view> seen;
  std::string joined;
  for (const std::string& e : errors_) {
    if (std::find(seen.begin(), seen.end(), e) != seen.end()) continue;
    if (!seen.empty()) joined += ", ";
    seen.push_back(e);
    joined += e;
  }
  if (seen.size() == 1) return Error::Invalid(joined);
  return Error::Invalid("[" + joined + "]");
}

}  // namespace corral::plugins::helper
