#pragma once
// Flags shared by several subcommands, each checked when it is parsed so that a value Corral cannot
// honour is a usage error (exit 2) naming the flag, never capped or defaulted.

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "corral/doc/decoder.h"
#include "corral/framework/feature_gates.h"

namespace corral::cli {

// `--seed N`: a decimal integer in [0, max]. Text that is not one (a sign, a fraction, trailing
// characters, a value beyond `max`) is rejected with a message that names the allowed range.
inline std::string CheckSeed(const std::string& text, uint64_t max) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ptr != end || ec != std::errc() || value > max) {
    return "must be an integer from 0 to " + std::to_string(max) + ", got " + text;
  }
  return {};
}

template <class T>
CLI::Option* AddSeedOption(CLI::App* app, T& seed, const std::string& description) {
  static_assert(std::numeric_limits<T>::is_integer);
  return app->add_option("--seed", seed, description)->check([](const std::string& v) {
    return CheckSeed(v, static_cast<uint64_t>(std::numeric_limits<T>::max()));
  });
}

// kubectl's `--validate`: what an unknown field in a manifest is. "strict" (or "true"): an error,
// the default; "warn": a warning; "ignore" (or "false"): nothing.
inline CLI::Option* AddValidateOption(CLI::App* app, std::string& value) {
  return app
      ->add_option("--validate", value,
                   "Unknown fields in manifests: strict (an error; default), warn (a warning) or "
                   "ignore, as kubectl's --validate (true means strict, false means ignore)")
      ->check(CLI::IsMember({"strict", "warn", "ignore", "true", "false"}));
}

inline doc::FieldValidation ParseValidate(std::string_view value) {
  if (value == "warn") return doc::FieldValidation::kWarn;
  if (value == "ignore" || value == "false") return doc::FieldValidation::kIgnore;
  return doc::FieldValidation::kStrict;
}

// kube-scheduler's `--emulated-version`: "1.36" or "kube=1.36" (framework::ParseEmulatedVersion),
// v1.34 to v1.37; a bad value is rejected when parsed with kube's message.
inline CLI::Option* AddEmulatedVersionOption(CLI::App* app, std::string& value) {
  return app
      ->add_option("--emulated-version", value,
                   "Emulate kube-scheduler of this version, as kube's --emulated-version: feature "
                   "gates take that version's defaults and locks. X.Y or kube=X.Y, 1.34 to 1.37 "
                   "(default 1.37)")
      ->check([](const std::string& v) -> std::string {
        auto r = framework::ParseEmulatedVersion(v);
        return r.ok() ? std::string() : r.error().message;
      });
}

// The version of a value AddEmulatedVersionOption accepted (the binary's when empty).
inline framework::KubeVersion EmulatedVersion(const std::string& value) {
  auto r = framework::ParseEmulatedVersion(value);
  return r.ok() ? *r : framework::kBinaryVersion;
}

}  // namespace corral::cli
