// SPDX-License-Identifier: Apache-2.0
#include "platform/native_path.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace acp::detail {

bool is_separator(char c) { return c == '/'; }
bool is_native_absolute(std::string_view path) { return !path.empty() && path[0] == '/'; }
std::size_t root_length(std::string_view) { return 1; }

Resolved resolve_path(const std::string& path, std::string& real, std::string& why) {
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
        const int error = errno;
        if (error == ENOENT) return Resolved::missing;
        why = std::strerror(error);
        return Resolved::failed;
    }
    real = resolved;
    std::free(resolved);
    return Resolved::ok;
}

bool is_plain_name(std::string_view name) { return name != ".."; }

bool path_is_inside(std::string_view path, std::string_view root) {
    if (root == "/") return true;
    return path.compare(0, root.size(), root) == 0 && (path.size() == root.size() || path[root.size()] == '/');
}

}  // namespace acp::detail
