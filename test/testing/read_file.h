#pragma once
// Reads a test input or golden file whole, byte for byte; a missing or unreadable file reads as
// empty (the test's comparison then fails and names the file).

#include <fstream>
#include <sstream>
#include <string>

namespace corral::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace corral::testing
