#include "corral/doc/input.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace corral::doc {

namespace {
constexpr size_t kMapThreshold = size_t{1} << 20;
}  // namespace

void internal::InputDeleter::operator()(char* p) const {
#ifdef __linux__
  if (mapped > 0) {
    munmap(p, mapped);
    return;
  }
#endif
  delete[] p;  // NOLINT(cppcoreguidelines-owning-memory): paired with Allocate
}

InputBuffer InputBuffer::Allocate(size_t size) {
  InputBuffer b;
  size_t total = size + kPadding;
#ifdef __linux__
  if (total >= kMapThreshold) {
    void* p = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) {
      b.data_ = std::unique_ptr<char[], Deleter>(static_cast<char*>(p), Deleter{total});
    }
  }
#endif
  if (!b.data_) b.data_ = std::unique_ptr<char[], Deleter>(new char[total], Deleter{0});  // NOLINT
  std::memset(b.data_.get() + size, ' ', kPadding);
  b.size_ = size;
  return b;
}

InputBuffer InputBuffer::Copy(std::string_view text) {
  InputBuffer b = Allocate(text.size());
  if (!text.empty()) std::memcpy(b.data_.get(), text.data(), text.size());
  return b;
}

Result<InputBuffer> InputBuffer::ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT) return Error::NotFound("no such file or directory");
    return Error::Invalid(fmt::format("cannot read file: {}", std::strerror(e)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::Invalid("cannot read file: not a regular file");
  }
  // Read into a buffer of the stat'ed size; a file that grows meanwhile is read on into a
  // larger one.
  std::string overflow;
  InputBuffer b = Allocate(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (true) {
    char* dst = got < b.size_ ? b.data_.get() + got : nullptr;
    char tmp[1 << 16];
    size_t want = dst != nullptr ? b.size_ - got : sizeof tmp;
    ssize_t n = ::read(fd, dst != nullptr ? dst : tmp, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Error::Invalid(fmt::format("cannot read file: {}", std::strerror(e)));
    }
    if (n == 0) break;
    if (dst == nullptr) overflow.append(tmp, static_cast<size_t>(n));
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (!overflow.empty()) {
    std::string all(b.text());
    all += overflow;
    return Copy(all);
  }
  b.size_ = got;  // the file may have shrunk
  std::memset(b.data_.get() + got, ' ', kPadding);
  return b;
}

}  // namespace corral::doc
