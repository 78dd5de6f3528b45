// SPDX-License-Identifier: Apache-2.0
#include "platform/permanent_library.hpp"

#include <dlfcn.h>

namespace acp::detail {

namespace {

std::string loader_error() {
    const char* text = ::dlerror();
    return text != nullptr ? text : "unknown error";
}

}  // namespace

PermanentLibrary::PermanentLibrary(const char* name) {
    handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle_ == nullptr) error_ = loader_error();
}

void* PermanentLibrary::symbol(const char* name, std::string* error) const {
    if (handle_ == nullptr) {
        *error = error_;
        return nullptr;
    }
    void* address = ::dlsym(handle_, name);
    if (address == nullptr) *error = loader_error();
    return address;
}

}  // namespace acp::detail
