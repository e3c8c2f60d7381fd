#include "corral/core/interner.h"

#include <algorithm>
#include <cstring>

#include "corral/core/check.h"

namespace corral {

namespace {
constexpr size_t kBlockSize = 64 * 1024;
}  // namespace

Interner::Interner() {
  strings_.emplace_back();
  index_.emplace(std::string_view(), 0);
}

std::string_view Interner::Store(std::string_view s) {
  if (s.size() > kBlockSize / 4) {  // Large strings get a block of their own.
    blocks_.push_back(std::make_unique<char[]>(s.size()));
    std::memcpy(blocks_.back().get(), s.data(), s.size());
    std::string_view out(blocks_.back().get(), s.size());
    // Keep the current small-string block at the end so that it keeps filling.
    if (blocks_.size() >= 2 && block_size_ > 0)
      std::swap(blocks_[blocks_.size() - 1], blocks_[blocks_.size() - 2]);
    return out;
  }
  if (block_size_ - block_used_ < s.size()) {
    blocks_.push_back(std::make_unique<char[]>(kBlockSize));
    block_used_ = 0;
    block_size_ = kBlockSize;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  return {dst, s.size()};
}

Interner::Interner(std::span<const std::string_view> preload) : Interner() {
  for (std::string_view s : preload) Intern(s);
}

Symbol Interner::Intern(std::string_view s) {
  auto it = index_.find(s);
  if (it != index_.end()) return Symbol(it->second);
  CORRAL_CHECK_MSG(strings_.size() < UINT32_MAX, "interner full");
  std::string_view stored = Store(s);
  auto id = static_cast<uint32_t>(strings_.size());
  strings_.push_back(stored);
  index_.emplace(stored, id);
  return Symbol(id);
}

std::optional<Symbol> Interner::Find(std::string_view s) const {
  auto it = index_.find(s);
  if (it == index_.end()) return std::nullopt;
  return Symbol(it->second);
}

}  // namespace corral
