// SPDX-License-Identifier: Apache-2.0
// libmicrohttpd, loaded when a host first offers tools over HTTP (internal; issue 26).
//
// The loopback HTTP carrier (tools/http_carrier.hpp) serves MCP with libmicrohttpd, but
// libacp does not link it: it brings GnuTLS and its dozen libraries into every process,
// and most hosts never offer tools over HTTP. The first HttpCarrier::start loads it
// (dlopen, kept for the life of the process) and the carrier calls it through this
// table; a machine without it gets a clear error from start, and everything else works.
#pragma once

#include <microhttpd.h>

#include "acp/status.hpp"

namespace acp::detail::tools {

// The functions of libmicrohttpd the HTTP carrier calls (MHD_<name> → <name>).
struct MicroHttpdLibrary {
    decltype(&::MHD_start_daemon) start_daemon;
    decltype(&::MHD_stop_daemon) stop_daemon;
    decltype(&::MHD_get_daemon_info) get_daemon_info;
    decltype(&::MHD_run) run;
    decltype(&::MHD_get_timeout) get_timeout;
    decltype(&::MHD_get_fdset2) get_fdset2;
    decltype(&::MHD_is_feature_supported) is_feature_supported;
    decltype(&::MHD_lookup_connection_value) lookup_connection_value;
    decltype(&::MHD_get_connection_info) get_connection_info;
    decltype(&::MHD_create_response_from_buffer) create_response_from_buffer;
    decltype(&::MHD_create_response_from_callback) create_response_from_callback;
    decltype(&::MHD_add_response_header) add_response_header;
    decltype(&::MHD_queue_response) queue_response;
    decltype(&::MHD_destroy_response) destroy_response;
    decltype(&::MHD_suspend_connection) suspend_connection;
    decltype(&::MHD_resume_connection) resume_connection;
};

// Loads the library once per process (safe from any thread). The error names the
// library and why it could not be loaded.
Status load_microhttpd();

// Only after load_microhttpd() succeeded.
const MicroHttpdLibrary& microhttpd();

}  // namespace acp::detail::tools
