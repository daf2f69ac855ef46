// Finding and loading the libtorch plugin (torch_plugin.hpp).
#include "algorithms/learning/torch_plugin.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

using AbiEntry = int (*)();

struct Plugin {
  TorchPluginEntry make = nullptr;
  std::string error;  // why it could not be loaded
};

#ifdef SGDSIM_TORCH_PLUGIN
// Beside the executable first (a copied or installed build), then where CMake built it (tests and benchmarks
// run from their own folders of the build tree).
std::vector<std::string> candidates() {
  std::vector<std::string> paths;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) paths.push_back((self.parent_path() / SGDSIM_TORCH_PLUGIN_NAME).string());
  paths.emplace_back(SGDSIM_TORCH_PLUGIN);
  return paths;
}

Plugin load() {
  Plugin plugin;
  std::string tried;
  for (const std::string& path : candidates()) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // RTLD_LOCAL: the plugin's copies of small helpers (the random stream) never interpose on ours. It is
    // never closed: the models it made keep their code there.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      plugin.error = "cannot load the libtorch plugin " + path + ": " + dlerror();
      return plugin;
    }
    const auto abi = reinterpret_cast<AbiEntry>(dlsym(handle, "sgdsim_torch_plugin_abi"));
    plugin.make = reinterpret_cast<TorchPluginEntry>(dlsym(handle, "sgdsim_torch_plugin_make"));
    if (!abi || !plugin.make || abi() != torch_plugin_abi) {
      plugin.make = nullptr;
      plugin.error = "the libtorch plugin " + path + " belongs to another build of sgdsim; rebuild it";
    }
    return plugin;
  }
  plugin.error = "the libtorch plugin is missing (looked for " + tried + "); rebuild sgdsim";
  return plugin;
}
#endif

const Plugin& plugin() {
  static const Plugin loaded = [] {
#ifdef SGDSIM_TORCH_PLUGIN
    return load();
#else
    return Plugin{nullptr,
                  "this build of sgdsim has no libtorch: install libtorch-dev (bash tools/setup.sh does) and "
                  "rebuild with -DSGDSIM_TORCH=ON"};
#endif
  }();
  return loaded;
}

}  // namespace

bool torch_built() {
#ifdef SGDSIM_TORCH_PLUGIN
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Model> make_torch_model(const TorchRequest& request) {
  const Plugin& loaded = plugin();
  if (!loaded.make) throw InputError(loaded.error);
  std::unique_ptr<Model> model;
  std::string error;
  const int code = loaded.make(request, model, error);
  if (code == 2) throw InputError(error);
  if (code != 0 || !model) throw std::runtime_error("libtorch plugin: " + error);
  return model;
}

}  // namespace sgdsim::learning
