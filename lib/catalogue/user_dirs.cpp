// SPDX-License-Identifier: Apache-2.0
// Where the catalogue looks for the user's files, and which build of an agent fits this
// machine.
// The folders themselves are the platform's (platform/user_dirs.hpp).
#include <string>

#include "acp/catalogue.hpp"
#include "platform/user_dirs.hpp"

namespace acp {
namespace {

// dir/acp/name with the platform's separator, or empty when there is no such folder.
std::string under_acp(const std::string& dir, const char* name) {
    if (dir.empty()) return dir;
    return dir + detail::kPathSeparator + "acp" + detail::kPathSeparator + name;
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

std::string user_agents_path() { return under_acp(detail::user_config_dir(), "agents.json"); }
std::string agents_cache_dir() { return under_acp(detail::user_cache_dir(), "agents"); }
std::string registry_cache_path() { return under_acp(detail::user_cache_dir(), "registry.json"); }

}  // namespace acp
