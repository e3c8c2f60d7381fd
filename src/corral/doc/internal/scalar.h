#pragma once
// Scalar spellings shared by the YAML parser (to resolve plain scalars) and doc::Node (to read
// integer and float values back from their text). Internal to corral/doc.

#include <cstdint>
#include <string_view>

namespace corral::doc::internal {

// An integer as go-yaml v2 reads it: underscores removed, then Go's strconv.ParseInt(s, 0, 64):
// optional sign, 0x/0o/0b/0 (octal) prefixes or decimal. False on a syntax error; *overflow when
// outside int64.
bool ParseYamlInt(std::string_view text, int64_t* out, bool* overflow);
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ after removing underscores (go-yaml v2).
bool IsYamlFloat(std::string_view text);
// The value of a float spelling: YAML's .inf/.nan forms, underscores, or anything strtod reads.
double ParseFloat(std::string_view text);

}  // namespace corral::doc::internal
