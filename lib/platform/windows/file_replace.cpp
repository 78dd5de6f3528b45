// SPDX-License-Identifier: Apache-2.0
#include "platform/file_replace.hpp"

#include <windows.h>

#include "platform/native_path.hpp"
#include "platform/random_bytes.hpp"
#include "platform/windows/wide_text.hpp"

namespace acp::detail {
Status replace_file(const std::string& path, std::string_view contents) {
    auto target = to_wide(path, "the path '" + path + "'");
    if (!target) return target.status();
    if (target->empty()) return Status(Errc::invalid_argument, "an empty path");
    // Each directory below the root in turn; a prefix cut at a separator is valid UTF-8 too.
    for (std::size_t i = root_length(path) + 1; i < path.size(); ++i) {
        if (!is_separator(path[i])) continue;
        if (auto directory = to_wide(path.substr(0, i), "the path"))
            (void)::CreateDirectoryW(directory->c_str(), nullptr);
    }
    unsigned char bytes[8];
    if (Status random = fill_random(bytes, sizeof bytes); !random) return random;
    std::wstring scratch = *target + L".part-";
    for (unsigned char byte : bytes) scratch += static_cast<wchar_t>(L'a' + byte % 26);
    HANDLE file = ::CreateFileW(scratch.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        return Status(Errc::io_error,
                      "cannot write beside " + path + ": Windows error " + std::to_string(::GetLastError()));
    }
    bool ok = true;
    while (ok && !contents.empty()) {
        DWORD n = 0;
        const DWORD chunk = contents.size() > (1u << 30) ? (1u << 30) : static_cast<DWORD>(contents.size());
        ok = ::WriteFile(file, contents.data(), chunk, &n, nullptr) != 0 && n > 0;
        contents.remove_prefix(n);
    }
    ok = ::CloseHandle(file) != 0 && ok;
    if (!ok || !::MoveFileExW(scratch.c_str(), target->c_str(), MOVEFILE_REPLACE_EXISTING)) {
        (void)::DeleteFileW(scratch.c_str());
        return Status(Errc::io_error, "cannot write " + path);
    }
    return {};
}

}  // namespace acp::detail
