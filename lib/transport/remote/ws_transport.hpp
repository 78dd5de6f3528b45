// SPDX-License-Identifier: Apache-2.0
// A WebSocket to a remote agent, on libwebsockets driven by the client's own libuv loop.
//
// One JSON-RPC message per WebSocket message, both ways. Incoming messages are handed to
// the connection as lines as their fragments arrive (nothing is buffered here, so the
// framer's size cap bounds memory); outgoing lines are queued and sent one message each.
#pragma once

#include <uv.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "acp/status.hpp"
#include "acp/transport_options.hpp"
#include "support/deferred_queue.hpp"
#include "support/logger.hpp"
#include "support/uv_handle.hpp"
#include "transport/read_throttle.hpp"
#include "transport/remote/remote_url.hpp"
#include "transport/transport.hpp"

struct lws;
struct lws_context;

namespace acp::detail {

class WsTransport final : public Transport, private ReadSwitch {
public:
    static Result<std::unique_ptr<WsTransport>> connect(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options,
                                                        Logger logger);
    ~WsTransport() override;

    void start(TransportEvents* events) override;
    void write(std::string_view bytes, WriteCause cause) override;
    void close() override;
    void detach() override;
    void set_write_limits(WriteLimits limits) override;
    std::size_t queued_bytes() const override { return queued_bytes_; }
    void hold_reading(bool held) override { throttle_.hold(held); }

    // What libwebsockets' callbacks reach (ws_transport.cpp).
    struct CallbackTarget {
        WsTransport* owner;
        struct lws* connection;  // until libwebsockets destroyed it
    };
    // libwebsockets' callback for this transport's connection (ws_transport.cpp).
    int on_lws_event(struct lws* wsi, int reason, void* in, std::size_t len);

private:
    WsTransport(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options, Logger logger);
    Status open_connection();
    void on_established();
    void on_writable();
    void on_receive(char* data, std::size_t size, bool final_fragment);
    void on_connect_error(const char* reason);
    void report_closed(Status why);
    void on_close_overdue();
    void destroy_context();
    void pause_reading() override;
    void resume_reading() override;

    uv_loop_t* loop_;
    RemoteUrl url_;
    RemoteOptions options_;
    Logger logger_;
    DeferredQueue deferred_;
    UvHandlePtr<uv_timer_t> connect_timer_;
    UvHandlePtr<uv_timer_t> close_timer_;  // a server that stops reading cannot hold close() up
    struct lws_context* context_ = nullptr;
    CallbackTarget* target_ = nullptr;  // freed by the reaper
    struct ContextReaper;
    ContextReaper* reaper_ = nullptr;  // finishes the context's destruction, then frees itself
    struct lws* wsi_ = nullptr;
    TransportEvents* events_ = nullptr;

    std::string partial_out_;
    struct Outgoing {
        std::string framed;  // the message after LWS_PRE bytes of headroom
        WriteCause cause;
    };
    std::deque<Outgoing> outgoing_;
    std::size_t queued_bytes_ = 0;
    std::size_t queued_agent_bytes_ = 0;  // of those, what the agent caused: the write limits' count
    ReadThrottle throttle_;
    bool read_paused_ = false;

    bool started_ = false;
    bool established_ = false;
    bool close_requested_ = false;
    bool closed_ = false;
    bool destroying_ = false;
    int peer_close_code_ = 0;
    char newline_[1] = {'\n'};
};

}  // namespace acp::detail
