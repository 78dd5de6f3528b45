// SPDX-License-Identifier: Apache-2.0
#include "platform/whole_file.hpp"

#include <windows.h>

#include "platform/windows/wide_text.hpp"

namespace acp::detail {

WholeFile read_whole_file(const std::string& path, std::size_t max_bytes, std::string& contents, std::string& why) {
    contents.clear();
    auto wide = to_wide(path, "the path");
    if (!wide) {
        why = wide.status().message();
        return WholeFile::failed;
    }
    HANDLE file = ::CreateFileW(wide->c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        const DWORD error = ::GetLastError();
        why = "Windows error " + std::to_string(error);
        return error == ERROR_FILE_NOT_FOUND || error == ERROR_PATH_NOT_FOUND ? WholeFile::missing : WholeFile::failed;
    }
    char buffer[65536];
    WholeFile result = WholeFile::ok;
    for (;;) {
        DWORD n = 0;
        if (!::ReadFile(file, buffer, sizeof buffer, &n, nullptr)) {
            why = "Windows error " + std::to_string(::GetLastError());
            result = WholeFile::failed;
            break;
        }
        if (n == 0) break;
        if (contents.size() + n > max_bytes) {
            result = WholeFile::too_large;
            break;
        }
        contents.append(buffer, n);
    }
    ::CloseHandle(file);
    if (result != WholeFile::ok) contents.clear();
    return result;
}

}  // namespace acp::detail
