#pragma once
// Counting heap allocations in tests of allocation-free hot paths. Linking corral::alloc_counter
// replaces the global operator new/delete of the test binary with malloc/free versions that count
// calls to operator new while counting is on (any thread). Only test binaries that check
// allocation counts link it.

#include <cstddef>

namespace corral::testing {

void BeginCountingAllocations();
// Stops counting; returns the number of allocations since BeginCountingAllocations.
size_t EndCountingAllocations();

// The number of allocations `fn` makes.
template <class F>
size_t Allocations(F&& fn) {
  BeginCountingAllocations();
  fn();
  return EndCountingAllocations();
}

}  // namespace corral::testing
