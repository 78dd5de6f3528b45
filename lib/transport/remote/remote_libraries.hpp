// SPDX-License-Identifier: Apache-2.0
// libcurl and libwebsockets, loaded when a client first reaches a remote agent (internal).
//
// libacp does not link them: together they bring some forty shared libraries (TLS,
// Kerberos, LDAP, PKCS#11, ...) and about 5.5 MiB of resident pages into every process,
// and a few milliseconds of symbol binding at its start, which an editor that only spawns
// local agents would pay for nothing. The first Client::connect loads both (dlopen, kept
// for the life of the process) and the transports call them through these tables; a
// machine without them gets a clear error from connect, and local agents work as before.
#pragma once

#include <curl/curl.h>
#include <libwebsockets.h>

#include "acp/status.hpp"

namespace acp::detail {

// The functions of libcurl the HTTP transport calls (curl_<name> → <name>).
struct CurlLibrary {
    decltype(&::curl_global_init) global_init;
    decltype(&::curl_easy_init) easy_init;
    decltype(&::curl_easy_cleanup) easy_cleanup;
    decltype(&::curl_easy_setopt) easy_setopt;
    decltype(&::curl_easy_getinfo) easy_getinfo;
    decltype(&::curl_easy_pause) easy_pause;
    decltype(&::curl_easy_perform) easy_perform;  // the catalogue's archive download
    decltype(&::curl_easy_strerror) easy_strerror;
    decltype(&::curl_multi_init) multi_init;
    decltype(&::curl_multi_cleanup) multi_cleanup;
    decltype(&::curl_multi_setopt) multi_setopt;
    decltype(&::curl_multi_add_handle) multi_add_handle;
    decltype(&::curl_multi_remove_handle) multi_remove_handle;
    decltype(&::curl_multi_assign) multi_assign;
    decltype(&::curl_multi_info_read) multi_info_read;
    decltype(&::curl_multi_socket_action) multi_socket_action;
    decltype(&::curl_share_init) share_init;
    decltype(&::curl_share_cleanup) share_cleanup;
    decltype(&::curl_share_setopt) share_setopt;
    decltype(&::curl_slist_append) slist_append;
    decltype(&::curl_slist_free_all) slist_free_all;
};

// The functions of libwebsockets the WebSocket transport calls (lws_<name> → <name>).
struct WebSocketLibrary {
    decltype(&::lws_set_log_level) set_log_level;
    decltype(&::lws_create_context) create_context;
    decltype(&::lws_context_destroy) context_destroy;
    decltype(&::lws_context_user) context_user;
    decltype(&::lws_get_context) get_context;
    decltype(&::lws_client_connect_via_info) client_connect_via_info;
    decltype(&::lws_add_http_header_by_name) add_http_header_by_name;
    decltype(&::lws_http_client_http_response) http_client_http_response;
    decltype(&::lws_callback_on_writable) callback_on_writable;
    decltype(&::lws_write) write;
    decltype(&::lws_is_final_fragment) is_final_fragment;
    decltype(&::lws_close_reason) close_reason;
    decltype(&::lws_set_timeout) set_timeout;
    decltype(&::lws_rx_flow_control) rx_flow_control;
};

// Loads both libraries once per process (safe from any thread). The error names the
// library that could not be loaded and why.
Status load_remote_libraries();

// Only after load_remote_libraries() succeeded (every remote transport is made after it).
const CurlLibrary& curl();
const WebSocketLibrary& lws();

}  // namespace acp::detail
