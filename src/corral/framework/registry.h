#pragma once
// Registry: plugin name → factory (kube's runtime.Registry). In-tree plugins are listed explicitly
// in plugins/registry.cc (NewInTreeRegistry); out-of-tree plugins are added with Register() from
// C++ without editing that file.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"

namespace corral::framework {

using PluginFactory =
    std::function<Result<std::unique_ptr<Plugin>>(const PluginArgs* args, Handle& handle)>;

class Registry {
 public:
  // Error if the name is taken ("a plugin named X already exists").
  Result<void> Register(std::string name, PluginFactory factory);
  const PluginFactory* Find(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, PluginFactory, std::less<>> factories_;
};

}  // namespace corral::framework
