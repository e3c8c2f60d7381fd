// YAML → doc::Stream with libyaml's event API.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <yaml.h>

#include "corral/core/int128.h"
#include "corral/doc/internal/build.h"
#include "corral/doc/internal/scalar.h"
#include "corral/doc/parse.h"

namespace corral::doc {

namespace {

constexpr std::string_view kTagStr = "tag:yaml.org,2002:str";
constexpr std::string_view kTagInt = "tag:yaml.org,2002:int";
constexpr std::string_view kTagFloat = "tag:yaml.org,2002:float";
constexpr std::string_view kTagBool = "tag:yaml.org,2002:bool";
constexpr std::string_view kTagNull = "tag:yaml.org,2002:null";
constexpr std::string_view kTagMerge = "tag:yaml.org,2002:merge";

bool OneOf(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool IsNullText(std::string_view s) {
  return OneOf(s, {"", "~", "null", "Null", "NULL"});
}

// go-yaml v2's boolean spellings (YAML 1.1).
int BoolText(std::string_view s) {
  if (OneOf(s, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) return 1;
  if (OneOf(s, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}))
    return 0;
  return -1;
}

// Resolves a plain scalar's type like go-yaml v2 does. `text` outlives the node.
Node ResolvePlain(std::string_view text, uint32_t line) {
  if (IsNullText(text)) return Node::Null(text, line);
  if (int b = BoolText(text); b >= 0) return Node::Bool(b == 1, text, line);
  if (OneOf(text, {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                   "-.inf", "-.Inf", "-.INF"})) {
    return Node::Float(text, line);
  }
  char c = text[0];
  if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
    int64_t v = 0;
    bool overflow = false;
    if (internal::ParseYamlInt(text, &v, &overflow)) {
      return overflow ? Node::Float(text, line)
                      : Node::Int(text, line);  // too large: keep the spelling
    }
    if (internal::IsYamlFloat(text)) return Node::Float(text, line);
  }
  return Node::String(text, line, Style::kPlain);
}

Style ScalarStyle(yaml_scalar_style_t s) {
  switch (s) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
      return Style::kSingleQuoted;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
      return Style::kDoubleQuoted;
    case YAML_LITERAL_SCALAR_STYLE:
      return Style::kLiteral;
    case YAML_FOLDED_SCALAR_STYLE:
      return Style::kFolded;
    default:
      return Style::kPlain;
  }
}

std::string_view CStr(const yaml_char_t* s) {
  return s == nullptr ? std::string_view()
                      : std::string_view(reinterpret_cast<const char*>(s));  // NOLINT
}

class YamlParser {
 public:
  YamlParser(InputBuffer input, std::string_view file, Diagnostics& diags,
             const ParseLimits& limits)
      : b_(file, diags, limits), text_(b_.AdoptInput(std::move(input))) {}

  Stream Run() {
    yaml_parser_t parser;
    if (yaml_parser_initialize(&parser) == 0) {
      b_.Error(0, "", "cannot initialize the YAML parser");
      return b_.Finish();
    }
    yaml_parser_set_input_string(&parser,
                                 reinterpret_cast<const unsigned char*>(text_.data()),  // NOLINT
                                 text_.size());
    bool done = false;
    while (!done) {
      yaml_event_t ev;
      if (yaml_parser_parse(&parser, &ev) == 0) {
        ReportSyntaxError(parser);
        break;
      }
      done = Handle(ev);
      yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return b_.Finish();
  }

 private:
  // Returns true at the end of the stream.
  bool Handle(const yaml_event_t& ev) {
    const auto line = static_cast<uint32_t>(ev.start_mark.line + 1);
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        return true;
      case YAML_DOCUMENT_START_EVENT:
        anchors_.clear();
        b_.BeginDocument(line);
        break;
      case YAML_DOCUMENT_END_EVENT:
        b_.EndDocument();
        break;
      case YAML_SCALAR_EVENT:
        Scalar(ev, line);
        break;
      case YAML_ALIAS_EVENT:
        Alias(CStr(ev.data.alias.anchor), line);
        break;
      case YAML_SEQUENCE_START_EVENT:
        b_.BeginContainer(
            Kind::kSequence, line,
            ev.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE ? Style::kFlow : Style::kBlock,
            TagOf(CStr(ev.data.sequence_start.tag)), CStr(ev.data.sequence_start.anchor));
        break;
      case YAML_MAPPING_START_EVENT:
        b_.BeginContainer(
            Kind::kMap, line,
            ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE ? Style::kFlow : Style::kBlock,
            TagOf(CStr(ev.data.mapping_start.tag)), CStr(ev.data.mapping_start.anchor));
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        std::string_view anchor;
        Node n;
        uint64_t weight = 0;
        if (b_.EndContainer(&n, &weight, &anchor) && !anchor.empty()) {
          anchors_[std::string(anchor)] = {n, weight};
        }
        break;
      }
      default:
        break;
    }
    return false;
  }

  // The scalar's text as a view of the input when the input spells it verbatim (plain or quoted
  // without escapes or line folding, in the ASCII prefix where libyaml's character index equals the
  // byte offset); otherwise an arena copy.
  std::string_view InInput(std::string_view value, size_t index, yaml_scalar_style_t style) {
    size_t start = index;
    if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE || style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
      ++start;
    } else if (style != YAML_PLAIN_SCALAR_STYLE) {
      start = text_.size();  // block scalars: always copy
    }
    if (start <= text_.size() && value.size() <= text_.size() - start &&
        std::memcmp(text_.data() + start, value.data(), value.size()) == 0) {
      return text_.substr(start, value.size());
    }
    return b_.arena().CopyString(value);
  }

  const char* TagOf(std::string_view tag) {
    if (tag.empty()) return nullptr;
    return b_.arena().CopyString(tag).data();
  }

  void Scalar(const yaml_event_t& ev, uint32_t line) {
    if (b_.broken()) return;
    const auto& sc = ev.data.scalar;
    std::string_view raw(reinterpret_cast<const char*>(sc.value), sc.length);  // NOLINT
    std::string_view text = InInput(raw, ev.start_mark.index, sc.style);
    std::string_view tag = CStr(sc.tag);
    Style style = ScalarStyle(sc.style);
    Node n;
    if (tag.empty()) {
      n = style == Style::kPlain ? ResolvePlain(text, line) : Node::String(text, line, style);
    } else if (tag == "!" || tag == kTagStr) {
      n = Node::String(text, line, style);
      if (tag == kTagStr) n = Node::Tagged(n, tag, b_.arena());
    } else if (tag == kTagInt || tag == kTagFloat || tag == kTagBool || tag == kTagNull) {
      Node r = ResolvePlain(text, line);
      Kind want = tag == kTagInt     ? Kind::kInt
                  : tag == kTagFloat ? Kind::kFloat
                  : tag == kTagBool  ? Kind::kBool
                                     : Kind::kNull;
      if (want == Kind::kFloat && r.kind() == Kind::kInt) {
        r = Node::Float(text, line);
      }
      if (r.kind() != want) {
        b_.Error(line, b_.Path(), fmt::format("cannot decode {:?} as {}", text, tag));
        r = Node::String(text, line, style);
      }
      n = r;
      if (style != Style::kPlain) n = Retyped(n, style);
      n = Node::Tagged(n, tag, b_.arena());
    } else {
      n = Node::String(text, line, style);  // application tag: keep the text, record the tag
      n = Node::Tagged(n, tag, b_.arena());
    }
    if (tag == kTagMerge) n = Node::String(text, line, Style::kPlain);
    b_.AddScalar(n, CStr(sc.anchor));
    if (!CStr(sc.anchor).empty()) anchors_[std::string(CStr(sc.anchor))] = {n, 1};
  }

  static Node Retyped(const Node& n, Style style) {
    switch (n.kind()) {
      case Kind::kBool:
        return Node::Bool(n.bool_value(), n.text(), n.line(), style);
      case Kind::kInt:
        return Node::Int(n.text(), n.line(), style);
      case Kind::kFloat:
        return Node::Float(n.text(), n.line(), style);
      case Kind::kNull:
        return Node::Null(n.text(), n.line(), style);
      default:
        return n;
    }
  }

  void Alias(std::string_view name, uint32_t line) {
    if (b_.broken()) return;
    auto it = anchors_.find(std::string(name));
    if (it == anchors_.end()) {
      b_.Error(line, b_.Path(), fmt::format("unknown anchor {:?} referenced", name));
      b_.AddScalar(Node::Null("", line), {});
      return;
    }
    b_.AddAlias(it->second.first, it->second.second);
  }

  void ReportSyntaxError(const yaml_parser_t& p) {
    std::string msg = fmt::format("YAML syntax error: {}", p.problem ? p.problem : "unknown error");
    if (p.context != nullptr) {
      msg += fmt::format(" ({} at line {})", p.context, p.context_mark.line + 1);
    }
    b_.SyntaxError(static_cast<uint32_t>(p.problem_mark.line + 1), std::move(msg));
  }

  internal::TreeBuilder b_;
  std::string_view text_;
  absl::flat_hash_map<std::string, std::pair<Node, uint64_t>> anchors_;
};

}  // namespace

Stream ParseYaml(std::string_view text, std::string_view file, Diagnostics& diags,
                 const ParseLimits& limits) {
  return YamlParser(InputBuffer::Copy(text), file, diags, limits).Run();
}

Stream ParseYamlAdopt(InputBuffer input, std::string_view file, Diagnostics& diags,
                      const ParseLimits& limits) {
  return YamlParser(std::move(input), file, diags, limits).Run();
}

bool LooksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace corral::doc
