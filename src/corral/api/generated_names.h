#pragma once
// Names the API server and kube's controllers generate, shared by the loader (objects given with
// generateName, claims of ResourceClaimTemplates) and the simulator's controllers.

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace corral::api {

// utilrand's alphabet: no vowels, no 0, 1, 3 (k8s.io/apimachinery/pkg/util/rand).
inline constexpr std::string_view kNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";
// names.MaxGeneratedNameLength: 63 minus the 5 random characters.
inline constexpr size_t kMaxGeneratedNameLength = 58;

// Five characters of kNameAlphabet drawn from the FNV-1a 64 hash of `parts` (concatenated as
// given): the loader's deterministic stand-in for the API server's random suffix.
std::string HashedNameSuffix(std::initializer_list<std::string_view> parts);

// The resourceclaim controller's generateName for a pod's claim from a template: "<pod>-<claim>-",
// both parts cut in proportion when that is longer than 57 characters (then with no trailing
// hyphen: the suffix follows the claim part directly).
std::string ResourceClaimNameBase(std::string_view pod, std::string_view claim);

}  // namespace corral::api
