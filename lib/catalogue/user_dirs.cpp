// SPDX-License-Identifier: Apache-2.0
// Where the catalogue looks for the user's files, and which build of an agent fits this
// machine.
#include <cstdlib>
#include <string>

#include "acp/catalogue.hpp"

namespace acp {
namespace {

// An XDG base directory: the variable when it holds an absolute path (the specification
// says relative ones are ignored), else HOME + fallback.
std::string xdg_dir(const char* variable, const char* fallback) {
    if (const char* value = std::getenv(variable); value != nullptr && value[0] == '/') return value;
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return std::string(home) + fallback;
    return {};
}

}  // namespace

std::string platform_target() {
#if defined(__APPLE__)
    std::string os = "darwin";
#elif defined(_WIN32)
    std::string os = "windows";
#else
    std::string os = "linux";
#endif
#if defined(__x86_64__) || defined(_M_X64)
    return os + "-x86_64";
#elif defined(__aarch64__) || defined(_M_ARM64)
    return os + "-aarch64";
#else
    return os + "-unknown";
#endif
}

std::string user_agents_path() {
    std::string dir = xdg_dir("XDG_CONFIG_HOME", "/.config");
    return dir.empty() ? dir : dir + "/acp/agents.json";
}

std::string agents_cache_dir() {
    std::string dir = xdg_dir("XDG_CACHE_HOME", "/.cache");
    return dir.empty() ? dir : dir + "/acp/agents";
}

std::string registry_cache_path() {
    std::string dir = xdg_dir("XDG_CACHE_HOME", "/.cache");
    return dir.empty() ? dir : dir + "/acp/registry.json";
}

}  // namespace acp
