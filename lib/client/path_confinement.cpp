// SPDX-License-Identifier: Apache-2.0
// confine_path (acp/fs_guard.hpp): where a path the agent names really leads, and whether
// that is inside the session's roots.
//
// The real path decides, not the text: realpath() resolves every symlink and `..`, so a
// link inside the project pointing at ~/.ssh is outside. A file to be written may not
// exist yet; then its deepest existing ancestor is resolved and the missing names are
// appended, none of which may be `..` (the kernel would resolve it after a directory that
// does not exist yet, so it cannot be checked now).
// How paths are spelled and resolved is the platform's (platform/native_path.hpp): "/" and
// realpath on POSIX; drive letters, UNC shares, either slash and case-insensitive names on
// Windows.
#include <string>
#include <vector>

#include "acp/error_codes.hpp"
#include "acp/fs_guard.hpp"
#include "platform/native_path.hpp"

namespace acp {

namespace {

Status refused(const std::string& message) {
    return Status(Errc::invalid_argument, message).with_rpc_code(error_code::invalid_params);
}

Status not_found(const std::string& message) {
    return Status(Errc::invalid_argument, message).with_rpc_code(error_code::resource_not_found);
}

// The real paths of the roots that exist (a root that is gone confines nothing).
std::vector<std::string> real_roots(const SessionRoots& roots) {
    std::vector<std::string> out;
    std::vector<std::string> all = roots.additional_directories;
    all.insert(all.begin(), roots.cwd);
    for (const auto& root : all) {
        std::string real;
        std::string why;
        if (detail::is_native_absolute(root) && detail::resolve_path(root, real, why) == detail::Resolved::ok) {
            out.push_back(real);
        }
    }
    return out;
}

}  // namespace

Result<std::string> confine_path(const SessionRoots& roots, std::string_view path, PathUse use) {
    const std::string shown(path.substr(0, 256));
    if (path.find('\0') != std::string_view::npos) return refused("the path contains a NUL character");
    if (!detail::is_native_absolute(path)) return refused("the path must be absolute: '" + shown + "'");
    if (path.size() >= detail::kMaxPathBytes) return refused("the path is longer than the system allows");

    // Walk up to the deepest ancestor that exists, keeping the names below it.
    std::string existing(path);
    std::vector<std::string> missing;
    std::string real;
    for (;;) {
        std::string why;
        const detail::Resolved resolved = detail::resolve_path(existing, real, why);
        if (resolved == detail::Resolved::ok) break;
        if (resolved == detail::Resolved::failed) {
            return refused("the path '" + shown + "' cannot be resolved: " + why);
        }
        const std::size_t root = detail::root_length(existing);
        while (existing.size() > root && detail::is_separator(existing.back())) existing.pop_back();
        if (existing.size() <= root) return refused("the root of the path '" + shown + "' does not exist");
        std::size_t separator = existing.size() - 1;
        while (separator > 0 && !detail::is_separator(existing[separator])) --separator;
        std::string name = existing.substr(separator + 1);
        if (name == "..") {
            return refused("the path '" + shown + "' goes up ('..') from a directory that does not exist");
        }
        if (!detail::is_plain_name(name)) {
            return refused("the path '" + shown + "' names '" + name + "', which this system would not create as such");
        }
        if (!name.empty() && name != ".") missing.push_back(std::move(name));
        existing.erase(separator < root ? root : separator);
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (!detail::is_separator(real.back())) real += detail::kNativeSeparator;
        real += *it;
    }

    bool inside = false;
    for (const auto& root : real_roots(roots)) inside = inside || detail::path_is_inside(real, root);
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
