// SPDX-License-Identifier: Apache-2.0
#include "tools/microhttpd_library.hpp"

#include <mutex>
#include <string>
#include <type_traits>

#include "platform/permanent_library.hpp"

// The name the dynamic loader knows it by, found at configure time (CMakeLists.txt).
#ifndef ACP_LIBMICROHTTPD_SONAME
#define ACP_LIBMICROHTTPD_SONAME "libmicrohttpd.so.12"
#endif

namespace acp::detail::tools {

namespace {

MicroHttpdLibrary library;
Status load_status;

Status load() {
    // Never unloaded: a carrier's libuv close callbacks may run after the last one is gone.
    static const PermanentLibrary loaded(ACP_LIBMICROHTTPD_SONAME);
    std::string error = loaded.error();
    auto bind = [&](auto& slot, const char* symbol) {
        slot = nullptr;
        if (!error.empty()) return;
        void* address = loaded.symbol(symbol, &error);
        if (address != nullptr) slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
    };
    MicroHttpdLibrary& m = library;
    bind(m.start_daemon, "MHD_start_daemon");
    bind(m.stop_daemon, "MHD_stop_daemon");
    bind(m.get_daemon_info, "MHD_get_daemon_info");
    bind(m.run, "MHD_run");
    bind(m.get_timeout, "MHD_get_timeout");
    bind(m.get_fdset2, "MHD_get_fdset2");
    bind(m.is_feature_supported, "MHD_is_feature_supported");
    bind(m.lookup_connection_value, "MHD_lookup_connection_value");
    bind(m.get_connection_info, "MHD_get_connection_info");
    bind(m.create_response_from_buffer, "MHD_create_response_from_buffer");
    bind(m.create_response_from_callback, "MHD_create_response_from_callback");
    bind(m.add_response_header, "MHD_add_response_header");
    bind(m.queue_response, "MHD_queue_response");
    bind(m.destroy_response, "MHD_destroy_response");
    bind(m.suspend_connection, "MHD_suspend_connection");
    bind(m.resume_connection, "MHD_resume_connection");
    if (error.empty()) return Status();
    return Status(Errc::unsupported,
                  std::string("tools over HTTP need " ACP_LIBMICROHTTPD_SONAME " (Debian: libmicrohttpd12): ") + error);
}

}  // namespace

Status load_microhttpd() {
    static std::once_flag once;
    std::call_once(once, [] { load_status = load(); });
    return load_status;
}

const MicroHttpdLibrary& microhttpd() { return library; }

}  // namespace acp::detail::tools
