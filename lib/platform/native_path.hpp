// SPDX-License-Identifier: Apache-2.0
// Paths as the operating system spells and resolves them, for the fs guard (acp/fs_guard.hpp),
// which confines an agent's paths to a session's directories.
//
//   POSIX    absolute = "/..."; one separator '/'; names compare byte for byte.
//   Windows  absolute = "C:\..." (or "C:/...") or UNC "\\server\share\..."; '\' and '/'
//            both separate; names compare case-insensitively (ASCII letters: NTFS's own
//            folding covers more, so a non-ASCII name differing only in case reads as
//            outside, the safe side); a drive-relative "C:x", a rooted "\x" without drive,
//            and device paths ("\\?\", "\\.\"), which skip Windows' own path checks, are
//            not absolute.
//
//   std::string real;
//   switch (resolve_path(path, real, why)) { case Resolved::missing: ... }
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace acp::detail {

#if defined(_WIN32)
constexpr char kNativeSeparator = '\\';
constexpr std::size_t kMaxPathBytes = 32767 * 3;  // UTF-16 units of an extended path, as UTF-8
#else
constexpr char kNativeSeparator = '/';
constexpr std::size_t kMaxPathBytes = 4096;  // Linux's PATH_MAX
#endif

bool is_separator(char c);
// Absolute on this machine (the protocol's own check, protocol/request_checks.hpp, takes
// any system's absolute paths, as the agent may run elsewhere).
bool is_native_absolute(std::string_view path);
// How much of an absolute path is its root, which no `..` goes above: "/" (1), "C:\" (3),
// "\\server\share" (to the separator after the share name, or its end).
std::size_t root_length(std::string_view path);

enum class Resolved { ok, missing, failed };
// The path with every link and `..` resolved (realpath; GetFinalPathNameByHandleW with its
// "\\?\" prefix taken off). missing: a name on it does not exist; failed: why says why.
Resolved resolve_path(const std::string& path, std::string& real, std::string& why);

// Whether resolved `path` is `root` or below it.
bool path_is_inside(std::string_view path, std::string_view root);

// Whether a name that does not exist yet (the fs guard appends it to a resolved parent)
// means just itself: not "..", and on Windows neither a name Windows rewrites (a trailing
// dot or space), a stream ("a:b") nor a device ("NUL", "COM1.txt").
bool is_plain_name(std::string_view name);

}  // namespace acp::detail
