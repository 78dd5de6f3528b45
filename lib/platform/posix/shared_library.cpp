// SPDX-License-Identifier: Apache-2.0
#include "platform/shared_library.hpp"

#include <dlfcn.h>

#include <string>

namespace acp::detail {
namespace {

std::string dlerror_text() {
    const char* text = ::dlerror();
    return text != nullptr ? text : "unknown error";
}

}  // namespace

Result<SharedLibrary> SharedLibrary::load(const char* name) {
    // RTLD_LOCAL: its symbols do not satisfy anyone else's; RTLD_NODELETE: never unmapped.
    void* handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == nullptr) return Status(Errc::unsupported, dlerror_text());
    return SharedLibrary(handle);
}

Result<void*> SharedLibrary::symbol(const char* name) const {
    (void)::dlerror();
    void* address = ::dlsym(handle_, name);
    if (address == nullptr) return Status(Errc::unsupported, std::string(name) + " not found: " + dlerror_text());
    return address;
}

}  // namespace acp::detail
