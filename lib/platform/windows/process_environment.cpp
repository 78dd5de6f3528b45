// SPDX-License-Identifier: Apache-2.0
// host_environment() (platform/process_environment.hpp) on Windows: the wide environment
// block, in UTF-8.
#include "platform/process_environment.hpp"

#include <windows.h>

#include <cwchar>

#include "platform/windows/wide_text.hpp"

namespace acp::detail {

std::vector<std::string> host_environment() {
    std::vector<std::string> env;
    wchar_t* block = ::GetEnvironmentStringsW();
    for (const wchar_t* entry = block; entry != nullptr && *entry != L'\0'; entry += std::wcslen(entry) + 1) {
        // Entries such as "=C:=C:\dir" (a drive's working directory) have a name that
        // starts with '='.
        if (std::wcschr(entry + 1, L'=') != nullptr) env.push_back(to_utf8(entry));
    }
    if (block != nullptr) ::FreeEnvironmentStringsW(block);
    return env;
}

}  // namespace acp::detail
