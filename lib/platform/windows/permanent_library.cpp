// SPDX-License-Identifier: Apache-2.0
#include "platform/permanent_library.hpp"

#include <windows.h>

#include "platform/windows/wide_text.hpp"

namespace acp::detail {

PermanentLibrary::PermanentLibrary(const char* name) {
    const auto wide = to_wide(name, std::string("the library name ") + name);
    if (!wide) {
        error_ = wide.status().message();
        return;
    }
    // Searched in the application's folder and System32 only, never the current directory
    // (which an agent's workspace may be): no planted DLL gets loaded. Never freed.
    HMODULE module =
        ::LoadLibraryExW(wide->c_str(), nullptr, LOAD_LIBRARY_SEARCH_APPLICATION_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32);
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
