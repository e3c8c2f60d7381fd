#pragma once
// 128-bit integers for exact intermediate arithmetic (GCC/Clang extension, allowed
// under -Wpedantic).

namespace corral {
__extension__ using Int128 = __int128;
__extension__ using Uint128 = unsigned __int128;
}  // namespace corral
