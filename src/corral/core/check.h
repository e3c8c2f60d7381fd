#pragma once
// Programmer-error checks. CORRAL_CHECK always aborts with a message; CORRAL_DCHECK only in debug
// builds. A check must never be reachable from user input: bad input is reported through Result<T>.

#include <cstdio>
#include <cstdlib>

namespace corral::internal {
[[noreturn]] inline void CheckFailed(const char* expr, const char* file, int line,
                                     const char* msg) {
  std::fprintf(stderr, "%s:%d: CHECK failed: %s%s%s\n", file, line, expr, msg[0] ? ": " : "", msg);
  std::abort();
}
}  // namespace corral::internal

#define CORRAL_CHECK_MSG(cond, msg)                                               \
  do {                                                                            \
    if (!(cond)) ::corral::internal::CheckFailed(#cond, __FILE__, __LINE__, msg); \
  } while (false)
#define CORRAL_CHECK(cond) CORRAL_CHECK_MSG(cond, "")

#ifdef NDEBUG
#define CORRAL_DCHECK(cond) \
  do {                      \
  } while (false && (cond))
#else
#define CORRAL_DCHECK(cond) CORRAL_CHECK(cond)
#endif
