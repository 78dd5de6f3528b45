// SPDX-License-Identifier: Apache-2.0
#include "platform/native_path.hpp"

#include <windows.h>

#include <vector>

#include "platform/windows/wide_text.hpp"

namespace acp::detail {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool is_separator(char c) { return c == '\\' || c == '/'; }

bool is_native_absolute(std::string_view path) {
    // A colon past the drive names a stream or a device.
    if (path.find(':', 2) != std::string_view::npos) return false;
    if (path.size() >= 3 && is_letter(path[0]) && path[1] == ':' && is_separator(path[2])) return true;
    // UNC: two separators, a server name, a separator, a share name; not "\\?\" or "\\.\".
    if (path.size() < 5 || !is_separator(path[0]) || !is_separator(path[1])) return false;
    const std::size_t server_end = path.find_first_of("\\/", 2);
    if (server_end == std::string_view::npos || server_end == 2) return false;
    const std::string_view server = path.substr(2, server_end - 2);
    if (server == "?" || server == ".") return false;
    return server_end + 1 < path.size() && !is_separator(path[server_end + 1]);
}

std::size_t root_length(std::string_view path) {
    if (path.size() >= 3 && path[1] == ':') return 3;
    const std::size_t server_end = path.find_first_of("\\/", 2);
    if (server_end == std::string_view::npos) return path.size();
    const std::size_t share_end = path.find_first_of("\\/", server_end + 1);
    return share_end == std::string_view::npos ? path.size() : share_end;
}

Resolved resolve_path(const std::string& path, std::string& real, std::string& why) {
    const auto wide = to_wide(path, "the path");
    if (!wide || wide->empty()) {
        why = wide ? "an empty path" : wide.status().message();
        return Resolved::failed;
    }
    // No access asked for: opens a directory too (BACKUP_SEMANTICS), and follows links, so
    // the handle is of the final file.
    HANDLE handle = ::CreateFileW(wide->c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
        const DWORD error = ::GetLastError();
        if (error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND) return Resolved::missing;
        why = "Windows error " + std::to_string(error);
        return Resolved::failed;
    }
    std::vector<wchar_t> buffer(MAX_PATH + 1);
    DWORD size = ::GetFinalPathNameByHandleW(handle, buffer.data(), static_cast<DWORD>(buffer.size()),
                                             FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (size >= buffer.size()) {
        buffer.resize(size + 1);
        size = ::GetFinalPathNameByHandleW(handle, buffer.data(), static_cast<DWORD>(buffer.size()),
                                           FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    }
    const DWORD error = ::GetLastError();
    ::CloseHandle(handle);
    if (size == 0 || size >= buffer.size()) {
        why = "Windows error " + std::to_string(error);
        return Resolved::failed;
    }
    std::wstring_view final_path(buffer.data(), size);
    // "\\?\C:\x" -> "C:\x"; "\\?\UNC\server\share" -> "\\server\share".
    if (final_path.substr(0, 8) == L"\\\\?\\UNC\\") {
        real = "\\\\" + to_utf8(final_path.substr(8));
    } else if (final_path.substr(0, 4) == L"\\\\?\\") {
        real = to_utf8(final_path.substr(4));
    } else {
        real = to_utf8(final_path);
    }
    return Resolved::ok;
}

bool is_plain_name(std::string_view name) {
    if (name == ".." || name.find(':') != std::string_view::npos) return false;
    if (!name.empty() && (name.back() == '.' || name.back() == ' ')) return false;
    // The devices every folder seems to hold, with or without an extension.
    std::string stem(name.substr(0, name.find('.')));
    for (char& c : stem) c = fold(c);
    while (!stem.empty() && stem.back() == ' ') stem.pop_back();
    for (const char* device : {"con", "prn", "aux", "nul", "conin$", "conout$"}) {
        if (stem == device) return false;
    }
    if (stem.size() == 4 && (stem.compare(0, 3, "com") == 0 || stem.compare(0, 3, "lpt") == 0) && stem[3] >= '0' &&
        stem[3] <= '9') {
        return false;
    }
    return true;
}

bool path_is_inside(std::string_view path, std::string_view root) {
    while (root.size() > root_length(root) && is_separator(root.back())) root.remove_suffix(1);
    if (path.size() < root.size()) return false;
    for (std::size_t i = 0; i < root.size(); ++i) {
        if (is_separator(root[i]) ? !is_separator(path[i]) : fold(root[i]) != fold(path[i])) return false;
    }
    return path.size() == root.size() || is_separator(root.back()) || is_separator(path[root.size()]);
}

}  // namespace acp::detail
