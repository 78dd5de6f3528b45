// SPDX-License-Identifier: Apache-2.0
// The exception barrier every extern "C" entry point of include/acp/acp.h stands behind
// (internal): no C++ exception leaves it; a failure becomes a negative ACP_E* code and
// acp_error_last(). Plus the small checks the entry points share.
#pragma once

#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "capi/core.hpp"

namespace acp::capi {

// Returns what f returns, or fallback after recording the exception.
template <class F>
int guarded(int fallback, F&& f) noexcept {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        fail(ACP_EINTERNAL, "out of memory");
    } catch (const std::exception& e) {
        fail(ACP_EINTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        fail(ACP_EINTERNAL, "internal error: unknown exception");
    }
    return fallback;
}

template <class F>
void guarded_void(F&& f) noexcept {
    guarded(0, [&] {
        f();
        return 0;
    });
}

inline int need(const void* p, const char* what) {
    return p != nullptr ? ACP_OK : fail(ACP_EINVAL, std::string(what) + " is NULL");
}

inline const char* c_str_or_null(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

// The client's core, or nullptr after recording ACP_EINVAL.
inline std::shared_ptr<Core> core_of(const acp_client* client) {
    if (client == nullptr) {
        fail(ACP_EINVAL, "client is NULL");
        return nullptr;
    }
    return client->core;
}

}  // namespace acp::capi
