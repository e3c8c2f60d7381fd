// JSON → doc::Stream with simdjson's On-Demand API (error codes only, no exceptions). Line numbers
// come from token positions, counted incrementally: tokens are visited in input order, so the
// newline count is one forward scan over the input in total.

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "corral/doc/internal/build.h"
#include "corral/doc/parse.h"

namespace corral::doc {

namespace {

namespace od = simdjson::ondemand;

class LineCounter {
 public:
  LineCounter(const char* begin, const char* end) : pos_(begin), end_(end) {}
  uint32_t At(const char* p) {
    if (p < pos_ || p > end_)
      return line_;  // not monotonic (should not happen): keep the last line
    while (pos_ < p) {
      const void* nl = std::memchr(pos_, '\n', static_cast<size_t>(p - pos_));
      if (nl == nullptr) {
        pos_ = p;
        break;
      }
      ++line_;
      pos_ = static_cast<const char*>(nl) + 1;
    }
    return line_;
  }
  uint32_t line() const { return line_; }

 private:
  const char* pos_;
  const char* end_;
  uint32_t line_ = 1;
};

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// A JSON string token (with its quotes, maybe trailing blanks) whose content needs no unescaping:
// the content, pointing into the input. Empty optional when it has escapes or control characters.
bool PlainJsonString(std::string_view tok, std::string_view* out) {
  tok = TrimRight(tok);
  if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return false;
  std::string_view inner = tok.substr(1, tok.size() - 2);
  for (char c : inner) {
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
  }
  *out = inner;
  return true;
}

class JsonParser {
 public:
  JsonParser(InputBuffer input, std::string_view file, Diagnostics& diags,
             const ParseLimits& limits)
      : b_(file, diags, limits),
        input_(b_.AdoptInput(std::move(input))),
        padded_(input_.data(), input_.size(), input_.size() + simdjson::SIMDJSON_PADDING),
        lines_(input_.data(), input_.data() + input_.size()),
        limits_(limits),
        drop_(GroupRules(limits.drop)) {}

  Stream Run() {
    od::document doc;
    if (auto err = parser_.iterate(padded_).get(doc); err) {
      Fail(err, nullptr);
      return b_.Finish();
    }
    b_.BeginDocument(1);
    bool scalar = false;
    if (auto err = doc.is_scalar().get(scalar); err) {
      Fail(err, nullptr);
      return b_.Finish();
    }
    bool ok;
    if (scalar) {
      ok = RootScalar(doc);
    } else {
      od::value root;
      if (auto err = doc.get_value().get(root); err) {
        Fail(err, nullptr);
        return b_.Finish();
      }
      ok = Value(root, 0, {});
    }
    const char* trailing = nullptr;
    if (ok && doc.current_location().get(trailing) == simdjson::SUCCESS) {
      lines_.At(trailing);
      b_.SyntaxError(lines_.line(),
                     "JSON syntax error: unexpected content after the top-level value");
    }
    b_.EndDocument();
    return b_.Finish();
  }

 private:
  void Fail(simdjson::error_code err, const char* at) {
    if (at != nullptr) lines_.At(at);
    if (!b_.broken()) {
      b_.SyntaxError(lines_.line(),
                     fmt::format("JSON syntax error: {}", simdjson::error_message(err)));
    }
  }

  uint32_t LineOf(std::string_view token) { return lines_.At(token.data()); }

  bool RootScalar(od::document& doc) {
    std::string_view tok;
    if (auto err = doc.raw_json_token().get(tok); err) {
      Fail(err, nullptr);
      return false;
    }
    uint32_t line = LineOf(tok);
    od::json_type t;
    if (auto err = doc.type().get(t); err) {
      Fail(err, tok.data());
      return false;
    }
    switch (t) {
      case od::json_type::string: {
        std::string_view s;
        if (auto err = doc.get_string().get(s); err) return Fail(err, tok.data()), false;
        b_.AddScalar(Node::String(b_.arena().CopyString(s), line, Style::kDoubleQuoted), {});
        return true;
      }
      case od::json_type::boolean: {
        bool v = false;
        if (auto err = doc.get_bool().get(v); err) return Fail(err, tok.data()), false;
        b_.AddScalar(Node::Bool(v, v ? "true" : "false", line), {});
        return true;
      }
      case od::json_type::null:
        b_.AddScalar(Node::Null("null", line), {});
        return true;
      case od::json_type::number: {
        std::string_view text = b_.arena().CopyString(TrimRight(tok));
        int64_t i = 0;
        if (doc.get_int64().get(i) == simdjson::SUCCESS) {
          b_.AddScalar(Node::Int(text, line), {});
        } else {
          b_.AddScalar(Node::Float(text, line), {});
        }
        return true;
      }
      default:
        return false;
    }
  }

  // `context`: the key of the nearest enclosing map entry (for drop rules).
  bool Value(od::value v, uint32_t depth, std::string_view context) {
    std::string_view tok = v.raw_json_token();
    uint32_t line = LineOf(tok);
    od::json_type t;
    if (auto err = v.type().get(t); err) return Fail(err, tok.data()), false;
    switch (t) {
      case od::json_type::object: {
        if (depth >= limits_.max_depth) {
          b_.SyntaxError(line, fmt::format("nesting is deeper than {} levels", limits_.max_depth));
          return false;
        }
        od::object obj;
        if (auto err = v.get_object().get(obj); err) return Fail(err, tok.data()), false;
        b_.BeginContainer(Kind::kMap, line, Style::kFlow, nullptr, {});
        const DropGroup* drop = DropGroupFor(context);
        for (auto field_result : obj) {
          od::field field;
          if (auto err = std::move(field_result).get(field); err) return Fail(err, nullptr), false;
          const char* key_raw = reinterpret_cast<const char*>(field.key().raw());  // NOLINT
          uint32_t key_line = lines_.At(key_raw);
          std::string_view key = PlainKey(key_raw);
          if (key.data() == nullptr) {  // escapes: let simdjson unescape it
            if (auto err = field.unescaped_key().get(key); err) return Fail(err, key_raw), false;
            key = b_.arena().CopyString(key);
          }
          od::value value = field.value();
          if (drop != nullptr && Dropped(*drop, key, value)) continue;  // on-demand skips the value
          b_.AddScalar(Node::String(key, key_line, Style::kDoubleQuoted), {});
          if (!Value(value, depth + 1, key)) return false;
        }
        return Close();
      }
      case od::json_type::array: {
        if (depth >= limits_.max_depth) {
          b_.SyntaxError(line, fmt::format("nesting is deeper than {} levels", limits_.max_depth));
          return false;
        }
        od::array arr;
        if (auto err = v.get_array().get(arr); err) return Fail(err, tok.data()), false;
        b_.BeginContainer(Kind::kSequence, line, Style::kFlow, nullptr, {});
        for (auto item_result : arr) {
          od::value item;
          if (auto err = std::move(item_result).get(item); err) return Fail(err, nullptr), false;
          if (!Value(item, depth + 1, context)) return false;
        }
        return Close();
      }
      case od::json_type::string: {
        std::string_view s;
        if (!PlainJsonString(tok, &s)) {
          if (auto err = v.get_string().get(s); err) return Fail(err, tok.data()), false;
          s = b_.arena().CopyString(s);
        }
        b_.AddScalar(Node::String(s, line, Style::kDoubleQuoted), {});
        return true;
      }
      case od::json_type::number: {
        std::string_view text = TrimRight(tok);
        od::number_type nt{};
        if (v.get_number_type().get(nt) == simdjson::SUCCESS &&
            nt == od::number_type::signed_integer) {
          int64_t i = 0;
          if (auto err = v.get_int64().get(i); err) return Fail(err, tok.data()), false;
          b_.AddScalar(Node::Int(text, line), {});
          return true;
        }
        double d = 0;
        if (v.get_double().get(d) != simdjson::SUCCESS) {
          // Integers beyond 64 bits: keep the exact spelling; the value is approximate.
          char* end = nullptr;
          d = std::strtod(text.data(), &end);
          if (end != text.data() + text.size()) {
            b_.SyntaxError(line, fmt::format("JSON syntax error: invalid number {}", text));
            return false;
          }
        }
        b_.AddScalar(Node::Float(text, line), {});
        return true;
      }
      case od::json_type::boolean: {
        bool b = false;
        if (auto err = v.get_bool().get(b); err) return Fail(err, tok.data()), false;
        b_.AddScalar(Node::Bool(b, b ? "true" : "false", line), {});
        return true;
      }
      case od::json_type::null: {
        bool is_null = false;
        if (auto err = v.is_null().get(is_null); err || !is_null) {
          return Fail(err ? err : simdjson::N_ATOM_ERROR, tok.data()), false;
        }
        b_.AddScalar(Node::Null("null", line), {});
        return true;
      }
    }
    return false;
  }

  // The drop rules grouped by parent key, so that a map looks its parent up once, not per entry.
  struct DropGroup {
    std::string_view parent;
    std::vector<std::string_view> keys;
  };

  static std::vector<DropGroup> GroupRules(std::span<const DropRule> rules) {
    std::vector<DropGroup> groups;
    for (const DropRule& r : rules) {
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const DropGroup& g) { return g.parent == r.parent; });
      if (it == groups.end()) it = groups.insert(groups.end(), DropGroup{r.parent, {}});
      it->keys.push_back(r.key);
    }
    return groups;
  }

  const DropGroup* DropGroupFor(std::string_view context) const {
    for (const DropGroup& g : drop_) {
      if (g.parent == context) return &g;
    }
    return nullptr;
  }

  static bool Dropped(const DropGroup& g, std::string_view key, od::value& value) {
    for (std::string_view k : g.keys) {
      if (k.size() == key.size() && k.front() == key.front() && k == key) {
        od::json_type t;
        return value.type().get(t) == simdjson::SUCCESS &&
               (t == od::json_type::object || t == od::json_type::array);
      }
    }
    return false;
  }

  // The key starting at `p` (just after its opening quote) when it has no escapes; {} otherwise.
  std::string_view PlainKey(const char* p) const {
    const char* end = input_.data() + input_.size();
    for (const char* q = p; q < end; ++q) {
      if (*q == '"') return {p, static_cast<size_t>(q - p)};
      if (*q == '\\' || static_cast<unsigned char>(*q) < 0x20) return {};
    }
    return {};
  }

  bool Close() {
    Node n;
    uint64_t w = 0;
    std::string_view anchor;
    return b_.EndContainer(&n, &w, &anchor);
  }

  internal::TreeBuilder b_;
  std::string_view input_;
  simdjson::padded_string_view padded_;
  LineCounter lines_;
  ParseLimits limits_;
  std::vector<DropGroup> drop_;
  od::parser parser_;
};

}  // namespace

Stream ParseJson(std::string_view text, std::string_view file, Diagnostics& diags,
                 const ParseLimits& limits) {
  return JsonParser(InputBuffer::Copy(text), file, diags, limits).Run();
}

Stream ParseJsonAdopt(InputBuffer input, std::string_view file, Diagnostics& diags,
                      const ParseLimits& limits) {
  static_assert(InputBuffer::kPadding >= simdjson::SIMDJSON_PADDING);
  return JsonParser(std::move(input), file, diags, limits).Run();
}

}  // namespace corral::doc
