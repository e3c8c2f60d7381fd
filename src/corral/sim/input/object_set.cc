#include "corral/sim/input/object_set.h"

#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "corral/loader/loader.h"

namespace corral::sim {

namespace {
// Diagnostics::Add does not count errors; go through Error/Warning.
void Report(Diagnostics& diags, Diagnostic d) {
  if (d.severity == Severity::kError) {
    diags.Error(std::move(d.file), d.line, std::move(d.path), std::move(d.message));
  } else {
    diags.Warning(std::move(d.file), d.line, std::move(d.path), std::move(d.message));
  }
}
// Embedded pieces are named "\x1fobject-<k>" for the loader; the marker cannot occur in a
// real path.
constexpr std::string_view kMarker = "\x1fobject-";
}  // namespace

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string NodeToJson(const doc::Node& n) {
  switch (n.kind()) {
    case doc::Kind::kNull:
      return "null";
    case doc::Kind::kBool:
      return n.bool_value() ? "true" : "false";
    case doc::Kind::kInt:
      return std::to_string(n.int_value());
    case doc::Kind::kFloat: {
      double v = n.float_value();
      if (!std::isfinite(v)) return "null";
      return fmt::format("{}", v);
    }
    case doc::Kind::kString:
      return JsonString(n.text());
    case doc::Kind::kSequence: {
      std::string out = "[";
      bool first = true;
      for (const doc::Node& item : n.items()) {
        if (!first) out += ',';
        first = false;
        out += NodeToJson(item);
      }
      return out + "]";
    }
    case doc::Kind::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < n.size(); ++i) {
        if (i > 0) out += ',';
        out += JsonString(n.key(i).text());
        out += ':';
        out += NodeToJson(n.value(i));
      }
      return out + "}";
    }
  }
  return "null";
}

const doc::Node* WalkPath(const doc::Node* root, std::string_view path) {
  const doc::Node* cur = root;
  size_t i = 0;
  while (cur != nullptr && i < path.size()) {
    std::string_view seg;
    if (path[i] == '.') {
      size_t j = i + 1;
      while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
      seg = path.substr(i + 1, j - i - 1);
      i = j;
    } else if (path[i] == '[') {
      size_t j = path.find(']', i);
      if (j == std::string_view::npos) break;
      seg = path.substr(i + 1, j - i - 1);
      i = j + 1;
    } else {
      size_t j = i;
      while (j < path.size() && path[j] != '.' && path[j] != '[') ++j;
      seg = path.substr(i, j - i);
      i = j;
    }
    const doc::Node* next = nullptr;
    if (cur->is_map()) {
      next = cur->Find(seg);
    } else if (cur->is_sequence()) {
      size_t idx = 0;
      bool ok = !seg.empty();
      for (char c : seg) {
        if (c < '0' || c > '9') {
          ok = false;
          break;
        }
        idx = idx * 10 + static_cast<size_t>(c - '0');
      }
      if (ok && idx < cur->size()) next = &cur->items()[idx];
    }
    if (next == nullptr) break;
    cur = next;
  }
  return cur;
}

struct Piece {
  std::vector<PathMapping> mappings;
  uint32_t fallback_line = 0;
  std::string internal_name, display;
};

class ObjectBuilder::Impl {
 public:
  Impl(Interner& in, std::string file, bool strict, bool controllers)
      : loader_(in, loader::LoadOptions{.strict = strict, .controllers = controllers}),
        file_(std::move(file)) {}

  size_t Add(std::string json, std::vector<PathMapping> mappings, uint32_t fallback_line,
             std::string internal = {}, std::string display = {}) {
    std::string name = fmt::format("{}{}", kMarker, pieces_.size());
    pieces_.push_back(
        {std::move(mappings), fallback_line, std::move(internal), std::move(display)});
    loader_.AddString(json, name, loader::Format::kJson);
    return pieces_.size() - 1;
  }

  api::ObjectSet Finish(Diagnostics& diags) {
    loader::LoadResult r = loader_.Finish();
    std::set<std::tuple<std::string, uint32_t, std::string, std::string>>
        seen;  // one report per problem
    for (const Diagnostic& d : r.diagnostics.items()) {
      if (!std::string_view(d.file).starts_with(kMarker)) {
        Report(diags, d);
        continue;
      }
      size_t k = std::stoul(d.file.substr(kMarker.size()));
      const Piece& p = pieces_[k];
      // Longest mapped prefix of the diagnostic's path.
      const PathMapping* best = nullptr;
      for (const auto& m : p.mappings) {
        const std::string& pre = m.json_prefix;
        bool match =
            pre.empty() || d.path == pre ||
            (d.path.starts_with(pre) && (d.path[pre.size()] == '.' || d.path[pre.size()] == '['));
        if (match && (best == nullptr || pre.size() > best->json_prefix.size())) best = &m;
      }
      Diagnostic out = d;
      out.file = file_;
      out.line = p.fallback_line;
      if (!p.internal_name.empty()) {
        for (size_t pos; (pos = out.message.find(p.internal_name)) != std::string::npos;) {
          out.message.replace(pos, p.internal_name.size(), p.display);
        }
      }
      if (best != nullptr && best->source != nullptr) {
        std::string_view rest = std::string_view(d.path).substr(best->json_prefix.size());
        const doc::Node* at = WalkPath(best->source, rest);
        out.line = at != nullptr ? at->line() : best->source->line();
        std::string path = best->source_path;
        if (!rest.empty()) {
          if (path.empty() && rest.front() == '.') rest.remove_prefix(1);
          if (!path.empty() && rest.front() != '.' && rest.front() != '[') path += '.';
          path += rest;
        }
        out.path = path;
      } else if (best != nullptr) {
        out.path = best->source_path;
      }
      if (!seen.insert({out.file, out.line, out.path, out.message}).second) continue;
      Report(diags, std::move(out));
    }
    controllers_ = std::move(r.controllers);
    return std::move(r.objects);
  }

  loader::Loader loader_;
  std::vector<api::Controller> controllers_;
  std::string file_;
  std::vector<Piece> pieces_;
};

ObjectBuilder::ObjectBuilder(Interner& interner, std::string file, bool strict, bool controllers)
    : impl_(std::make_unique<Impl>(interner, std::move(file), strict, controllers)) {}
std::vector<api::Controller> ObjectBuilder::TakeControllers() {
  return std::move(impl_->controllers_);
}
ObjectBuilder::~ObjectBuilder() = default;
size_t ObjectBuilder::Add(std::string json, std::vector<PathMapping> mappings,
                          uint32_t fallback_line) {
  return impl_->Add(std::move(json), std::move(mappings), fallback_line);
}
size_t ObjectBuilder::Add(std::string json, std::vector<PathMapping> mappings,
                          uint32_t fallback_line, std::string internal_name, std::string display) {
  return impl_->Add(std::move(json), std::move(mappings), fallback_line, std::move(internal_name),
                    std::move(display));
}
std::optional<size_t> ObjectBuilder::PieceOf(const Interner& interner,
                                             const api::ObjectMeta& meta) {
  std::string_view f = interner.Str(meta.source.file);
  if (!f.starts_with(kMarker)) return std::nullopt;
  size_t k = 0;
  for (char c : f.substr(kMarker.size())) k = k * 10 + static_cast<size_t>(c - '0');
  return k;
}
void ObjectBuilder::AddPath(const std::string& path) {
  impl_->loader_.AddPath(path);
}
api::ObjectSet ObjectBuilder::Finish(Diagnostics& diags) {
  return impl_->Finish(diags);
}

}  // namespace corral::sim
