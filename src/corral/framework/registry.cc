#include "corral/framework/registry.h"

#include <fmt/format.h>

namespace corral::framework {

Result<void> Registry::Register(std::string name, PluginFactory factory) {
  if (factories_.contains(name)) {
    return Error::Invalid(fmt::format("a plugin named {} already exists", name));
  }
  factories_.emplace(std::move(name), std::move(factory));
  return {};
}

const PluginFactory* Registry::Find(std::string_view name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : factories_) out.push_back(k);
  return out;
}

}  // namespace corral::framework
