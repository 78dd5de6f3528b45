// SPDX-License-Identifier: Apache-2.0
// libcurl's multi-socket interface on a libuv loop.
//
// libcurl says which sockets to watch and when to wake it; a uv_poll_t per socket and one
// uv_timer_t do that on the client's loop. Each transfer is an Exchange whose callbacks
// the owner sets. libcurl's API may not be entered from its own callbacks, and a host's
// callback can do anything (write, close, destroy the client), so everything that would
// re-enter libcurl from inside a callback (starting, cancelling, shutting down) is queued
// and done once the outermost call into libcurl has returned.
#pragma once

#include <curl/curl.h>
#include <uv.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "support/uv_handle.hpp"

namespace acp::detail {

class CurlMulti;

// One HTTP request and its response.
struct Exchange {
    Exchange();
    ~Exchange();
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;

    CURL* easy = nullptr;
    curl_slist* headers = nullptr;
    std::string request_body;          // kept alive for the transfer
    long status = 0;                   // the HTTP status, once the headers are in
    std::string connection_id;         // the Acp-Connection-Id response header, if any
    char error[CURL_ERROR_SIZE] = {};  // libcurl's account of a failure

    // All optional; none runs after the exchange was cancelled.
    std::function<void()> on_headers;  // status and headers known
    // Each header line ("Name: value", no line end), for headers the owner reads itself.
    std::function<void(std::string_view line)> on_header_line;
    std::function<bool(const char* data, std::size_t size)> on_body;  // false: abort the transfer
    std::function<void(CURLcode result)> on_done;                     // finished, failed or aborted

    bool cancelled = false;
    bool paused = false;
    CurlMulti* multi = nullptr;  // set by CurlMulti::start
};

class CurlMulti : public std::enable_shared_from_this<CurlMulti> {
public:
    static std::shared_ptr<CurlMulti> create(uv_loop_t* loop);
    ~CurlMulti();
    CurlMulti(const CurlMulti&) = delete;
    CurlMulti& operator=(const CurlMulti&) = delete;

    // Takes the exchange (its easy handle set up by the caller, write and header
    // functions excepted: those are set here) and starts it.
    Exchange* start(std::unique_ptr<Exchange> exchange);
    // No callback of the exchange runs again; the transfer is dropped.
    void cancel(Exchange* exchange);
    // Pauses or resumes receiving on a transfer (read backpressure).
    void set_receive_paused(Exchange* exchange, bool paused);
    // Cancels everything; nothing runs again. For the owner's destructor.
    void shutdown();
    CURLSH* share() const { return share_; }
    // Called with how many cookies the server set beyond what the jar keeps (see .cpp).
    std::function<void(std::size_t dropped)> on_cookies_dropped;

private:
    explicit CurlMulti(uv_loop_t* loop);
    struct Watch;

    static void close_watch(Watch* watch);
    static int on_socket(CURL* easy, curl_socket_t fd, int what, void* self, void* watch);
    static int on_timer(CURLM* multi, long timeout_ms, void* self);
    static std::size_t on_write(char* data, std::size_t size, std::size_t count, void* exchange);
    static std::size_t on_header(char* data, std::size_t size, std::size_t count, void* exchange);
    void socket_action(curl_socket_t fd, int events);
    void after_libcurl();
    void apply_queued();
    void finish_transfers();
    void remove(Exchange* exchange);
    void trim_cookies();

    uv_loop_t* loop_;
    CURLM* multi_ = nullptr;
    CURLSH* share_ = nullptr;
    CURL* jar_ = nullptr;       // no transfer: reads and trims the shared cookie jar
    bool cookies_set_ = false;  // a response set cookies since the jar was last trimmed
    UvHandlePtr<uv_timer_t> timer_;
    std::unordered_map<CURL*, std::unique_ptr<Exchange>> exchanges_;
    std::unordered_set<Watch*> watches_;
    std::vector<Exchange*> to_start_;
    std::vector<Exchange*> to_remove_;
    int depth_ = 0;  // calls into libcurl in progress
};

}  // namespace acp::detail
