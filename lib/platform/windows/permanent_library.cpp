// SPDX-License-Identifier: Apache-2.0
#include "platform/permanent_library.hpp"

#include <windows.h>

namespace acp::detail {

PermanentLibrary::PermanentLibrary(const char* name) {
    int size = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, nullptr, 0);
    if (size <= 0) {
        error_ = std::string(name) + ": not UTF-8";
        return;
    }
    std::wstring wide(static_cast<std::size_t>(size), L'\0');
    ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, wide.data(), size);
    // Searched in the application's folder and System32 only, never the current directory
    // (which an agent's workspace may be): no planted DLL gets loaded. Never freed.
    HMODULE module =
        ::LoadLibraryExW(wide.c_str(), nullptr, LOAD_LIBRARY_SEARCH_APPLICATION_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (module == nullptr) {
        error_ = std::string(name) + ": Windows error " + std::to_string(::GetLastError());
        return;
    }
    handle_ = reinterpret_cast<void*>(module);
}

void* PermanentLibrary::symbol(const char* name, std::string* error) const {
    if (handle_ == nullptr) {
        *error = error_;
        return nullptr;
    }
    FARPROC address = ::GetProcAddress(reinterpret_cast<HMODULE>(handle_), name);
    if (address == nullptr)
        *error = std::string(name) + " not found: Windows error " + std::to_string(::GetLastError());
    return reinterpret_cast<void*>(address);
}

}  // namespace acp::detail
