// SPDX-License-Identifier: Apache-2.0
// A shared library loaded at run time and never unloaded, for the optional libraries the
// remote transports use (libcurl, libwebsockets): libuv close callbacks and the libraries'
// global state may point into them until the process ends.
//
//   PermanentLibrary curl("libcurl.so.4");
//   std::string error;
//   void* init = curl.symbol("curl_global_init", &error);   // nullptr: error says why
#pragma once

#include <string>

namespace acp::detail {

class PermanentLibrary {
public:
    // Loads name with the system's loader rules (POSIX: dlopen; Windows: LoadLibrary).
    explicit PermanentLibrary(const char* name);

    bool loaded() const { return handle_ != nullptr; }
    // The loader's message when it could not load the library.
    const std::string& error() const { return error_; }
    // The address of symbol, or nullptr with the loader's message in *error.
    void* symbol(const char* name, std::string* error) const;

private:
    void* handle_ = nullptr;
    std::string error_;
};

}  // namespace acp::detail
