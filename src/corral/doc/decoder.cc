#include "corral/doc/decoder.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "corral/core/check.h"
#include "corral/core/int128.h"

namespace corral::doc {

namespace {

std::string Clip(std::string_view s) {
  constexpr size_t kMax = 60;
  if (s.size() <= kMax) return std::string(s);
  return std::string(s.substr(0, kMax)) + "...";
}

// Optimal string alignment distance: Levenshtein plus adjacent transpositions ("nmae" -> "name"
// is 1).
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

char Lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}

}  // namespace

Decoder::Decoder(std::string_view file, Diagnostics& diags, Interner* interner, DecodeOptions opts)
    : file_(file), diags_(diags), interner_(interner), opts_(opts) {
  path_.reserve(128);
}

Decoder::Scope Decoder::Field(std::string_view name) {
  size_t len = path_.size();
  if (!path_.empty()) path_ += '.';
  path_ += name;
  return {path_, len};
}

Decoder::Scope Decoder::Index(size_t i) {
  size_t len = path_.size();
  char buf[24];
  buf[0] = '[';
  char* end = std::to_chars(buf + 1, buf + sizeof buf - 1, i).ptr;
  *end++ = ']';
  path_.append(buf, static_cast<size_t>(end - buf));
  return {path_, len};
}

Decoder::Scope Decoder::Key(std::string_view key) {
  size_t len = path_.size();
  path_ += '[';
  path_ += key;
  path_ += ']';
  return {path_, len};
}

Decoder::Scope Decoder::Root(std::string_view prefix) {
  // Restoring a replaced path needs the old text; keep it simple: only valid at the root.
  CORRAL_CHECK_MSG(path_.empty(), "Decoder::Root inside another scope");
  path_ = prefix;
  return {path_, 0};
}

std::string Decoder::PathWith(std::string_view field) const {
  if (path_.empty()) return std::string(field);
  std::string out;
  out.reserve(path_.size() + 1 + field.size());
  out += path_;
  out += '.';
  out += field;
  return out;
}

void Decoder::Error(const Node& at, std::string message) {
  ++errors_;
  diags_.Error(file_, at.line(), path_, std::move(message));
}

void Decoder::Warning(const Node& at, std::string message) {
  if (opts_.strict) {
    Error(at, std::move(message));
  } else {
    diags_.Warning(file_, at.line(), path_, std::move(message));
  }
}

void Decoder::FieldError(const Node& parent, std::string_view field, std::string message) {
  ++errors_;
  diags_.Error(file_, parent.line(), PathWith(field), std::move(message));
}

void Decoder::Required(const Node& parent, std::string_view field, std::string_view want) {
  // A present value of the wrong type was already reported by the Read* that rejected it.
  if (const Node* f = parent.Find(field); f != nullptr && !f->is_null()) {
    bool wrong_scalar = f->is_scalar() && !f->is_string();
    bool filled_container = !f->is_scalar() && !f->empty();
    if (wrong_scalar || filled_container) return;
  }
  std::string msg = fmt::format("required field {:?} is missing", field);
  if (!want.empty()) msg += fmt::format(" (want {})", want);
  FieldError(parent, field, std::move(msg));
}

void Decoder::UnknownField(const Node& key, std::span<const std::string_view> known) {
  ++unknown_fields_;
  if (opts_.unknown_fields == FieldValidation::kIgnore && !opts_.strict) return;
  std::string msg = fmt::format("unknown field {:?}", key.text());
  std::string_view s = Suggest(key.text(), known);
  if (!s.empty()) msg += fmt::format(" (did you mean {:?}?)", s);
  if (opts_.strict || opts_.unknown_fields == FieldValidation::kStrict) {
    ++errors_;
    diags_.Error(file_, key.line(), PathWith(key.text()), std::move(msg));
  } else {
    diags_.Warning(file_, key.line(), PathWith(key.text()), std::move(msg));
  }
}

std::string Decoder::Describe(const Node& n) {
  switch (n.kind()) {
    case Kind::kNull:
      return "null";
    case Kind::kSequence:
      return "a sequence";
    case Kind::kMap:
      return "a map";
    case Kind::kString:
      return fmt::format("string {:?}", Clip(n.text()));
    default:
      return fmt::format("{} {}", KindName(n.kind()), Clip(n.text()));
  }
}

bool Decoder::TypeError(const Node& n, std::string_view want) {
  std::string msg = fmt::format("expected {}, got {}", want, Describe(n));
  if (want == "a string" && n.is_scalar() && n.plain()) {
    msg += fmt::format(" (quote it: {:?})", Clip(n.text()));
  }
  Error(n, std::move(msg));
  return false;
}

bool Decoder::ExpectMap(const Node& n) {
  if (n.is_map()) return true;
  if (n.is_null()) return false;
  return TypeError(n, "a map");
}

bool Decoder::ExpectSequence(const Node& n) {
  if (n.is_sequence()) return true;
  if (n.is_null()) return false;
  return TypeError(n, "a sequence");
}

bool Decoder::ReadString(const Node& n, std::string_view& out) {
  if (n.is_string()) {
    out = n.text();
    return true;
  }
  if (n.is_null()) return false;
  return TypeError(n, "a string");
}

bool Decoder::ReadString(const Node& n, std::string& out) {
  std::string_view s;
  if (!ReadString(n, s)) return false;
  out.assign(s);
  return true;
}

Symbol Decoder::Intern(std::string_view s) {
  CORRAL_CHECK_MSG(interner_ != nullptr, "Decoder::Intern needs an interner");
  constexpr size_t kCacheSize = 1024;
  if (s.empty()) return Symbol();
  if (s.size() > 48)
    return interner_->Intern(s);  // long strings (uids, images) rarely repeat nearby
  if (cache_.empty()) cache_.resize(kCacheSize);
  // A cheap hash of the length and the first and last 8 bytes.
  uint64_t a = 0, b = 0;
  std::memcpy(&a, s.data(), std::min<size_t>(s.size(), 8));
  if (s.size() > 8)
    std::memcpy(&b, s.data() + s.size() - std::min<size_t>(s.size() - 8, 8),
                std::min<size_t>(s.size() - 8, 8));
  uint64_t x = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ s.size();
  auto h = static_cast<uint32_t>(x >> 32) ^ static_cast<uint32_t>(x);
  CacheEntry& e = cache_[h & (kCacheSize - 1)];
  if (e.text.size() == s.size() && e.text == s) return e.sym;
  Symbol sym = interner_->Intern(s);
  e = {interner_->Str(sym), sym};
  return sym;
}

bool Decoder::ReadSymbol(const Node& n, Symbol& out) {
  CORRAL_CHECK_MSG(interner_ != nullptr, "Decoder::ReadSymbol needs an interner");
  std::string_view s;
  if (!ReadString(n, s)) return false;
  out = Intern(s);
  return true;
}

bool Decoder::ReadBool(const Node& n, bool& out) {
  if (n.kind() == Kind::kBool) {
    out = n.bool_value();
    return true;
  }
  if (n.is_null()) return false;
  return TypeError(n, "a boolean (true or false)");
}

bool Decoder::ReadInt64(const Node& n, int64_t& out, int64_t min, int64_t max) {
  if (n.is_null()) return false;
  if (n.kind() != Kind::kInt) {
    if (n.kind() == Kind::kFloat) {
      // A float that is an integral number out of int64 range is an overflow, not a type error.
      bool integral = n.text().find_first_of(".eE") == std::string_view::npos;
      if (integral) {
        Error(n, fmt::format("value {} is out of range for a 64-bit integer", Clip(n.text())));
        return false;
      }
    }
    return TypeError(n, "an integer");
  }
  int64_t v = n.int_value();
  if (v < min || v > max) {
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (min != kMin && max != kMax) {
      Error(n, fmt::format("invalid value {}: must be between {} and {}", v, min, max));
    } else if (min != kMin) {
      Error(n, fmt::format("invalid value {}: must be greater than or equal to {}", v, min));
    } else {
      Error(n, fmt::format("invalid value {}: must be less than or equal to {}", v, max));
    }
    return false;
  }
  out = v;
  return true;
}

bool Decoder::ReadInt32(const Node& n, int32_t& out, int32_t min, int32_t max) {
  if (n.kind() == Kind::kInt) {
    int64_t v = n.int_value();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      Error(n, fmt::format("value {} is out of range for a 32-bit integer", v));
      return false;
    }
  }
  // Bounds equal to the int32 limits were checked above; leave them open so messages name only
  // real bounds.
  int64_t lo =
      min == std::numeric_limits<int32_t>::min() ? std::numeric_limits<int64_t>::min() : min;
  int64_t hi =
      max == std::numeric_limits<int32_t>::max() ? std::numeric_limits<int64_t>::max() : max;
  int64_t v = 0;
  if (!ReadInt64(n, v, lo, hi)) return false;
  out = static_cast<int32_t>(v);
  return true;
}

bool Decoder::ReadFloat(const Node& n, double& out) {
  if (n.kind() == Kind::kFloat) {
    out = n.float_value();
    return true;
  }
  if (n.kind() == Kind::kInt) {
    out = static_cast<double>(n.int_value());
    return true;
  }
  if (n.is_null()) return false;
  return TypeError(n, "a number");
}

bool Decoder::ReadQuantity(const Node& n, api::Quantity& out) {
  if (n.is_null()) return false;
  std::string_view text;
  std::string buf;
  if (n.is_string()) {
    text = n.text();
  } else if (n.kind() == Kind::kInt) {
    text = n.text();
    // Non-decimal YAML spellings (0x10, 0o17) reach kube as their decimal value.
    if (text.find_first_not_of("+-0123456789") != std::string_view::npos ||
        (text.size() > 1 && text[0] == '0')) {
      buf = std::to_string(n.int_value());
      text = buf;
    }
  } else if (n.kind() == Kind::kFloat) {
    text = n.text();
  } else {
    return TypeError(n, "a quantity (a string such as \"500m\" or \"4Gi\", or a number)");
  }
  // resource.Quantity's UnmarshalJSON trims surrounding whitespace.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  Result<api::Quantity> q = api::Quantity::Parse(text);
  if (!q.ok()) {
    Error(n, fmt::format("invalid quantity {:?}: {}", Clip(text), q.error().message));
    return false;
  }
  out = *q;
  return true;
}

bool Decoder::ReadTime(const Node& n, TimePoint& out) {
  std::string_view s;
  if (!ReadString(n, s)) return false;
  if (!ParseRfc3339(s, out)) {
    Error(n, fmt::format("invalid time {:?} (want RFC 3339 between the years 1678 and 2261, e.g. "
                         "\"2026-11-21T14:05:00Z\")",
                         Clip(s)));
    return false;
  }
  return true;
}

bool Decoder::ReadDuration(const Node& n, Duration& out) {
  std::string_view s;
  if (!ReadString(n, s)) return false;
  if (!ParseGoDuration(s, out)) {
    Error(n, fmt::format(
                 "invalid duration {:?} (want a Go duration such as \"90s\", \"1m30s\", \"250ms\")",
                 Clip(s)));
    return false;
  }
  return true;
}

bool Decoder::ReadSymbolList(const Node& n, std::vector<Symbol>& out) {
  if (!ExpectSequence(n)) return false;
  out.reserve(out.size() + n.size());
  ForEachItem(n, [&](const Node& item) {
    Symbol s;
    ReadSymbol(item, s);
    out.push_back(s);
  });
  return true;
}

bool Decoder::ReadSymbolMap(const Node& n, std::vector<std::pair<Symbol, Symbol>>& out) {
  if (!ExpectMap(n)) return false;
  CORRAL_CHECK_MSG(interner_ != nullptr, "Decoder::ReadSymbolMap needs an interner");
  out.reserve(out.size() + n.size());
  ForEachEntry(n, [&](const Node& key, const Node& value) {
    Symbol v;
    ReadSymbol(value, v);
    out.emplace_back(Intern(key.text()), v);
  });
  return true;
}

bool Decoder::EnumError(const Node& n, std::string_view what, std::string_view got,
                        std::span<const std::string_view> names) {
  std::string msg =
      fmt::format("unknown {} {:?} (want {})", what, Clip(got), fmt::join(names, ", "));
  Error(n, std::move(msg));
  return false;
}

// ---- free helpers -------------------------------------------------------------------------------

bool ParseRfc3339(std::string_view s, TimePoint& out) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  int y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d) || s[10] != 'T' || !Digits(s, 11, 2, h) || s[13] != ':' ||
      !Digits(s, 14, 2, mi) || s[16] != ':' || !Digits(s, 17, 2, sec)) {
    return false;
  }
  size_t pos = 19;
  int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    int64_t scale = 100'000'000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (scale > 0) {
        nanos += (s[pos] - '0') * scale;
        scale /= 10;
      }
      ++pos;
    }
    if (pos == start) return false;
  }
  int offset_minutes = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, om)) {
      return false;
    }
    if (oh > 23 || om > 59) return false;
    offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return false;
  }
  if (pos != s.size()) return false;
  using namespace std::chrono;  // NOLINT(google-build-using-namespace): local, for calendar types
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 59) return false;
  // TimePoint counts int64 nanoseconds: about years 1678 to 2261.
  int64_t secs = static_cast<int64_t>(sys_days(ymd).time_since_epoch().count()) * 86400 + h * 3600 +
                 mi * 60 + sec - int64_t{offset_minutes} * 60;
  constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1'000'000'000 - 1;
  if (secs > kMaxSeconds || secs < -kMaxSeconds) return false;
  out = TimePoint(Duration(secs * 1'000'000'000 + nanos));
  return true;
}

bool ParseGoDuration(std::string_view s, Duration& out) {
  // [-+]?([0-9]*(\.[0-9]*)?[a-z]+)+, or "0".
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") {
    out = Duration(0);
    return true;
  }
  if (s.empty()) return false;
  Int128 total = 0;
  constexpr Int128 kLimit = static_cast<Int128>(std::numeric_limits<int64_t>::max()) + 1;
  while (!s.empty()) {
    Int128 whole = 0;
    Int128 frac = 0;
    Int128 scale = 1;
    size_t i = 0;
    bool any = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      whole = whole * 10 + (s[i] - '0');
      if (whole > kLimit) return false;
      ++i;
      any = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (scale < static_cast<Int128>(1'000'000'000'000'000'000)) {
          frac = frac * 10 + (s[i] - '0');
          scale *= 10;
        }
        ++i;
        any = true;
      }
    }
    if (!any) return false;
    size_t u = i;
    while (u < s.size() && !(s[u] == '.' || (s[u] >= '0' && s[u] <= '9'))) ++u;
    std::string_view unit = s.substr(i, u - i);
    int64_t mult;
    if (unit == "ns") {
      mult = 1;
    } else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") {
      mult = 1'000;
    } else if (unit == "ms") {
      mult = 1'000'000;
    } else if (unit == "s") {
      mult = 1'000'000'000;
    } else if (unit == "m") {
      mult = 60'000'000'000;
    } else if (unit == "h") {
      mult = 3'600'000'000'000;
    } else {
      return false;
    }
    total += whole * mult + frac * mult / scale;
    if (total > kLimit) return false;
    s.remove_prefix(u);
  }
  if (!neg && total == kLimit) return false;
  out = Duration(static_cast<int64_t>(neg ? -total : total));
  return true;
}

std::string_view Suggest(std::string_view name, std::span<const std::string_view> candidates) {
  std::string_view best;
  size_t best_score = std::numeric_limits<size_t>::max();
  for (std::string_view c : candidates) {
    if (EqualFold(c, name)) return c;
    size_t dist = EditDistance(name, c);
    size_t prefix = 0;
    while (prefix < name.size() && prefix < c.size() && name[prefix] == c[prefix]) ++prefix;
    size_t shorter = std::min(name.size(), c.size());
    bool close = dist <= 1 || (dist <= 2 && name.size() >= 5) || dist * 3 <= name.size() ||
                 (prefix >= 4 && prefix * 2 >= shorter);
    if (close && dist < best_score) {
      best = c;
      best_score = dist;
    }
  }
  return best;
}

}  // namespace corral::doc
