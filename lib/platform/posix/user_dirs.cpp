// SPDX-License-Identifier: Apache-2.0
#include "platform/user_dirs.hpp"

#include <cstdlib>

namespace acp::detail {
namespace {

// An XDG base directory: the variable when it holds an absolute path, else HOME + fallback.
std::string xdg_dir(const char* variable, const char* fallback) {
    if (const char* value = std::getenv(variable); value != nullptr && value[0] == '/') return value;
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return std::string(home) + fallback;
    return {};
}

}  // namespace

std::string user_config_dir() { return xdg_dir("XDG_CONFIG_HOME", "/.config"); }
std::string user_cache_dir() { return xdg_dir("XDG_CACHE_HOME", "/.cache"); }

}  // namespace acp::detail
