#include "test/testing/alloc_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_counting{false};
std::atomic<size_t> g_allocations{0};
}  // namespace

namespace corral::testing {

void BeginCountingAllocations() {
  g_allocations = 0;
  g_counting = true;
}

size_t EndCountingAllocations() {
  g_counting = false;
  return g_allocations;
}

}  // namespace corral::testing

// The replacements live in the same object file as the functions above, so any binary that counts
// allocations links them. GCC's -Wmismatched-new-delete cannot see that malloc/free pair up and
// warns in optimized builds.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(size_t size) {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) std::abort();
  return p;
}
void* operator new[](size_t size) {
  return operator new(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}
