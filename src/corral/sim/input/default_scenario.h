#pragma once
// The built-in scenario `corral simulate` runs without arguments. Its text is
// examples/scenarios/default.yaml, compiled into the binary at build time (a test checks that the
// two are identical).

#include <string_view>

namespace corral::sim {

std::string_view DefaultScenarioYaml();

}  // namespace corral::sim
