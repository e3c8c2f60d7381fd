#pragma once
// TreeBuilder: the event sink shared by the YAML and JSON parsers. It assembles nodes bottom-up on
// a scratch stack and copies each finished container's children into the arena as one contiguous
// block, checks duplicate keys, applies merge keys, enforces depth and alias limits, and knows the
// field path of the node being built (for messages). Internal to corral/doc.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/core/diagnostics.h"
#include "corral/doc/node.h"
#include "corral/doc/parse.h"

namespace corral::doc::internal {

class TreeBuilder {
 public:
  TreeBuilder(std::string_view file, Diagnostics& diags, const ParseLimits& limits)
      : file_(file), diags_(diags), limits_(limits) {}

  Arena& arena() { return stream_.arena(); }
  // Makes `input` the Stream's input (see Stream::AdoptInput) and returns a view of it.
  std::string_view AdoptInput(InputBuffer input) {
    stream_.AdoptInput(std::move(input));
    return stream_.input();
  }

  void BeginDocument(uint32_t line);
  void EndDocument();
  // `tag` is arena-owned and NUL-terminated, or null.
  void BeginContainer(Kind kind, uint32_t line, Style style, const char* tag,
                      std::string_view anchor);
  // Finishes the innermost container. Returns false when the document is broken (nothing
  // was built).
  bool EndContainer(Node* node, uint64_t* weight, std::string_view* anchor);
  void AddScalar(const Node& n, std::string_view anchor);
  // An alias of a node whose subtree has `weight` nodes (including nested alias expansions).
  void AddAlias(const Node& n, uint64_t weight);

  // An error inside the current document; building continues.
  void Error(uint32_t line, std::string path, std::string message);
  // A fatal error: the document being built is dropped.
  void SyntaxError(uint32_t line, std::string message);
  bool broken() const { return broken_; }

  // The field path of the value being built next, e.g. "spec.containers[2]".
  std::string Path(size_t frames_to_skip = 0) const;

  Stream Finish();

 private:
  struct Frame {
    Kind kind;
    Style style;
    uint32_t line;
    const char* tag;
    std::string_view anchor;  // arena-owned
    size_t child_start;       // index into scratch_
    uint64_t weight;          // 1 + weights of finished children
  };

  void Push(const Node& n, uint64_t weight);
  void CheckKeys(size_t start, size_t count);
  // Applies `<<` merge entries of the map whose entries are scratch_[start..]; may rewrite them.
  void ApplyMerges(size_t start);

  std::string_view file_;
  Diagnostics& diags_;
  ParseLimits limits_;
  Stream stream_;
  std::vector<Frame> frames_;
  std::vector<Node> scratch_;
  std::vector<Node> merge_buf_;
  bool in_document_ = false;
  bool broken_ = false;
  uint64_t alias_expansion_ = 0;
  size_t nodes_ = 0;
};

}  // namespace corral::doc::internal
