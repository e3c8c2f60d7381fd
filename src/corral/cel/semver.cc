// Semantic versions for CEL's semver() and for DRA version attributes (semver 2.0.0 precedence).

#include <cstdint>
#include <string_view>

#include "corral/cel/cel.h"

namespace corral::cel {

namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsIdentChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

// A numeric core component: digits, no leading zero unless "0", fits uint64.
bool ParseNumber(std::string_view s, uint64_t* out) {
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return !s.empty();
}

// Dot-separated identifiers, each non-empty of [0-9A-Za-z-]; numeric ones without leading zeros
// when `numeric_no_leading_zero`.
bool ValidIdentifiers(std::string_view s, bool numeric_no_leading_zero) {
  if (s.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) return false;
    for (char c : part) {
      if (!IsIdentChar(c)) return false;
    }
    if (numeric_no_leading_zero && AllDigits(part) && part.size() > 1 && part[0] == '0') {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

bool ParseSemver(std::string_view s, Version* out) {
  Version v;
  size_t plus = s.find('+');
  if (plus != std::string_view::npos) {
    if (!ValidIdentifiers(s.substr(plus + 1), false)) return false;
    s = s.substr(0, plus);
  }
  size_t dash = s.find('-');
  if (dash != std::string_view::npos) {
    v.pre = s.substr(dash + 1);
    if (!ValidIdentifiers(v.pre, true)) return false;
    s = s.substr(0, dash);
  }
  size_t d1 = s.find('.');
  if (d1 == std::string_view::npos) return false;
  size_t d2 = s.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return false;
  if (!ParseNumber(s.substr(0, d1), &v.major) ||
      !ParseNumber(s.substr(d1 + 1, d2 - d1 - 1), &v.minor) ||
      !ParseNumber(s.substr(d2 + 1), &v.patch)) {
    return false;
  }
  *out = v;
  return true;
}

int CompareVersions(const Version& a, const Version& b) {
  if (a.major != b.major) return a.major < b.major ? -1 : 1;
  if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch != b.patch) return a.patch < b.patch ? -1 : 1;
  // A version without pre-release identifiers has higher precedence.
  if (a.pre.empty() || b.pre.empty()) {
    if (a.pre.empty() && b.pre.empty()) return 0;
    return a.pre.empty() ? 1 : -1;
  }
  std::string_view x = a.pre, y = b.pre;
  while (true) {
    size_t dx = x.find('.'), dy = y.find('.');
    std::string_view px = x.substr(0, dx), py = y.substr(0, dy);
    const bool nx = AllDigits(px), ny = AllDigits(py);
    int c = 0;
    if (nx && ny) {
      c = px.size() != py.size() ? (px.size() < py.size() ? -1 : 1) : px.compare(py);
    } else if (nx != ny) {
      c = nx ? -1 : 1;  // numeric identifiers have lower precedence
    } else {
      c = px.compare(py);
    }
    if (c != 0) return c < 0 ? -1 : 1;
    const bool ex = dx == std::string_view::npos, ey = dy == std::string_view::npos;
    if (ex || ey) return ex == ey ? 0 : (ex ? -1 : 1);
    x = x.substr(dx + 1);
    y = y.substr(dy + 1);
  }
}

}  // namespace corral::cel
