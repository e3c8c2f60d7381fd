#pragma once
// The message of a load that failed, as `corral schedule` and `corral dispatch` return it.

#include <string>

#include "corral/core/diagnostics.h"

namespace corral::app {

// Every diagnostic of a failed load (its warnings too, in the order they were found), one
// "file:line: path: message" per line.
inline std::string LoadErrorText(const Diagnostics& diags) {
  std::string text;
  for (const Diagnostic& d : diags.items()) {
    if (!text.empty()) text += '\n';
    text += d.ToString();
  }
  return text;
}

}  // namespace corral::app
