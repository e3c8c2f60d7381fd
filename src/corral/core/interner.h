#pragma once
// String interning. Every string the scheduler compares on a hot path (label keys and values,
// names, namespaces, taint keys, resource names, images) is interned once at load time into a
// Symbol, a 32-bit id, so that comparisons and hashing are integer operations.
//
// The Interner lives in an explicit context object that is passed to whoever needs it; there is no
// process-global table, so two simulations (or two tests) in one process never share state.

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

namespace corral {

// An interned string. Symbol{} (id 0) is always the empty string. Ordering follows interning order,
// which is deterministic for a deterministic input order; use Interner::Str to order lexically.
class Symbol {
 public:
  constexpr Symbol() = default;
  constexpr explicit Symbol(uint32_t id) : id_(id) {}
  constexpr uint32_t id() const { return id_; }
  constexpr bool empty() const { return id_ == 0; }
  constexpr auto operator<=>(const Symbol&) const = default;

  template <typename H>
  friend H AbslHashValue(H h, Symbol s) {
    return H::combine(std::move(h), s.id_);
  }

 private:
  uint32_t id_ = 0;
};

// Not thread-safe for Intern(); Str() and Find() may run concurrently with each other once
// interning has stopped (the scheduling cycle only reads).
class Interner {
 public:
  Interner();
  // Interns `preload` in order first, so that preload[i] gets Symbol(i + 1): lets callers define
  // constexpr symbols for well-known strings (see corral/api/well_known.h).
  explicit Interner(std::span<const std::string_view> preload);
  Interner(const Interner&) = delete;
  Interner& operator=(const Interner&) = delete;

  // Returns the symbol for `s`, adding it if new. The returned symbol's string stays valid for the
  // lifetime of the Interner.
  Symbol Intern(std::string_view s);
  // Returns the symbol for `s` if it was interned before, without adding it.
  std::optional<Symbol> Find(std::string_view s) const;
  // REQUIRES: `sym` came from this interner.
  std::string_view Str(Symbol sym) const { return strings_[sym.id()]; }
  // Number of distinct strings, including the empty string.
  size_t size() const { return strings_.size(); }

 private:
  std::string_view Store(std::string_view s);

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  std::vector<std::string_view> strings_;
  absl::flat_hash_map<std::string_view, uint32_t> index_;
};

}  // namespace corral
