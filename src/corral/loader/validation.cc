#include "corral/loader/validation.h"

#include <fmt/format.h>

namespace corral::loader {

namespace {

bool LowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool Alnum(char c) {
  return LowerAlnum(c) || (c >= 'A' && c <= 'Z');
}

bool IsDns1123LabelText(std::string_view s) {
  if (s.empty() || !LowerAlnum(s.front()) || !LowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!LowerAlnum(c) && c != '-') return false;
  }
  return true;
}

constexpr std::string_view kSubdomainMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com')";
constexpr std::string_view kLabelMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start "
    "and end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
constexpr std::string_view kNameMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric "
    "character (e.g. 'MyName', or 'my.name', or '123-abc')";

bool IsQualifiedNamePart(std::string_view s) {
  if (s.empty() || !Alnum(s.front()) || !Alnum(s.back())) return false;
  for (char c : s) {
    if (!Alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string CheckDns1123Subdomain(std::string_view s) {
  if (s.size() > 253) return "must be no more than 253 characters";
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!IsDns1123LabelText(part)) return std::string(kSubdomainMsg);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return {};
}

std::string CheckDns1123Label(std::string_view s) {
  if (s.size() > 63) return "must be no more than 63 characters";
  if (!IsDns1123LabelText(s)) return std::string(kLabelMsg);
  return {};
}

std::string CheckDns1035Label(std::string_view s) {
  if (s.size() > 63) return "must be no more than 63 characters";
  if (!IsDns1123LabelText(s) || !(s.front() >= 'a' && s.front() <= 'z')) {
    return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
           "an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name', or "
           "'abc-123')";
  }
  return {};
}

std::string CheckQualifiedName(std::string_view s) {
  std::string_view name = s;
  size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    if (s.find('/', slash + 1) != std::string_view::npos) {
      return fmt::format(
          "a qualified name {}, with an optional DNS subdomain prefix and '/' (e.g. "
          "'example.com/MyName')",
          kNameMsg);
    }
    std::string_view prefix = s.substr(0, slash);
    name = s.substr(slash + 1);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (std::string err = CheckDns1123Subdomain(prefix); !err.empty()) return "prefix part " + err;
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  if (!IsQualifiedNamePart(name)) return fmt::format("name part {}", kNameMsg);
  return {};
}

std::string CheckLabelValue(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > 63) return "must be no more than 63 characters";
  if (!IsQualifiedNamePart(s)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
           "or '.', "
           "and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', "
           "or "
           "'12345')";
  }
  return {};
}

bool IsHugePageResourceName(std::string_view name) {
  return name.starts_with("hugepages-");
}

bool IsExtendedResourceName(std::string_view name) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view domain = name.substr(0, slash);
  if (domain == "kubernetes.io" || domain.ends_with(".kubernetes.io")) return false;
  if (name.starts_with("requests.")) return false;
  return CheckQualifiedName("requests." + std::string(name)).empty();
}

bool IsStandardContainerResourceName(std::string_view name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         IsHugePageResourceName(name);
}

}  // namespace corral::loader
