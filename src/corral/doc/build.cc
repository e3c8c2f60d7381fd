#include "corral/doc/internal/build.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace corral::doc::internal {

namespace {
// Key comparison for duplicate detection: most keys of a map differ in length or at their ends.
inline bool SameKey(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         (a.empty() || (a.front() == b.front() && a.back() == b.back() && a == b));
}
}  // namespace

void TreeBuilder::BeginDocument(uint32_t /*line*/) {
  frames_.clear();
  scratch_.clear();
  in_document_ = true;
  broken_ = false;
  alias_expansion_ = 0;
}

void TreeBuilder::EndDocument() {
  if (!in_document_) return;
  in_document_ = false;
  if (broken_ || scratch_.empty()) return;
  stream_.AddDocument(scratch_.front());
}

void TreeBuilder::BeginContainer(Kind kind, uint32_t line, Style style, const char* tag,
                                 std::string_view anchor) {
  if (broken_) return;
  if (frames_.size() >= limits_.max_depth) {
    SyntaxError(line, fmt::format("nesting is deeper than {} levels", limits_.max_depth));
    return;
  }
  if (!anchor.empty()) anchor = arena().CopyString(anchor);
  frames_.push_back({kind, style, line, tag, anchor, scratch_.size(), 1});
}

bool TreeBuilder::EndContainer(Node* node, uint64_t* weight, std::string_view* anchor) {
  if (broken_ || frames_.empty()) return false;
  Frame f = frames_.back();
  size_t n = scratch_.size() - f.child_start;
  if (f.kind == Kind::kMap) {
    if (n % 2 != 0) {  // cannot happen with well-formed events; be defensive
      scratch_.push_back(Node::Null("", f.line));
      ++n;
    }
    ApplyMerges(f.child_start);
    n = scratch_.size() - f.child_start;
    CheckKeys(f.child_start, n / 2);
  }
  const Node* children =
      arena().CopyNodes(std::span<const Node>(scratch_).subspan(f.child_start, n));
  Node c = Node::Container(
      f.kind, children, static_cast<uint32_t>(f.kind == Kind::kMap ? n / 2 : n), f.line, f.style);
  if (f.tag != nullptr) c = Node::Tagged(c, f.tag, arena());
  scratch_.resize(f.child_start);
  frames_.pop_back();
  Push(c, f.weight);
  *node = c;
  *weight = f.weight;
  *anchor = f.anchor;
  return !broken_;
}

void TreeBuilder::AddScalar(const Node& n, std::string_view /*anchor*/) {
  if (broken_) return;
  Push(n, 1);
}

void TreeBuilder::AddAlias(const Node& n, uint64_t weight) {
  if (broken_) return;
  alias_expansion_ += weight;
  if (alias_expansion_ > limits_.max_alias_expansion) {
    SyntaxError(n.line(),
                fmt::format("document contains excessive aliasing (more than {} aliased nodes)",
                            limits_.max_alias_expansion));
    return;
  }
  Push(n, weight);
}

void TreeBuilder::Push(const Node& n, uint64_t weight) {
  ++nodes_;
  if (frames_.empty()) {
    // A document's root. A well-formed event stream has exactly one.
    if (scratch_.empty()) {
      scratch_.push_back(n);
    }
    return;
  }
  Frame& f = frames_.back();
  if (f.kind == Kind::kMap && (scratch_.size() - f.child_start) % 2 == 0 && !n.is_scalar()) {
    Error(n.line(), Path(), "map keys must be scalars");
    scratch_.push_back(Node::String("", n.line(), Style::kPlain));
  } else {
    scratch_.push_back(n);
  }
  f.weight += weight;
}

void TreeBuilder::CheckKeys(size_t start, size_t count) {
  auto key_at = [&](size_t i) -> const Node& { return scratch_[start + 2 * i]; };
  auto report = [&](size_t first, size_t dup) {
    Error(key_at(dup).line(), Path(),
          fmt::format("duplicate key {:?} (first at line {})", key_at(dup).text(),
                      key_at(first).line()));
  };
  // Entries whose keys repeat an earlier key are removed (the first one wins).
  std::vector<bool> drop;
  if (count <= 16) {
    for (size_t i = 1; i < count; ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (SameKey(key_at(i).text(), key_at(j).text())) {
          report(j, i);
          if (drop.empty()) drop.resize(count);
          drop[i] = true;
          break;
        }
      }
    }
  } else {
    std::vector<std::pair<std::string_view, size_t>> keys;
    keys.reserve(count);
    for (size_t i = 0; i < count; ++i) keys.emplace_back(key_at(i).text(), i);
    std::sort(keys.begin(), keys.end());
    for (size_t i = 1; i < keys.size(); ++i) {
      if (keys[i].first == keys[i - 1].first) {
        // keys[i-1] has the smallest index of its run so far (sorted by (text, index)).
        size_t first = i - 1;
        while (first > 0 && keys[first - 1].first == keys[i].first) --first;
        report(keys[first].second, keys[i].second);
        if (drop.empty()) drop.resize(count);
        drop[keys[i].second] = true;
      }
    }
  }
  if (drop.empty()) return;
  size_t out = start;
  for (size_t i = 0; i < count; ++i) {
    if (drop[i]) continue;
    scratch_[out] = scratch_[start + 2 * i];
    scratch_[out + 1] = scratch_[start + 2 * i + 1];
    out += 2;
  }
  scratch_.resize(out);
}

void TreeBuilder::ApplyMerges(size_t start) {
  size_t count = (scratch_.size() - start) / 2;
  bool any = false;
  for (size_t i = 0; i < count && !any; ++i) {
    const Node& k = scratch_[start + 2 * i];
    any = k.plain() && k.is_string() && k.text() == "<<";
  }
  if (!any) return;
  // Explicit entries first, then merged entries whose keys are not present yet (go-yaml semantics:
  // explicit keys win; among merged maps, earlier ones win).
  merge_buf_.clear();
  std::vector<Node> sources;
  for (size_t i = 0; i < count; ++i) {
    const Node& k = scratch_[start + 2 * i];
    const Node& v = scratch_[start + 2 * i + 1];
    if (k.plain() && k.is_string() && k.text() == "<<") {
      if (v.is_map()) {
        sources.push_back(v);
      } else if (v.is_sequence() && std::all_of(v.items().begin(), v.items().end(),
                                                [](const Node& x) { return x.is_map(); })) {
        sources.insert(sources.end(), v.items().begin(), v.items().end());
      } else {
        Error(v.line(), Path(), "merge key `<<` needs a map or a sequence of maps");
      }
      continue;
    }
    merge_buf_.push_back(k);
    merge_buf_.push_back(v);
  }
  for (const Node& src : sources) {
    for (size_t i = 0; i < src.size(); ++i) {
      bool present = false;
      for (size_t j = 0; j < merge_buf_.size(); j += 2) {
        if (merge_buf_[j].text() == src.key(i).text()) {
          present = true;
          break;
        }
      }
      if (!present) {
        merge_buf_.push_back(src.key(i));
        merge_buf_.push_back(src.value(i));
      }
    }
  }
  // Merged nodes are shared, not copied: their weight was already accounted for by the alias.
  scratch_.resize(start);
  for (const Node& n : merge_buf_) {
    scratch_.push_back(n);
  }
}

void TreeBuilder::Error(uint32_t line, std::string path, std::string message) {
  diags_.Error(std::string(file_), line, std::move(path), std::move(message));
}

void TreeBuilder::SyntaxError(uint32_t line, std::string message) {
  diags_.Error(std::string(file_), line, Path(), std::move(message));
  broken_ = true;
}

std::string TreeBuilder::Path(size_t frames_to_skip) const {
  std::string out;
  size_t end = frames_.size() > frames_to_skip ? frames_.size() - frames_to_skip : 0;
  for (size_t i = 0; i < end; ++i) {
    const Frame& f = frames_[i];
    size_t next = i + 1 < frames_.size() ? frames_[i + 1].child_start : scratch_.size();
    size_t n = next - f.child_start;
    if (f.kind == Kind::kSequence) {
      out += fmt::format("[{}]", n);
    } else if (n % 2 == 1) {
      if (!out.empty()) out += '.';
      out += scratch_[next - 1].text();
    } else {
      break;  // building a key
    }
  }
  return out;
}

Stream TreeBuilder::Finish() {
  stream_.CountNodes(nodes_);
  return std::move(stream_);
}

}  // namespace corral::doc::internal
