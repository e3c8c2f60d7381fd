#pragma once
// doc::Decoder: turns doc::Node trees into typed structs while collecting every problem as a
// Diagnostic with file, line and field path:
//
//   nodes.yaml:14: spec.taints[0].effect: unknown effect "NoSchedul" (want NoSchedule,
//   PreferNoSchedule, NoExecute)
//
// Contract:
//  (1) Decoding never stops at the first problem. Every Read* records what was wrong and returns
//      false, and the caller carries on with the next field, so one pass reports all errors of
//      a document.
//  (2) A null value (`field:`, `field: null`, `field: ~`) means "absent", as in Kubernetes JSON:
//      Read* return false without a diagnostic and leave `out` unchanged.
//  (3) Types are strict, as kube's JSON decoding is: a string field given `yes` or `1` (plain YAML)
//      is an error that says to quote it; an integer field given "1" (quoted) is an error.
//      Quantities accept strings and numbers, as resource.Quantity does.
//  (4) Unknown fields are errors naming the field (with a "did you mean" suggestion), as in
//      kube's strict decoding; DecodeOptions::unknown_fields relaxes them to warnings or to nothing
//      (kubectl's --validate=warn|ignore). With `strict`, every warning is an error.
//  (5) The path is kept by RAII scopes (`auto s = d.Field("spec");`), so messages always name the
//      full path; building it allocates only when it grows beyond its previous length.
//
// Typical use with a field table (at most 64 fields per table):
//
//   const doc::Field<api::Taint> kTaintFields[] = {
//       {"key", [](doc::Decoder& d, const doc::Node& n, api::Taint& t) { d.ReadSymbol(n, t.key);
//       }},
//       {"effect", [](doc::Decoder& d, const doc::Node& n, api::Taint& t) {
//          d.ReadEnum(n, kEffects, "effect", t.effect); }},
//   }; api::Taint t; d.Struct(node, t, kTaintFields, /*ignored=*/{}); if (t.key.empty())
//   d.Required(node, "key");
//
// Not thread-safe; one Decoder per input file.

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/core/clock.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/node.h"

namespace corral::doc {

class Decoder;

// One entry of a struct's field table: the JSON field name and the function that decodes its value.
template <class T>
struct Field {
  std::string_view name;
  void (*decode)(Decoder& d, const Node& value, T& out);
};

// The fields of a table that were present in a map (null values count as present).
template <class T>
class FieldsSeen {
 public:
  FieldsSeen() = default;
  FieldsSeen(std::span<const Field<T>> fields, uint64_t bits) : fields_(fields), bits_(bits) {}
  bool has(std::string_view name) const {
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (fields_[i].name == name) return (bits_ >> i) & 1U;
    }
    return false;
  }
  bool any() const { return bits_ != 0; }

 private:
  std::span<const Field<T>> fields_;
  uint64_t bits_ = 0;
};

// One allowed value of an enum field.
template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

// What an unknown map key is, as kubectl's --validate: an error (strict), a warning (warn), or
// nothing (ignore; the key is still counted).
enum class FieldValidation { kStrict, kWarn, kIgnore };

struct DecodeOptions {
  bool strict = false;  // every warning is an error (unknown fields included)
  FieldValidation unknown_fields = FieldValidation::kStrict;
};

class Decoder {
 public:
  // `interner` may be null when ReadSymbol is not used. `diags` and `interner` must outlive
  // the Decoder.
  Decoder(std::string_view file, Diagnostics& diags, Interner* interner = nullptr,
          DecodeOptions opts = {});
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // ---- path -------------------------------------------------------------------------------------
  class [[nodiscard]] Scope {
   public:
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope() { path_.resize(len_); }

   private:
    friend class Decoder;
    Scope(std::string& path, size_t len) : path_(path), len_(len) {}
    std::string& path_;
    size_t len_;
  };
  Scope Field(std::string_view name);  // appends ".name" (or "name" at the root)
  Scope Index(size_t i);               // appends "[i]"
  Scope Key(std::string_view key);     // appends "[key]" (an entry of a user map, e.g. labels[app])
  const std::string& path() const { return path_; }
  std::string PathWith(std::string_view field) const;
  // Replaces the whole path (e.g. "items[3]" for the objects of a List); restored by the Scope.
  Scope Root(std::string_view prefix);

  // ---- reporting (at the current path) ----------------------------------------------------------
  void Error(const Node& at, std::string message);
  void Warning(const Node& at, std::string message);  // an error under strict
  // Reports a problem with `field` of the map `parent` (e.g. a missing field), at path.field.
  void FieldError(const Node& parent, std::string_view field, std::string message);
  // A missing or empty required field; `want` (optional) says what is expected. Silent when the
  // field is present with a value of the wrong type (that error was already reported).
  void Required(const Node& parent, std::string_view field, std::string_view want = {});
  // An unknown map key, with a suggestion among `known`: an error, a warning or nothing as
  // DecodeOptions::unknown_fields says (an error under strict).
  void UnknownField(const Node& key, std::span<const std::string_view> known);

  size_t error_count() const { return errors_; }
  size_t unknown_field_count() const { return unknown_fields_; }
  // Interns `s` through a small cache of recent strings in front of the interner: label keys,
  // resource names and enum-like values repeat across thousands of objects. REQUIRES: an interner.
  Symbol Intern(std::string_view s);

  bool strict() const { return opts_.strict; }
  std::string_view file() const { return file_; }
  Diagnostics& diagnostics() { return diags_; }
  Interner* interner() { return interner_; }

  // ---- structure
  // -------------------------------------------------------------------------------------- True for
  // a map. Null: false, no diagnostic. Anything else: an error.
  bool ExpectMap(const Node& n);
  bool ExpectSequence(const Node& n);

  // Decodes map `n` field by field through `fields`; keys in `ignored` are accepted and skipped
  // (known fields the program does not model); other keys are unknown fields.
  template <class T, size_t N>
  FieldsSeen<T> Struct(const Node& n, T& out, const doc::Field<T> (&fields)[N],
                       std::span<const std::string_view> ignored = {});

  // Calls fn(item) for every item of sequence `n`, inside Index(i) scopes.
  template <class Fn>
  void ForEachItem(const Node& n, Fn&& fn);
  // Calls fn(key, value) for every entry of map `n`, inside Key(key) scopes. Scalar keys of any
  // type are taken by their text, as sigs.k8s.io/yaml turns them into JSON strings.
  template <class Fn>
  void ForEachEntry(const Node& n, Fn&& fn);
  // Appends fn(item, T&) results for every item of sequence `n`.
  template <class T, class Fn>
  void ReadList(const Node& n, std::vector<T>& out, Fn&& fn);

  // ---- scalars (contracts 2 and 3) --------------------------------------------------------------
  bool ReadString(const Node& n, std::string_view& out);
  bool ReadString(const Node& n, std::string& out);
  bool ReadSymbol(const Node& n, Symbol& out);  // REQUIRES: an interner
  bool ReadBool(const Node& n, bool& out);
  bool ReadInt64(const Node& n, int64_t& out, int64_t min = std::numeric_limits<int64_t>::min(),
                 int64_t max = std::numeric_limits<int64_t>::max());
  bool ReadInt32(const Node& n, int32_t& out, int32_t min = std::numeric_limits<int32_t>::min(),
                 int32_t max = std::numeric_limits<int32_t>::max());
  bool ReadFloat(const Node& n, double& out);
  bool ReadQuantity(const Node& n, api::Quantity& out);
  // RFC 3339 ("2026-11-21T14:05:00Z", "2026-11-21T14:05:00.5+01:00"), as metav1.Time.
  bool ReadTime(const Node& n, TimePoint& out);
  // Go duration ("90s", "1m30s", "1.5h", "300ms"), as metav1.Duration.
  bool ReadDuration(const Node& n, Duration& out);
  // A string that must be one of `names`; otherwise: unknown <what> "x" (want A, B, C).
  template <class E>
  bool ReadEnum(const Node& n, std::span<const EnumName<E>> names, std::string_view what, E& out);
  template <class E, size_t N>
  bool ReadEnum(const Node& n, const EnumName<E> (&names)[N], std::string_view what, E& out) {
    return ReadEnum(n, std::span<const EnumName<E>>(names), what, out);
  }
  // A sequence of strings, interned.
  bool ReadSymbolList(const Node& n, std::vector<Symbol>& out);
  // A map of string to string, interned, in input order.
  bool ReadSymbolMap(const Node& n, std::vector<std::pair<Symbol, Symbol>>& out);

  // How a node is described in messages: `integer 5`, `string "x"`, `a map`, `null`.
  static std::string Describe(const Node& n);

 private:
  bool TypeError(const Node& n, std::string_view want);
  bool EnumError(const Node& n, std::string_view what, std::string_view got,
                 std::span<const std::string_view> names);

  std::string file_;
  Diagnostics& diags_;
  Interner* interner_;
  DecodeOptions opts_;
  std::string path_;
  size_t errors_ = 0;
  size_t unknown_fields_ = 0;
  struct CacheEntry {
    std::string_view text;  // the interner's copy
    Symbol sym;
  };
  std::vector<CacheEntry> cache_;  // direct-mapped, kCacheSize entries (allocated on first use)
};

// Parses RFC 3339 text; false when malformed.
bool ParseRfc3339(std::string_view s, TimePoint& out);
// Parses a Go duration; false when malformed or out of range.
bool ParseGoDuration(std::string_view s, Duration& out);
// The closest of `candidates` to `name` if it is close enough to be a likely typo, else "".
std::string_view Suggest(std::string_view name, std::span<const std::string_view> candidates);

// ---- template implementations -------------------------------------------------------------------

template <class T, size_t N>
FieldsSeen<T> Decoder::Struct(const Node& n, T& out, const doc::Field<T> (&fields)[N],
                              std::span<const std::string_view> ignored) {
  static_assert(N <= 64, "a field table holds at most 64 fields");
  uint64_t bits = 0;
  if (!ExpectMap(n)) return {};
  for (size_t i = 0; i < n.size(); ++i) {
    const Node& key = n.key(i);
    std::string_view name = key.text();
    size_t idx = N;
    for (size_t j = 0; j < N; ++j) {
      if (fields[j].name == name) {
        idx = j;
        break;
      }
    }
    if (idx < N) {
      bits |= uint64_t{1} << idx;
      auto scope = Field(name);
      fields[idx].decode(*this, n.value(i), out);
      continue;
    }
    bool is_ignored = false;
    for (std::string_view ig : ignored) {
      if (ig == name) {
        is_ignored = true;
        break;
      }
    }
    if (is_ignored) continue;
    std::vector<std::string_view> known;
    known.reserve(N + ignored.size());
    for (const auto& f : fields) known.push_back(f.name);
    known.insert(known.end(), ignored.begin(), ignored.end());
    UnknownField(key, known);
  }
  return FieldsSeen<T>(std::span<const doc::Field<T>>(fields), bits);
}

template <class Fn>
void Decoder::ForEachItem(const Node& n, Fn&& fn) {
  if (!ExpectSequence(n)) return;
  std::span<const Node> items = n.items();
  for (size_t i = 0; i < items.size(); ++i) {
    auto scope = Index(i);
    fn(items[i]);
  }
}

template <class Fn>
void Decoder::ForEachEntry(const Node& n, Fn&& fn) {
  if (!ExpectMap(n)) return;
  for (size_t i = 0; i < n.size(); ++i) {
    const Node& key = n.key(i);
    auto scope = Key(key.text());
    fn(key, n.value(i));
  }
}

template <class T, class Fn>
void Decoder::ReadList(const Node& n, std::vector<T>& out, Fn&& fn) {
  if (!ExpectSequence(n)) return;
  out.reserve(out.size() + n.size());
  ForEachItem(n, [&](const Node& item) {
    T value{};
    fn(item, value);
    out.push_back(std::move(value));
  });
}

template <class E>
bool Decoder::ReadEnum(const Node& n, std::span<const EnumName<E>> names, std::string_view what,
                       E& out) {
  std::string_view s;
  if (!ReadString(n, s)) return false;
  for (const auto& e : names) {
    if (e.name == s) {
      out = e.value;
      return true;
    }
  }
  std::vector<std::string_view> want;
  want.reserve(names.size());
  for (const auto& e : names) {
    if (!e.name.empty()) want.push_back(e.name);
  }
  return EnumError(n, what, s, want);
}

}  // namespace corral::doc
