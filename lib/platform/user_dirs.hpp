// SPDX-License-Identifier: Apache-2.0
// The per-user folders libacp keeps files in, as absolute UTF-8 paths, and the separator
// to join names to them. Empty when the environment names no such folder (no HOME).
//
//   Linux, POSIX: $XDG_CONFIG_HOME or ~/.config; $XDG_CACHE_HOME or ~/.cache (an XDG
//                 variable holding a relative path is ignored, as the specification says)
//   Windows:      the Roaming AppData folder (%APPDATA%); the Local one (%LOCALAPPDATA%)
//
//   std::string dir = user_config_dir();
//   if (!dir.empty()) path = dir + kPathSeparator + "acp";
#pragma once

#include <string>

namespace acp::detail {

#if defined(_WIN32)
constexpr char kPathSeparator = '\\';
#else
constexpr char kPathSeparator = '/';
#endif

// Settings the user edits, which roam with their account.
std::string user_config_dir();
// Files libacp can fetch again (registry snapshots, downloaded agents): this machine only.
std::string user_cache_dir();

}  // namespace acp::detail
