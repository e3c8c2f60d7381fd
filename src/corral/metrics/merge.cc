#include "corral/metrics/merge.h"

#include <map>

#include <fmt/format.h>

namespace corral::metrics {
namespace {

struct MergedFamily {
  std::string help_and_type;  // the "# HELP" and "# TYPE" lines
  std::string series;
};

// Label values are escaped as the registry escapes them (backslash, quote, newline).
std::string Escape(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// A series line's metric name: up to its labels or its value.
std::string_view SeriesName(std::string_view line) {
  size_t end = line.find_first_of("{ ");
  return line.substr(0, end);
}

}  // namespace

std::string MergePrometheusText(std::string_view label,
                                const std::vector<std::pair<std::string, std::string>>& texts) {
  std::map<std::string, MergedFamily, std::less<>> families;
  for (const auto& [value, text] : texts) {
    const std::string pair = fmt::format("{}=\"{}\"", label, Escape(value));
    MergedFamily* current = nullptr;
    bool seen_before = false;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      std::string_view line(text.data() + pos, nl - pos);
      pos = nl + 1;
      if (line.starts_with("# HELP ")) {
        std::string_view rest = line.substr(7);
        std::string name(rest.substr(0, rest.find(' ')));
        auto [it, inserted] = families.try_emplace(name);
        current = &it->second;
        seen_before = !inserted;
        if (inserted) current->help_and_type = std::string(line) + '\n';
        continue;
      }
      if (current == nullptr) continue;  // not a registry's text: nothing to attach it to
      if (line.starts_with("# TYPE ")) {
        if (!seen_before) current->help_and_type += std::string(line) + '\n';
        continue;
      }
      std::string_view name = SeriesName(line);
      std::string_view tail = line.substr(name.size());
      current->series += name;
      if (tail.starts_with('{')) {
        current->series += '{' + pair + ',';
        current->series += tail.substr(1);
      } else {
        current->series += '{' + pair + '}';
        current->series += tail;
      }
      current->series += '\n';
    }
  }
  std::string out;
  for (const auto& [name, f] : families) out += f.help_and_type + f.series;
  return out;
}

}  // namespace corral::metrics
