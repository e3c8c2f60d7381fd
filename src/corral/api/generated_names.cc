#include "corral/api/generated_names.h"

#include <cstdint>

#include <fmt/format.h>

namespace corral::api {

std::string HashedNameSuffix(std::initializer_list<std::string_view> parts) {
  uint64_t h = 1469598103934665603ULL;
  for (std::string_view s : parts) {
    for (char c : s) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ULL;
    }
  }
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kNameAlphabet[h % kNameAlphabet.size()];
    h /= kNameAlphabet.size();
  }
  return out;
}

std::string ResourceClaimNameBase(std::string_view pod, std::string_view claim) {
  std::string base = fmt::format("{}-{}-", pod, claim);
  constexpr size_t kMaxBaseLen = 57;
  if (base.size() > kMaxBaseLen) {
    const size_t len = base.size();
    base = fmt::format("{}-{}", pod.substr(0, pod.size() * kMaxBaseLen / len),
                       claim.substr(0, claim.size() * kMaxBaseLen / len));
  }
  return base;
}

}  // namespace corral::api
