// SPDX-License-Identifier: Apache-2.0
// Owning helpers for libuv handles.
//
// A libuv handle's memory may only be freed in its close callback, one loop turn after
// uv_close(). These helpers allocate handles on the heap and free them there, so an
// owning object can be destroyed at any time without waiting for the loop.
#pragma once

#include <uv.h>

#include <memory>

namespace acp::detail {

// Closes a heap-allocated handle and deletes it in the close callback.
template <class Handle>
void close_and_delete(Handle* handle) {
    if (handle == nullptr) return;
    auto* base = reinterpret_cast<uv_handle_t*>(handle);
    if (uv_is_closing(base)) return;
    uv_close(base, [](uv_handle_t* h) { delete reinterpret_cast<Handle*>(h); });
}

template <class Handle>
struct UvCloser {
    void operator()(Handle* handle) const { close_and_delete(handle); }
};

template <class Handle>
using UvHandlePtr = std::unique_ptr<Handle, UvCloser<Handle>>;

}  // namespace acp::detail
