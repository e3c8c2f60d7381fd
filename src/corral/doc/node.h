#pragma once
// The document tree: a compact, read-only tree of YAML or JSON values, shared by every loader of
// structured input (Kubernetes manifests, KubeSchedulerConfiguration, scenarios,
// scheduler_perf configs).
//
// Contract:
//  (1) A `Stream` owns everything: its input text, all nodes, all strings (most scalar texts point
//      into the input; unescaped or rewritten ones live in an arena). Nodes, `text()` views and
//      child spans stay valid exactly as long as their Stream; a Stream is movable (views survive
//      the move), never copyable.
//  (2) A Node is 24 bytes and trivially copyable. Containers point at contiguous child arrays: a
//      sequence at its items, a map at alternating key/value nodes. Map entries keep input order.
//  (3) Scalars keep their text and how they were written. `text()` is the unescaped scalar text
//      (for JSON numbers and plain YAML scalars, the source spelling). `kind()` is the resolved
//      type: YAML plain scalars resolve like sigs.k8s.io/yaml (go-yaml v2, YAML 1.1):
//      `yes`/`on`/`y` are booleans, `~` is null, `0x1f` an integer. Quoted scalars are always
//      strings, so `"1"` (kString, quoted) and `1` (kInt, plain) differ, and a decoder can say "got
//      boolean yes" instead of guessing.
//  (4) Every node has the 1-based line where it starts in its input (the line of a map's first key
//      for block maps, of `{` / `[` for flow maps and sequences and for JSON).
//  (5) Aliases are resolved when the tree is built: an alias node is a copy of the anchored node
//      and shares its children. The tree is therefore a DAG, never cyclic.
//  (6) Building a tree never aborts on bad input: syntax errors and duplicate keys go
//  to `Diagnostics`.
//
// Thread-safety: a finished Stream is immutable and may be read from any number of threads.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/doc/input.h"

namespace corral::doc {

enum class Kind : uint8_t { kNull, kBool, kInt, kFloat, kString, kSequence, kMap };

// How a scalar was written. JSON strings are kDoubleQuoted; JSON numbers, booleans and null
// are kPlain.
enum class Style : uint8_t {
  kPlain,
  kSingleQuoted,
  kDoubleQuoted,
  kLiteral,
  kFolded,
  kFlow,
  kBlock
};

// "null", "boolean", "integer", "float", "string", "sequence", "map".
std::string_view KindName(Kind k);

class Node {
 public:
  Node() = default;

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_scalar() const { return kind_ < Kind::kSequence; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }
  uint32_t line() const { return line_; }
  Style style() const { return style_; }
  // True for a scalar written without quotes (YAML plain, or a JSON number/true/false/null).
  bool plain() const { return style_ == Style::kPlain; }

  // Scalar text (see contract 3), e.g. "~" for a null written as `~`. Empty for containers.
  std::string_view text() const {
    return is_scalar() ? std::string_view(data_, size_) : std::string_view();
  }
  // The explicit YAML tag (e.g. "tag:yaml.org,2002:str", "!custom"), or "" when the node had none.
  std::string_view tag() const;

  // REQUIRES: kind() == kBool / kInt / kFloat respectively. Numbers are read from text() on each
  // call (cheap: they are short), which keeps nodes small; YAML spellings such as 0x1F, 1_000,
  // .inf work.
  bool bool_value() const { return (flags_ & kTrue) != 0; }
  int64_t int_value() const;
  double float_value() const;

  // Sequences: items; maps: number of entries. 0 for scalars.
  size_t size() const { return is_scalar() ? 0 : size_; }
  bool empty() const { return size() == 0; }
  // REQUIRES: is_sequence().
  std::span<const Node> items() const;
  // REQUIRES: is_map(). Entry i is (key(i), value(i)).
  const Node& key(size_t i) const { return children()[2 * i]; }
  const Node& value(size_t i) const { return children()[2 * i + 1]; }
  // The value of the first entry whose key text is `key`, or nullptr (also for non-maps).
  const Node* Find(std::string_view key) const;

  // Construction, used by the parsers (and by tests that build trees by hand). Texts (and children)
  // must outlive the node. Int/Float texts must be spellings that int_value()/float_value() read.
  static Node Null(std::string_view text, uint32_t line, Style style = Style::kPlain);
  static Node Bool(bool v, std::string_view text, uint32_t line, Style style = Style::kPlain);
  static Node Int(std::string_view text, uint32_t line, Style style = Style::kPlain);
  static Node Float(std::string_view text, uint32_t line, Style style = Style::kPlain);
  static Node String(std::string_view text, uint32_t line, Style style);
  static Node Container(Kind kind, const Node* children, uint32_t count, uint32_t line,
                        Style style);
  // Returns `n` with an explicit tag. The standard tag of its kind (!!int on an integer, ...) is a
  // flag; any other tag is stored in `arena` together with a copy of the text or children.
  static Node Tagged(const Node& n, std::string_view tag, class Arena& arena);

 private:
  static constexpr uint8_t kTrue = 1;    // bool value
  static constexpr uint8_t kTagStd = 2;  // the standard tag of kind()
  static constexpr uint8_t kTagText =
      4;  // a NUL-terminated tag is stored tag_back_ bytes before data_
  const Node* children() const { return reinterpret_cast<const Node*>(data_); }  // NOLINT

  const char* data_ = nullptr;  // scalar text, or the child array of a container
  uint32_t size_ = 0;           // text length, or item/entry count
  uint32_t line_ = 0;
  Kind kind_ = Kind::kNull;
  Style style_ = Style::kPlain;
  uint8_t flags_ = 0;
  uint32_t tag_back_ = 0;
};
static_assert(sizeof(Node) == 24, "doc::Node must stay compact");

// A bump allocator for nodes and strings. Never frees individual allocations.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) = default;
  Arena& operator=(Arena&&) = default;

  void* Allocate(size_t bytes, size_t align);
  // Copies `s` and appends a NUL (so that it can also serve as a C string).
  std::string_view CopyString(std::string_view s);
  Node* CopyNodes(std::span<const Node> nodes);
  size_t bytes_allocated() const { return total_; }

 private:
  // Large blocks are mapped pre-faulted (Linux), which is much cheaper than faulting them in page
  // by page.
  struct BlockDeleter {
    size_t size = 0;
    bool mapped = false;
    void operator()(std::byte* p) const;
  };
  static std::unique_ptr<std::byte[], BlockDeleter> NewBlock(size_t size);
  std::vector<std::unique_ptr<std::byte[], BlockDeleter>> blocks_;
  std::byte* cur_ = nullptr;
  size_t left_ = 0;
  size_t next_block_ = 4096;
  size_t total_ = 0;
};

// The result of parsing one input: zero or more documents (YAML `---` streams; JSON has one).
class Stream {
 public:
  Stream() = default;
  Stream(Stream&&) = default;
  Stream& operator=(Stream&&) = default;

  // Root nodes, one per document, in input order. Empty documents are kept as null roots.
  std::span<const Node> documents() const { return docs_; }
  size_t node_count() const { return node_count_; }
  Arena& arena() { return arena_; }
  // The input text, as parsed (scalar texts may point into it).
  std::string_view input() const { return input_.text(); }

  // Used by the parsers.
  void AddDocument(const Node& root) { docs_.push_back(root); }
  void CountNodes(size_t n) { node_count_ += n; }
  // Takes `input` as the input text (scalar views may point into it).
  void AdoptInput(InputBuffer input) { input_ = std::move(input); }

 private:
  InputBuffer input_;
  Arena arena_;
  std::vector<Node> docs_;
  size_t node_count_ = 0;
};

// A canonical one-line-per-node dump ("<line> <kind> <text>" with indentation), for tests
// and debugging.
std::string DebugString(const Node& node);

}  // namespace corral::doc
