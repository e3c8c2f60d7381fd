// Fuzzes the manifest loader end to end: the bytes go through the YAML parser and the JSON parser,
// every kind's decoder, admission, and the summary renderers. Any crash, sanitizer report, hang or
// CHECK failure is a bug: bad input must only ever produce diagnostics.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "corral/api/well_known.h"
#include "corral/loader/loader.h"
#include "corral/loader/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  for (auto format : {corral::loader::Format::kYaml, corral::loader::Format::kJson}) {
    for (bool strict : {false, true}) {
      corral::Interner interner = corral::api::NewInterner();
      corral::loader::LoadResult r =
          corral::loader::LoadString(input, "fuzz.yaml", interner, {.strict = strict}, format);
      corral::loader::Summary s = corral::loader::Summarize(r, interner);
      std::string table = corral::loader::RenderTable(s);
      std::string json = corral::loader::RenderJson(s, r.diagnostics);
      if (table.empty() || json.empty()) __builtin_trap();
      for (const auto& d : r.diagnostics.items()) {
        if (d.message.empty()) __builtin_trap();  // every diagnostic says something
      }
      if (strict) continue;
      // Loaded objects are valid: names are set, namespaced kinds have a namespace.
      for (const auto& p : r.objects.pods) {
        if (p.meta.name.empty() || p.meta.namespace_.empty() || p.scheduler_name.empty())
          __builtin_trap();
      }
      for (const auto& n : r.objects.nodes) {
        if (n.meta.name.empty()) __builtin_trap();
      }
    }
  }
  return 0;
}
