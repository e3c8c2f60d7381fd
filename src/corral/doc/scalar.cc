#include "corral/doc/internal/scalar.h"

#include <cstdlib>
#include <limits>
#include <string>

#include "corral/core/int128.h"

namespace corral::doc::internal {

namespace {

// Copies `text` without underscores into `buf` when it has any; returns the text to parse.
std::string_view WithoutUnderscores(std::string_view text, std::string& buf) {
  if (text.find('_') == std::string_view::npos) return text;
  buf.clear();
  for (char c : text) {
    if (c != '_') buf.push_back(c);
  }
  return buf;
}

bool ParseGoInt(std::string_view s, int64_t* out, bool* overflow) {
  *overflow = false;
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
    if (s.empty()) return false;
  }
  Uint128 v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    if (d >= base) return false;
    if (v <= (static_cast<Uint128>(1) << 64))
      v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    if (v > (static_cast<Uint128>(1) << 64)) *overflow = true;
  }
  const auto limit = static_cast<Uint128>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0);
  if (*overflow || v > limit) {
    *overflow = true;
    return true;
  }
  *out = neg ? static_cast<int64_t>(-static_cast<Int128>(v)) : static_cast<int64_t>(v);
  return true;
}

}  // namespace

bool ParseYamlInt(std::string_view text, int64_t* out, bool* overflow) {
  // Fast path: short plain decimals (all JSON integers, most YAML ones).
  if (!text.empty() && text.size() <= 18) {
    size_t i = text[0] == '-' ? 1 : 0;
    bool simple = i < text.size() && !(text[i] == '0' && text.size() > i + 1);
    int64_t v = 0;
    for (size_t k = i; simple && k < text.size(); ++k) {
      char c = text[k];
      if (c < '0' || c > '9') {
        simple = false;
      } else {
        v = v * 10 + (c - '0');
      }
    }
    if (simple) {
      *overflow = false;
      *out = i == 1 ? -v : v;
      return true;
    }
  }
  std::string buf;
  return ParseGoInt(WithoutUnderscores(text, buf), out, overflow);
}

bool IsYamlFloat(std::string_view text) {
  std::string buf;
  std::string_view s = WithoutUnderscores(text, buf);
  size_t i = 0;
  auto digits = [&] {
    size_t st = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - st;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

double ParseFloat(std::string_view text) {
  std::string_view t = text;
  bool neg = false;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t == ".inf" || t == ".Inf" || t == ".INF") {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (t == ".nan" || t == ".NaN" || t == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  std::string buf;
  std::string s(WithoutUnderscores(text, buf));  // strtod needs a NUL-terminated copy
  return std::strtod(s.c_str(), nullptr);
}

}  // namespace corral::doc::internal
