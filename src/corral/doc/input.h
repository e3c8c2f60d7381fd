#pragma once
// InputBuffer: the text a parser reads, owned, at a fixed address (views into it survive moves),
// with kPadding readable bytes after its end (simdjson reads ahead). Large inputs live in
// pre-faulted memory (Linux), which is much cheaper to fill than memory faulted in page by page.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "corral/core/result.h"

namespace corral::doc {

namespace internal {
struct InputDeleter {
  size_t mapped = 0;  // bytes mapped with mmap, or 0 for new[]
  void operator()(char* p) const;
};
}  // namespace internal

class InputBuffer {
 public:
  static constexpr size_t kPadding = 64;

  InputBuffer() = default;
  InputBuffer(InputBuffer&&) noexcept = default;
  InputBuffer& operator=(InputBuffer&&) noexcept = default;

  static InputBuffer Copy(std::string_view text);
  // Reads a whole file. Errors: kNotFound (missing), kInvalidInput (unreadable: a
  // directory, permissions).
  static Result<InputBuffer> ReadFile(const std::string& path);

  std::string_view text() const { return {data_.get() + offset_, size_}; }
  // Drops the first n bytes (e.g. a UTF-8 byte order mark). REQUIRES: n <= text().size().
  void RemovePrefix(size_t n) {
    offset_ += n;
    size_ -= n;
  }

 private:
  using Deleter = internal::InputDeleter;
  static InputBuffer Allocate(size_t size);

  std::unique_ptr<char[], Deleter> data_;
  size_t offset_ = 0;
  size_t size_ = 0;
};

}  // namespace corral::doc
