// SPDX-License-Identifier: Apache-2.0
#include "platform/user_dirs.hpp"

// clang-format off
#include <windows.h>
#include <knownfolders.h>
#include <shlobj.h>
// clang-format on

#include <cstdlib>

#include "platform/windows/wide_text.hpp"

namespace acp::detail {
namespace {

// The shell's known folder (it follows a folder the user moved), else the variable that
// names it (a service account may have no profile loaded), else nothing.
std::string known_folder(REFKNOWNFOLDERID id, const wchar_t* variable) {
    PWSTR path = nullptr;
    std::string dir;
    if (SUCCEEDED(::SHGetKnownFolderPath(id, KF_FLAG_DEFAULT, nullptr, &path))) dir = to_utf8(path);
    ::CoTaskMemFree(path);
    if (!dir.empty()) return dir;
    if (const wchar_t* value = ::_wgetenv(variable); value != nullptr) return to_utf8(value);
    return {};
}

}  // namespace

std::string user_config_dir() { return known_folder(FOLDERID_RoamingAppData, L"APPDATA"); }
std::string user_cache_dir() { return known_folder(FOLDERID_LocalAppData, L"LOCALAPPDATA"); }

}  // namespace acp::detail
