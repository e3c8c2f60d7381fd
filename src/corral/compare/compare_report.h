#pragma once
// The outputs of a comparison, all pure functions of a Comparison (deterministic, byte for byte):
//  - FormatCompareText: the aligned tables printed by `corral compare` and `corral sweep`;
//  - FormatCompareJson: the same content as JSON (`-o json`, schema in docs/output-schema.md);
//  - RenderCompareHtml: a self-contained HTML report (inline CSS and SVG, no script) whose charts
//    overlay the variants on one set of axes, one legend entry (and colour) per variant.

#include <string>

#include "corral/compare/comparison.h"

namespace corral::compare {

std::string FormatCompareText(const Comparison& c);
std::string FormatCompareJson(const Comparison& c);
std::string RenderCompareHtml(const Comparison& c);

}  // namespace corral::compare
