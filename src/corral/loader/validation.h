#pragma once
// Kubernetes name and label validation (k8s.io/apimachinery/pkg/util/validation). Each check
// returns "" when the value is valid, or the reason it is not, phrased like kube's messages.

#include <string>
#include <string_view>

namespace corral::loader {

// DNS-1123 subdomain: object names of most kinds (Pod, Node, PriorityClass, ...).
std::string CheckDns1123Subdomain(std::string_view s);
// DNS-1123 label: namespace names, pod group and template names.
std::string CheckDns1123Label(std::string_view s);
// DNS-1035 label: Service names.
std::string CheckDns1035Label(std::string_view s);
// Qualified name ([prefix/]name): label keys, taint keys, topology keys, resource names.
std::string CheckQualifiedName(std::string_view s);
// Label value: empty or up to 63 alphanumerics, '-', '_', '.', alphanumeric at both ends.
std::string CheckLabelValue(std::string_view s);

// Resource name classes (k8s.io/kubernetes/pkg/apis/core/helper).
bool IsHugePageResourceName(std::string_view name);
// Has a domain prefix outside kubernetes.io and is not native: nvidia.com/gpu, example.com/foo.
bool IsExtendedResourceName(std::string_view name);
// cpu, memory, ephemeral-storage, hugepages-<size>.
bool IsStandardContainerResourceName(std::string_view name);

}  // namespace corral::loader
