#pragma once
// Parsers that build a doc::Stream (see node.h) from YAML (libyaml) or JSON (simdjson).
//
// Both report every problem they find into `diags`, attributed to `file` with a line, and never
//  abort: - syntax errors: "file:12: YAML syntax error: mapping values are not allowed in this
//    context"; documents completed before the error are kept, the broken one is dropped (and
//    said so);
//  - duplicate map keys: "file:7: metadata.name: duplicate key "name" (first at line 5)"; the first
//    entry is kept;
//  - excessive aliasing ("billion laughs"): the document is dropped with an error.
// The two parsers produce identical trees (kinds, texts, lines) for the same JSON text.

#include <span>
#include <string_view>

#include "corral/core/diagnostics.h"
#include "corral/doc/node.h"

namespace corral::doc {

struct ParseLimits {
  // Maximum nesting depth of containers.
  uint32_t max_depth = 512;
  // Maximum number of nodes reachable through aliases beyond the nodes written out (YAML only).
  uint64_t max_alias_expansion = 1'000'000;
  // JSON only: entries to skip without building nodes, for callers that ignore them anyway (the
  // manifest loader: metadata.managedFields, status.containerStatuses, containers[].env, ...).
  // Saves memory and time on large dumps; skipped values are checked only for JSON structure. YAML
  // keeps everything (a skipped value could hold an anchor used later).
  std::span<const struct DropRule> drop;
};

// Drop the entry `key` of a map when its value is a map or a sequence and the map sits under the
// entry `parent` (the nearest enclosing map key; sequences in between do not count:
// `containers[3].env` has parent "containers").
struct DropRule {
  std::string_view parent;
  std::string_view key;
};

// Parses a YAML stream (one or more `---`-separated documents). Plain scalars resolve as in
// YAML 1.1 / go-yaml v2 (see node.h); merge keys (`<<: *base`) are applied. Copies `text` once into
// the Stream.
Stream ParseYaml(std::string_view text, std::string_view file, Diagnostics& diags,
                 const ParseLimits& limits = {});
// The same, taking ownership of `input` (no copy; see InputBuffer::ReadFile).
Stream ParseYamlAdopt(InputBuffer input, std::string_view file, Diagnostics& diags,
                      const ParseLimits& limits = {});

// Parses one JSON value. Numbers that fit int64 are kInt, others kFloat (text keeps the
// exact spelling).
Stream ParseJson(std::string_view text, std::string_view file, Diagnostics& diags,
                 const ParseLimits& limits = {});
Stream ParseJsonAdopt(InputBuffer input, std::string_view file, Diagnostics& diags,
                      const ParseLimits& limits = {});

// True when `text` looks like JSON (first non-blank byte is `{` or `[`).
bool LooksLikeJson(std::string_view text);

}  // namespace corral::doc
