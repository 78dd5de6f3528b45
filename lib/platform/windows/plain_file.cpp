// SPDX-License-Identifier: Apache-2.0
#include "platform/plain_file.hpp"

#include <windows.h>

#include "platform/native_path.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {
namespace {

std::string system_error(const std::string& what, DWORD error) {
    return what + ": Windows error " + std::to_string(error);
}

HANDLE handle_of(std::intptr_t native) { return reinterpret_cast<HANDLE>(native); }

}  // namespace

PlainFile::~PlainFile() {
    if (native_ != -1) ::CloseHandle(handle_of(native_));
}

PlainFile::Opened PlainFile::open(const std::string& path, Mode mode, std::string& why) {
    const auto wide = to_wide(path, "the path");
    if (!wide || wide->empty()) {
        why = wide ? "an empty path" : wide.status().message();
        return Opened::failed;
    }
    // OPEN_REPARSE_POINT: a link in the last name is opened itself, and refused below.
    HANDLE handle =
        ::CreateFileW(wide->c_str(), mode == Mode::read ? GENERIC_READ : GENERIC_WRITE,
                      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                      mode == Mode::read ? OPEN_EXISTING : OPEN_ALWAYS, FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
        const DWORD error = ::GetLastError();
        why = system_error("cannot open", error);
        return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? Opened::missing : Opened::failed;
    }
    native_ = reinterpret_cast<std::intptr_t>(handle);
    // A regular file only: a pipe, console or device would block the loop or never end.
    BY_HANDLE_FILE_INFORMATION info{};
    if (::GetFileType(handle) != FILE_TYPE_DISK || !::GetFileInformationByHandle(handle, &info)) {
        why = "not a regular file";
        return Opened::not_regular;
    }
    if ((info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) != 0) {
        why = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 ? "a directory" : "a link (reparse point)";
        return Opened::not_regular;
    }
    // Truncated only once it is known to be a regular file.
    if (mode == Mode::write && !::SetEndOfFile(handle)) {
        why = system_error("cannot truncate", ::GetLastError());
        return Opened::failed;
    }
    return Opened::ok;
}

bool PlainFile::read_up_to(std::size_t limit, std::string& bytes, std::string& why) {
    char buffer[64 * 1024];
    while (bytes.size() <= limit) {
        DWORD n = 0;
        if (!::ReadFile(handle_of(native_), buffer, sizeof buffer, &n, nullptr)) {
            why = system_error("cannot read the file", ::GetLastError());
            return false;
        }
        if (n == 0) break;
        bytes.append(buffer, n);
    }
    return true;
}

bool PlainFile::write_all(std::string_view content, std::string& why) {
    while (!content.empty()) {
        DWORD n = 0;
        const DWORD chunk = content.size() > (1u << 30) ? (1u << 30) : static_cast<DWORD>(content.size());
        if (!::WriteFile(handle_of(native_), content.data(), chunk, &n, nullptr)) {
            why = system_error("cannot write the file", ::GetLastError());
            return false;
        }
        content.remove_prefix(n);
    }
    return true;
}

bool PlainFile::close(std::string& why) {
    const BOOL closed = ::CloseHandle(handle_of(native_));
    native_ = -1;
    if (!closed) why = system_error("cannot write the file", ::GetLastError());
    return closed != 0;
}

bool PlainFile::create_parents(const std::string& path, std::string& why) {
    // Past the root ("C:\", "\\server\share"): each directory below it in turn.
    for (std::size_t i = root_length(path) + 1; i < path.size(); ++i) {
        if (!is_separator(path[i])) continue;
        const std::string directory = path.substr(0, i);
        const auto wide = to_wide(directory, "the directory '" + directory + "'");
        if (!wide) {
            why = wide.status().message();
            return false;
        }
        if (!::CreateDirectoryW(wide->c_str(), nullptr) && ::GetLastError() != ERROR_ALREADY_EXISTS) {
            why = system_error("cannot create the directory '" + directory + "'", ::GetLastError());
            return false;
        }
    }
    return true;
}

}  // namespace acp::detail
