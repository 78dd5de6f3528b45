// SPDX-License-Identifier: Apache-2.0
#include "platform/user_dirs.hpp"

// clang-format off
#include <windows.h>
#include <knownfolders.h>
#include <shlobj.h>
// clang-format on

#include <cstdlib>

namespace acp::detail {
namespace {

std::string utf8_of(const wchar_t* wide) {
    int size = ::WideCharToMultiByte(CP_UTF8, 0, wide, -1, nullptr, 0, nullptr, nullptr);
    if (size <= 1) return {};
    std::string text(static_cast<std::size_t>(size), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, wide, -1, text.data(), size, nullptr, nullptr);
    text.pop_back();  // the terminating NUL
    return text;
}

// The shell's known folder (it follows a folder the user moved), else the variable that
// names it (a service account may have no profile loaded), else nothing.
std::string known_folder(REFKNOWNFOLDERID id, const wchar_t* variable) {
    PWSTR path = nullptr;
    std::string dir;
    if (SUCCEEDED(::SHGetKnownFolderPath(id, KF_FLAG_DEFAULT, nullptr, &path))) dir = utf8_of(path);
    ::CoTaskMemFree(path);
    if (!dir.empty()) return dir;
    if (const wchar_t* value = ::_wgetenv(variable); value != nullptr) return utf8_of(value);
    return {};
}

}  // namespace

std::string user_config_dir() { return known_folder(FOLDERID_RoamingAppData, L"APPDATA"); }
std::string user_cache_dir() { return known_folder(FOLDERID_LocalAppData, L"LOCALAPPDATA"); }

}  // namespace acp::detail
