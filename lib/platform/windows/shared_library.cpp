// SPDX-License-Identifier: Apache-2.0
#include "platform/shared_library.hpp"

#include <windows.h>

#include <string>

namespace acp::detail {
namespace {

std::string error_text(DWORD code) { return "Windows error " + std::to_string(code); }

}  // namespace

Result<SharedLibrary> SharedLibrary::load(const char* name) {
    int size = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, nullptr, 0);
    if (size <= 0) return Status(Errc::invalid_argument, std::string("not UTF-8: a library name"));
    std::wstring wide(static_cast<std::size_t>(size), L'\0');
    ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, wide.data(), size);
    // Searched in the application's folder and System32 only, never the current directory
    // (which an agent's workspace may be): no planted DLL gets loaded. Never freed.
    HMODULE module =
        ::LoadLibraryExW(wide.c_str(), nullptr, LOAD_LIBRARY_SEARCH_APPLICATION_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (module == nullptr) return Status(Errc::unsupported, std::string(name) + ": " + error_text(::GetLastError()));
    return SharedLibrary(reinterpret_cast<void*>(module));
}

Result<void*> SharedLibrary::symbol(const char* name) const {
    FARPROC address = ::GetProcAddress(reinterpret_cast<HMODULE>(handle_), name);
    if (address == nullptr) {
        return Status(Errc::unsupported, std::string(name) + " not found: " + error_text(::GetLastError()));
    }
    return reinterpret_cast<void*>(address);
}

}  // namespace acp::detail
