// SPDX-License-Identifier: Apache-2.0
// A library loaded at run time, by the name the system's loader searches for: libacp loads
// libcurl, libwebsockets, libarchive and libmicrohttpd on first use instead of linking them
// (dlopen on POSIX, LoadLibraryW on Windows). A loaded library is never unloaded: libuv
// close callbacks and the libraries' global state may point into it until the process ends.
//
//   auto library = SharedLibrary::load("libcurl.so.4");
//   if (!library) return library.status();          // names the file and why
//   auto init = library->symbol("curl_global_init");  // Result<void*>
#pragma once

#include "acp/status.hpp"

namespace acp::detail {

class SharedLibrary {
public:
    static Result<SharedLibrary> load(const char* name);
    // The address of an exported function or object, or an error naming the symbol.
    Result<void*> symbol(const char* name) const;

private:
    explicit SharedLibrary(void* handle) : handle_(handle) {}
    void* handle_;
};

}  // namespace acp::detail
