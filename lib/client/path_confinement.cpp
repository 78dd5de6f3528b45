// SPDX-License-Identifier: Apache-2.0
// confine_path (acp/fs_guard.hpp): where a path the agent names really leads, and whether
// that is inside the session's roots.
//
// The real path decides, not the text: realpath() resolves every symlink and `..`, so a
// link inside the project pointing at ~/.ssh is outside. A file to be written may not
// exist yet; then its deepest existing ancestor is resolved and the missing names are
// appended, none of which may be `..` (the kernel would resolve it after a directory that
// does not exist yet, so it cannot be checked now).
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "acp/error_codes.hpp"
#include "acp/fs_guard.hpp"

namespace acp {

namespace {

Status refused(const std::string& message) {
    return Status(Errc::invalid_argument, message).with_rpc_code(error_code::invalid_params);
}

Status not_found(const std::string& message) {
    return Status(Errc::invalid_argument, message).with_rpc_code(error_code::resource_not_found);
}

// realpath(3), or the errno it failed with.
bool real_path(const std::string& path, std::string& out, int& error) {
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
        error = errno;
        return false;
    }
    out = resolved;
    std::free(resolved);
    return true;
}

bool is_inside(const std::string& path, const std::string& root) {
    if (root == "/") return true;
    return path.compare(0, root.size(), root) == 0 && (path.size() == root.size() || path[root.size()] == '/');
}

// The real paths of the roots that exist (a root that is gone confines nothing).
std::vector<std::string> real_roots(const SessionRoots& roots) {
    std::vector<std::string> out;
    std::vector<std::string> all = roots.additional_directories;
    all.insert(all.begin(), roots.cwd);
    for (const auto& root : all) {
        std::string real;
        int error = 0;
        if (!root.empty() && root[0] == '/' && real_path(root, real, error)) out.push_back(real);
    }
    return out;
}

}  // namespace

Result<std::string> confine_path(const SessionRoots& roots, std::string_view path, PathUse use) {
    const std::string shown(path.substr(0, 256));
    if (path.empty() || path[0] != '/') return refused("the path must be absolute: '" + shown + "'");
    if (path.find('\0') != std::string_view::npos) return refused("the path contains a NUL character");
    if (path.size() >= PATH_MAX) return refused("the path is longer than PATH_MAX");

    // Walk up to the deepest ancestor that exists, keeping the names below it.
    std::string existing(path);
    std::vector<std::string> missing;
    std::string real;
    int error = 0;
    while (!real_path(existing, real, error)) {
        if (error != ENOENT) {
            return refused("the path '" + shown + "' cannot be resolved: " + std::strerror(error));
        }
        while (existing.size() > 1 && existing.back() == '/') existing.pop_back();
        const std::size_t slash = existing.rfind('/');
        std::string name = existing.substr(slash + 1);
        if (name == "..") {
            return refused("the path '" + shown + "' goes up ('..') from a directory that does not exist");
        }
        if (!name.empty() && name != ".") missing.push_back(std::move(name));
        existing.erase(slash == 0 ? 1 : slash);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (real.back() != '/') real += '/';
        real += *it;
    }

    bool inside = false;
    for (const auto& root : real_roots(roots)) inside = inside || is_inside(real, root);
    if (!inside) {
        return refused("the path '" + shown +
                       "' is outside the session's directories (its cwd and additional directories)");
    }
    if (use == PathUse::read && !missing.empty()) return not_found("no such file: '" + shown + "'");
    return real;
}

Result<std::string> confine_path(const Client& client, std::string_view session_id, std::string_view path,
                                 PathUse use) {
    std::optional<SessionRoots> roots = client.session_roots(session_id);
    if (!roots) {
        return not_found("session '" + std::string(session_id.substr(0, 128)) +
                         "' was not opened by this client (or is closed)");
    }
    return confine_path(*roots, path, use);
}

}  // namespace acp
