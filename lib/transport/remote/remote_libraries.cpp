// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_libraries.hpp"

#include <mutex>
#include <string>

#include "platform/permanent_library.hpp"

// The names the dynamic loader knows them by, found at configure time (CMakeLists.txt).
#ifndef ACP_LIBCURL_SONAME
#define ACP_LIBCURL_SONAME "libcurl.so.4"
#endif
#ifndef ACP_LIBWEBSOCKETS_SONAME
#define ACP_LIBWEBSOCKETS_SONAME "libwebsockets.so.17"
#endif

namespace acp::detail {

namespace {

CurlLibrary curl_library;
WebSocketLibrary lws_library;
Status load_status;

// Binds each symbol of one library; the first missing one is the error.
class Binder {
public:
    // Never unloaded: libuv close callbacks and libcurl's global state may point into it.
    explicit Binder(const char* soname) : soname_(soname), library_(soname), error_(library_.error()) {}

    template <class Function>
    void bind(Function& slot, const char* symbol) {
        slot = nullptr;
        if (!library_.loaded() || !error_.empty()) return;
        std::string why;
        void* address = library_.symbol(symbol, &why);
        if (address == nullptr) {
            error_ = std::string(symbol) + " not found: " + why;
            return;
        }
        slot = reinterpret_cast<Function>(address);
    }

    Status status() const {
        if (error_.empty()) return Status();
        return Status(Errc::unsupported, std::string("remote agents need ") + soname_ + " (" + error_ + ")");
    }

private:
    const char* soname_;
    PermanentLibrary library_;
    std::string error_;
};

Status load_curl() {
    Binder binder(ACP_LIBCURL_SONAME);
    CurlLibrary& c = curl_library;
    binder.bind(c.global_init, "curl_global_init");
    binder.bind(c.easy_init, "curl_easy_init");
    binder.bind(c.easy_cleanup, "curl_easy_cleanup");
    binder.bind(c.easy_setopt, "curl_easy_setopt");
    binder.bind(c.easy_getinfo, "curl_easy_getinfo");
    binder.bind(c.easy_pause, "curl_easy_pause");
    binder.bind(c.easy_perform, "curl_easy_perform");
    binder.bind(c.easy_strerror, "curl_easy_strerror");
    binder.bind(c.multi_init, "curl_multi_init");
    binder.bind(c.multi_cleanup, "curl_multi_cleanup");
    binder.bind(c.multi_setopt, "curl_multi_setopt");
    binder.bind(c.multi_add_handle, "curl_multi_add_handle");
    binder.bind(c.multi_remove_handle, "curl_multi_remove_handle");
    binder.bind(c.multi_assign, "curl_multi_assign");
    binder.bind(c.multi_info_read, "curl_multi_info_read");
    binder.bind(c.multi_socket_action, "curl_multi_socket_action");
    binder.bind(c.share_init, "curl_share_init");
    binder.bind(c.share_cleanup, "curl_share_cleanup");
    binder.bind(c.share_setopt, "curl_share_setopt");
    binder.bind(c.slist_append, "curl_slist_append");
    binder.bind(c.slist_free_all, "curl_slist_free_all");
    return binder.status();
}

Status load_libwebsockets() {
    Binder binder(ACP_LIBWEBSOCKETS_SONAME);
    WebSocketLibrary& w = lws_library;
    binder.bind(w.set_log_level, "lws_set_log_level");
    binder.bind(w.create_context, "lws_create_context");
    binder.bind(w.context_destroy, "lws_context_destroy");
    binder.bind(w.context_user, "lws_context_user");
    binder.bind(w.get_context, "lws_get_context");
    binder.bind(w.client_connect_via_info, "lws_client_connect_via_info");
    binder.bind(w.add_http_header_by_name, "lws_add_http_header_by_name");
    binder.bind(w.http_client_http_response, "lws_http_client_http_response");
    binder.bind(w.callback_on_writable, "lws_callback_on_writable");
    binder.bind(w.write, "lws_write");
    binder.bind(w.is_final_fragment, "lws_is_final_fragment");
    binder.bind(w.close_reason, "lws_close_reason");
    binder.bind(w.set_timeout, "lws_set_timeout");
    binder.bind(w.rx_flow_control, "lws_rx_flow_control");
    return binder.status();
}

}  // namespace

Status load_remote_libraries() {
    static std::once_flag once;
    std::call_once(once, [] {
        load_status = load_curl();
        if (load_status) load_status = load_libwebsockets();
    });
    return load_status;
}

const CurlLibrary& curl() { return curl_library; }
const WebSocketLibrary& lws() { return lws_library; }

}  // namespace acp::detail
