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

bool same_variable_name(std::string_view a, std::string_view b) {
    auto wide_a = to_wide(a, "a variable name");
    auto wide_b = to_wide(b, "a variable name");
    if (!wide_a || !wide_b) return a == b;
    // The comparison Windows itself makes: ordinal, case folded.
    return ::CompareStringOrdinal(wide_a->data(), static_cast<int>(wide_a->size()), wide_b->data(),
                                  static_cast<int>(wide_b->size()), TRUE) == CSTR_EQUAL;
}

}  // namespace acp::detail
