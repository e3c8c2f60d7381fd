#include "corral/doc/node.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <fmt/format.h>

#include "corral/core/check.h"
#include "corral/doc/internal/scalar.h"

namespace corral::doc {

namespace {
constexpr size_t kMaxBlock = size_t{8} << 20;
}  // namespace

std::string_view KindName(Kind k) {
  switch (k) {
    case Kind::kNull:
      return "null";
    case Kind::kBool:
      return "boolean";
    case Kind::kInt:
      return "integer";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "string";
    case Kind::kSequence:
      return "sequence";
    case Kind::kMap:
      return "map";
  }
  return "?";
}

std::string_view Node::tag() const {
  if (flags_ & kTagText) return data_ - tag_back_;  // NUL-terminated
  if (flags_ & kTagStd) {
    switch (kind_) {
      case Kind::kBool:
        return "tag:yaml.org,2002:bool";
      case Kind::kInt:
        return "tag:yaml.org,2002:int";
      case Kind::kFloat:
        return "tag:yaml.org,2002:float";
      case Kind::kNull:
        return "tag:yaml.org,2002:null";
      case Kind::kString:
        return "tag:yaml.org,2002:str";
      case Kind::kSequence:
        return "tag:yaml.org,2002:seq";
      case Kind::kMap:
        return "tag:yaml.org,2002:map";
    }
  }
  return {};
}

int64_t Node::int_value() const {
  int64_t v = 0;
  bool overflow = false;
  if (!internal::ParseYamlInt(text(), &v, &overflow) || overflow) return 0;
  return v;
}

double Node::float_value() const {
  return internal::ParseFloat(text());
}

Node Node::Tagged(const Node& n, std::string_view tag, Arena& arena) {
  Node out = n;
  std::string_view standard;
  switch (n.kind_) {
    case Kind::kBool:
      standard = "tag:yaml.org,2002:bool";
      break;
    case Kind::kInt:
      standard = "tag:yaml.org,2002:int";
      break;
    case Kind::kFloat:
      standard = "tag:yaml.org,2002:float";
      break;
    case Kind::kNull:
      standard = "tag:yaml.org,2002:null";
      break;
    case Kind::kString:
      standard = "tag:yaml.org,2002:str";
      break;
    case Kind::kSequence:
      standard = "tag:yaml.org,2002:seq";
      break;
    case Kind::kMap:
      standard = "tag:yaml.org,2002:map";
      break;
  }
  if (tag == standard) {
    out.flags_ |= kTagStd;
    return out;
  }
  // [tag '\0' padding][text or children]: the tag sits tag_back_ bytes before data_.
  size_t head = (tag.size() + 1 + alignof(Node) - 1) & ~(alignof(Node) - 1);
  size_t body = n.is_scalar() ? n.size_
                              : static_cast<size_t>(n.kind_ == Kind::kMap ? 2 * n.size_ : n.size_) *
                                    sizeof(Node);
  auto* p = static_cast<char*>(arena.Allocate(head + body + 1, alignof(Node)));
  std::memcpy(p, tag.data(), tag.size());
  std::memset(p + tag.size(), 0, head - tag.size());
  if (body > 0) std::memcpy(p + head, n.data_, body);
  p[head + body] = '\0';
  out.data_ = p + head;
  out.tag_back_ = static_cast<uint32_t>(head);
  out.flags_ |= kTagText;
  return out;
}

std::span<const Node> Node::items() const {
  CORRAL_DCHECK(is_sequence());
  return {children(), size_};
}

const Node* Node::Find(std::string_view key) const {
  if (kind_ != Kind::kMap) return nullptr;
  const Node* c = children();
  for (uint32_t i = 0; i < size_; ++i) {
    if (c[2 * i].text() == key) return &c[2 * i + 1];
  }
  return nullptr;
}

Node Node::Null(std::string_view text, uint32_t line, Style style) {
  Node n = String(text, line, style);
  n.kind_ = Kind::kNull;
  return n;
}

Node Node::Bool(bool v, std::string_view text, uint32_t line, Style style) {
  Node n = String(text, line, style);
  n.kind_ = Kind::kBool;
  if (v) n.flags_ |= kTrue;
  return n;
}

Node Node::Int(std::string_view text, uint32_t line, Style style) {
  Node n = String(text, line, style);
  n.kind_ = Kind::kInt;
  return n;
}

Node Node::Float(std::string_view text, uint32_t line, Style style) {
  Node n = String(text, line, style);
  n.kind_ = Kind::kFloat;
  return n;
}

Node Node::String(std::string_view text, uint32_t line, Style style) {
  Node n;
  n.kind_ = Kind::kString;
  n.data_ = text.data();
  n.size_ = static_cast<uint32_t>(text.size());
  n.line_ = line;
  n.style_ = style;
  return n;
}

Node Node::Container(Kind kind, const Node* children, uint32_t count, uint32_t line, Style style) {
  CORRAL_DCHECK(kind == Kind::kSequence || kind == Kind::kMap);
  Node n;
  n.kind_ = kind;
  n.data_ = reinterpret_cast<const char*>(children);  // NOLINT
  n.size_ = count;
  n.line_ = line;
  n.style_ = style;
  return n;
}

void Arena::BlockDeleter::operator()(std::byte* p) const {
#ifdef __linux__
  if (mapped) {
    munmap(p, size);
    return;
  }
#endif
  delete[] p;  // NOLINT(cppcoreguidelines-owning-memory): paired with NewBlock
}

std::unique_ptr<std::byte[], Arena::BlockDeleter> Arena::NewBlock(size_t size) {
#ifdef __linux__
  if (size >= kMaxBlock) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) return {static_cast<std::byte*>(p), BlockDeleter{size, true}};
  }
#endif
  return {new std::byte[size],
          BlockDeleter{size, false}};  // NOLINT(cppcoreguidelines-owning-memory)
}

void* Arena::Allocate(size_t bytes, size_t align) {
  auto aligned = [&]() -> std::byte* {
    auto p = reinterpret_cast<uintptr_t>(cur_);  // NOLINT
    uintptr_t a = (p + align - 1) & ~(uintptr_t{align} - 1);
    size_t pad = a - p;
    if (cur_ == nullptr || pad + bytes > left_) return nullptr;
    cur_ += pad + bytes;
    left_ -= pad + bytes;
    return reinterpret_cast<std::byte*>(a);  // NOLINT
  };
  if (std::byte* p = aligned()) return p;
  size_t size = std::max(next_block_, bytes + align);
  next_block_ = std::min(next_block_ * 2, kMaxBlock);
  blocks_.push_back(NewBlock(size));
  total_ += size;
  cur_ = blocks_.back().get();
  left_ = size;
  std::byte* p = aligned();
  CORRAL_CHECK(p != nullptr);
  return p;
}

std::string_view Arena::CopyString(std::string_view s) {
  auto* p = static_cast<char*>(Allocate(s.size() + 1, 1));
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return {p, s.size()};
}

Node* Arena::CopyNodes(std::span<const Node> nodes) {
  if (nodes.empty()) return nullptr;
  auto* p = static_cast<Node*>(Allocate(nodes.size_bytes(), alignof(Node)));
  std::memcpy(static_cast<void*>(p), nodes.data(), nodes.size_bytes());
  return p;
}

namespace {
void Dump(const Node& n, int indent, std::string& out) {
  out.append(static_cast<size_t>(indent) * 2, ' ');
  out += fmt::format("{} {}", n.line(), KindName(n.kind()));
  if (n.is_scalar() && !n.is_null()) {
    out += fmt::format(" {:?}", n.text());
    if (!n.plain()) out += " quoted";
  }
  if (!n.tag().empty()) out += fmt::format(" tag={}", n.tag());
  out += '\n';
  if (n.is_sequence()) {
    for (const Node& c : n.items()) Dump(c, indent + 1, out);
  } else if (n.is_map()) {
    for (size_t i = 0; i < n.size(); ++i) {
      Dump(n.key(i), indent + 1, out);
      Dump(n.value(i), indent + 2, out);
    }
  }
}
}  // namespace

std::string DebugString(const Node& node) {
  std::string out;
  Dump(node, 0, out);
  return out;
}

}  // namespace corral::doc
