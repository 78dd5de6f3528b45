// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/ws_transport.hpp"

#include <libwebsockets.h>

#include <cstring>
#include <mutex>
#include <string>
#include <utility>

#include "platform/permanent_library.hpp"
#include "transport/message_lines.hpp"
#include "transport/remote/remote_headers.hpp"
#include "transport/remote/remote_libraries.hpp"

namespace acp::detail {

namespace {

// How long close() waits for the queued messages and the close frame to go out, as the
// HTTP transport's DELETE does.
constexpr uint64_t kCloseGraceMs = 2000;

int dispatch(struct lws* wsi, enum lws_callback_reasons reason, void* /*user*/, void* in, std::size_t len) {
    auto* target = static_cast<WsTransport::CallbackTarget*>(lws().context_user(lws().get_context(wsi)));
    if (target == nullptr) return 0;
    if (reason == LWS_CALLBACK_WSI_DESTROY && wsi == target->connection) target->connection = nullptr;
    if (target->owner == nullptr) return 0;
    return target->owner->on_lws_event(wsi, static_cast<int>(reason), in, len);
}

// One protocol: the name is not sent (ACP over WebSocket uses no subprotocol).
const struct lws_protocols kProtocols[] = {
    {"acp", dispatch, 0, 0, 0, nullptr, 0},
    {nullptr, nullptr, 0, 0, 0, nullptr, 0},
};

// libwebsockets logs to stderr by default, process-wide; the agent's errors reach the
// host through the close status instead, and nothing of a handshake (headers, tokens)
// may reach a terminal.
void silence_library_log() {
    static std::once_flag once;
    std::call_once(once, [] {
        lws().set_log_level(0, nullptr);
        // libwebsockets loads its libuv event library as a plugin with each context and
        // unloads it with the last one, while libuv may still hold close callbacks into
        // it: keep it mapped for the life of the process.
        static const PermanentLibrary event_library("libwebsockets-evlib_uv.so");
    });
}

bool any_handle_closing(uv_loop_t* loop) {
    bool closing = false;
    uv_walk(
        loop, [](uv_handle_t* handle, void* found) { *static_cast<bool*>(found) |= uv_is_closing(handle) != 0; },
        &closing);
    return closing;
}

}  // namespace

// libwebsockets 4.1 destroys a context on a foreign loop in two steps: the first
// lws_context_destroy() closes its handles, and only a call after those closed frees the
// context (which then writes NULL through pcontext). The reaper makes the later calls, on
// its own timer, so the transport can go at once and nothing of the context is left behind
// as long as the host runs its loop (the timer keeps the loop alive until it is done).
// The second call waits until the connection's wsi is gone and no handle on the loop is
// still closing (libwebsockets frees its handles and the wsi from close callbacks that
// still read the context).
struct WsTransport::ContextReaper {
    uv_timer_t timer;
    struct lws_context* context = nullptr;  // set to NULL by libwebsockets when it is gone
    CallbackTarget* target = nullptr;
    int ticks = 0;

    static void reap(ContextReaper* reaper) {
        lws().context_destroy(reaper->context);  // closes the connection and lws's handles
        if (reaper->context == nullptr) {
            reaper->finish();
            return;
        }
        uv_timer_start(
            &reaper->timer,
            [](uv_timer_t* tick) {
                auto* self = static_cast<ContextReaper*>(tick->data);
                // Ten seconds at most; past that the context is left as it is.
                if (self->context != nullptr && ++self->ticks < 1000 && self->target->connection == nullptr &&
                    !any_handle_closing(tick->loop)) {
                    lws().context_destroy(self->context);
                }
                if (self->context == nullptr || self->ticks >= 1000) self->finish();
            },
            10, 10);
    }
    void finish() {
        uv_timer_stop(&timer);
        uv_close(reinterpret_cast<uv_handle_t*>(&timer), [](uv_handle_t* handle) {
            auto* self = static_cast<ContextReaper*>(handle->data);
            if (self->context == nullptr) delete self->target;  // else lws may still call back
            delete self;
        });
    }
};

WsTransport::WsTransport(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options, Logger logger)
    : loop_(loop),
      url_(std::move(url)),
      options_(options),
      logger_(std::move(logger)),
      deferred_(loop),
      connect_timer_(new uv_timer_t),
      close_timer_(new uv_timer_t) {
    uv_timer_init(loop, connect_timer_.get());
    connect_timer_->data = this;
    uv_timer_init(loop, close_timer_.get());
    close_timer_->data = this;
}

Result<std::unique_ptr<WsTransport>> WsTransport::connect(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options,
                                                          Logger logger) {
    if (Status valid = check_remote_headers(options.headers); !valid.ok()) return valid;
    silence_library_log();
    std::unique_ptr<WsTransport> transport(new WsTransport(loop, std::move(url), options, std::move(logger)));

    void* foreign_loops[] = {loop};
    struct lws_context_creation_info info;
    std::memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = kProtocols;
    // libwebsockets finishes destroying a context on later loop turns, calling back as it
    // closes the connection: the callbacks reach the transport through a target that
    // outlives it and is freed with the context's vhost.
    auto* target = new CallbackTarget{transport.get(), nullptr};
    info.user = target;
    info.foreign_loops = foreign_loops;
    auto* reaper = new ContextReaper;
    reaper->target = target;
    uv_timer_init(loop, &reaper->timer);
    reaper->timer.data = reaper;
    info.pcontext = &reaper->context;
    // The client's loop, not a loop of its own; no signal handlers of its own either.
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN;
    info.fd_limit_per_thread = 8;  // one connection (and lws's own event pipe)
    if (transport->url_.tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        if (!options.ca_file.empty()) info.client_ssl_ca_filepath = transport->options_.ca_file.c_str();
    }
    transport->context_ = lws().create_context(&info);
    transport->target_ = target;
    reaper->context = transport->context_;
    transport->reaper_ = reaper;
    if (transport->context_ == nullptr) {
        transport->target_ = nullptr;
        reaper->finish();  // frees the target too
        transport->reaper_ = nullptr;
        return Status(Errc::io_error, "cannot set up the WebSocket client for " + transport->url_.redacted +
                                          (options.ca_file.empty()
                                               ? std::string()
                                               : " (is the CA file '" + options.ca_file + "' a readable PEM file?)"));
    }
    return transport;
}

WsTransport::~WsTransport() {
    events_ = nullptr;
    destroy_context();
}

void WsTransport::destroy_context() {
    if (context_ == nullptr) return;
    destroying_ = true;
    wsi_ = nullptr;
    target_->owner = nullptr;  // no callback reaches this transport again
    context_ = nullptr;
    ContextReaper::reap(reaper_);
    reaper_ = nullptr;
}

void WsTransport::start(TransportEvents* events) {
    events_ = events;
    started_ = true;
    if (context_ == nullptr) return;
    logger_(LogLevel::info, log_source::transport, "connecting to " + url_.redacted);

    struct lws_client_connect_info info;
    std::memset(&info, 0, sizeof info);
    info.context = context_;
    info.address = url_.host.c_str();
    info.port = url_.port;
    info.path = url_.path.c_str();
    info.host = url_.host.c_str();
    info.origin = url_.host.c_str();
    info.local_protocol_name = kProtocols[0].name;
    info.ssl_connection = url_.tls ? LCCSCF_USE_SSL : 0;
    info.pwsi = &wsi_;
    target_->connection = lws().client_connect_via_info(&info);
    if (target_->connection == nullptr && !closed_) {
        deferred_.post([this] { on_connect_error("the connection could not be started"); });
        return;
    }
    if (options_.connect_timeout.count() > 0 && !closed_) {
        uv_timer_start(
            connect_timer_.get(),
            [](uv_timer_t* timer) {
                auto* self = static_cast<WsTransport*>(timer->data);
                if (self->wsi_ != nullptr) lws().set_timeout(self->wsi_, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
                self->report_closed(
                    Status(Errc::timed_out, "connecting to the agent at " + self->url_.redacted + " timed out after " +
                                                std::to_string(self->options_.connect_timeout.count()) + " ms"));
            },
            static_cast<uint64_t>(options_.connect_timeout.count()), 0);
    }
}

int WsTransport::on_lws_event(struct lws* wsi, int reason, void* in, std::size_t len) {
    if (destroying_) return 0;
    switch (reason) {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: {
            auto** cursor = static_cast<unsigned char**>(in);
            unsigned char* end = *cursor + len;
            for (const auto& [name, value] : options_.headers) {
                std::string lws_name = name + ":";
                if (lws().add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>(lws_name.c_str()),
                                                  reinterpret_cast<const unsigned char*>(value.data()),
                                                  static_cast<int>(value.size()), cursor, end) != 0) {
                    return -1;  // more header bytes than the handshake buffer holds
                }
            }
            return 0;
        }
        case LWS_CALLBACK_CLIENT_ESTABLISHED: on_established(); return 0;
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            if (close_requested_ && outgoing_.empty()) {
                lws().close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nullptr, 0);
                return -1;
            }
            on_writable();
            return closed_ ? -1 : 0;
        case LWS_CALLBACK_CLIENT_RECEIVE:
            on_receive(static_cast<char*>(in), len, lws().is_final_fragment(wsi) != 0);
            return closed_ ? -1 : 0;
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if (len >= 2) {
                auto* code = static_cast<unsigned char*>(in);
                peer_close_code_ = (code[0] << 8) | code[1];
            }
            return 0;
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
            // A refused upgrade has an HTTP status (401, 403, 404...): the host needs it.
            unsigned int status = wsi != nullptr ? lws().http_client_http_response(wsi) : 0;
            std::string why = in != nullptr ? static_cast<const char*>(in) : "the connection failed";
            if (status != 0 && status != 101) why = "HTTP " + std::to_string(status) + " (" + why + ")";
            wsi_ = nullptr;
            on_connect_error(why.c_str());
            return 0;
        }
        case LWS_CALLBACK_CLIENT_CLOSED: {
            wsi_ = nullptr;
            std::string why = close_requested_ ? "the connection was closed by the client"
                                               : "the agent at " + url_.redacted + " closed the WebSocket";
            if (!close_requested_ && peer_close_code_ != 0) why += " (code " + std::to_string(peer_close_code_) + ")";
            report_closed(Status(Errc::connection_closed, why));
            return 0;
        }
        case LWS_CALLBACK_WSI_DESTROY:
            if (wsi == wsi_) wsi_ = nullptr;
            return 0;
        default: return 0;
    }
}

void WsTransport::on_established() {
    established_ = true;
    uv_timer_stop(connect_timer_.get());
    logger_(LogLevel::info, log_source::transport, "connected to " + url_.redacted + " (WebSocket)");
    if (!outgoing_.empty() || close_requested_) lws().callback_on_writable(wsi_);
}

void WsTransport::on_writable() {
    if (outgoing_.empty() || wsi_ == nullptr) return;
    std::string& message = outgoing_.front().framed;
    std::size_t payload = message.size() - LWS_PRE;
    // libwebsockets keeps what the socket did not take and sends it before the next
    // writable callback, so a whole message is always handed over at once.
    int written = lws().write(wsi_, reinterpret_cast<unsigned char*>(&message[LWS_PRE]), payload, LWS_WRITE_TEXT);
    queued_bytes_ -= payload;
    if (outgoing_.front().cause == WriteCause::agent) queued_agent_bytes_ -= payload;
    outgoing_.pop_front();
    throttle_.update(queued_agent_bytes_);
    if (written < static_cast<int>(payload)) {
        report_closed(Status(Errc::io_error, "writing to the agent at " + url_.redacted + " failed"));
        return;
    }
    if (!outgoing_.empty() || close_requested_) lws().callback_on_writable(wsi_);
}

void WsTransport::on_receive(char* data, std::size_t size, bool final_fragment) {
    flatten_line_breaks(data, size);
    if (events_ != nullptr && size > 0) events_->on_transport_data(data, size);
    if (events_ != nullptr && final_fragment) events_->on_transport_data(newline_, 1);
}

void WsTransport::on_connect_error(const char* reason) {
    // libwebsockets' account may quote the server's answer: no header value of ours in it.
    std::string why = without_secrets(reason, header_secrets(options_.headers));
    // A refused upgrade says so; the status tells 401 from 404.
    report_closed(Status(Errc::connection_closed, "cannot connect to the agent at " + url_.redacted + ": " + why));
}

void WsTransport::write(std::string_view bytes, WriteCause cause) {
    if (close_requested_ || closed_) return;
    split_outgoing_lines(partial_out_, bytes, [this, cause](std::string message) {
        std::string framed(LWS_PRE, '\0');
        framed += message;
        queued_bytes_ += message.size();
        if (cause == WriteCause::agent) queued_agent_bytes_ += message.size();
        outgoing_.push_back(Outgoing{std::move(framed), cause});
    });
    throttle_.update(queued_agent_bytes_);
    if (established_ && wsi_ != nullptr) lws().callback_on_writable(wsi_);
}

void WsTransport::close() {
    if (close_requested_ || closed_) return;
    close_requested_ = true;
    throttle_.release();
    if (established_ && wsi_ != nullptr) {
        lws().callback_on_writable(wsi_);  // sends what is queued, then the close frame
        // ...unless the server stopped reading: then the socket never becomes writable.
        uv_timer_start(
            close_timer_.get(), [](uv_timer_t* timer) { static_cast<WsTransport*>(timer->data)->on_close_overdue(); },
            kCloseGraceMs, 0);
        return;
    }
    if (wsi_ != nullptr) lws().set_timeout(wsi_, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    deferred_.post(
        [this] { report_closed(Status(Errc::connection_closed, "the connection was closed by the client")); });
}

void WsTransport::on_close_overdue() {
    if (closed_) return;
    if (queued_bytes_ > 0) {
        logger_(LogLevel::warning, log_source::transport,
                std::to_string(queued_bytes_) + " bytes queued for the agent at " + url_.redacted +
                    " were dropped: it did not read them within " + std::to_string(kCloseGraceMs) + " ms of close()");
    }
    if (wsi_ != nullptr) lws().set_timeout(wsi_, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    report_closed(Status(Errc::connection_closed, "the connection was closed by the client"));
}

void WsTransport::detach() { events_ = nullptr; }

void WsTransport::set_write_limits(WriteLimits limits) { throttle_.configure(this, std::move(limits), logger_); }

void WsTransport::pause_reading() {
    read_paused_ = true;
    if (wsi_ != nullptr) lws().rx_flow_control(wsi_, 0);
}

void WsTransport::resume_reading() {
    read_paused_ = false;
    if (wsi_ != nullptr) lws().rx_flow_control(wsi_, 1);
}

void WsTransport::report_closed(Status why) {
    if (closed_) return;
    closed_ = true;
    uv_timer_stop(connect_timer_.get());
    uv_timer_stop(close_timer_.get());
    throttle_.release();
    outgoing_.clear();
    queued_bytes_ = queued_agent_bytes_ = 0;
    // libwebsockets keeps handles of its own on the loop while its context lives: end it
    // now (outside its callbacks), so a host's loop can run out once the client closed.
    deferred_.post([this] { destroy_context(); });
    if (events_ != nullptr) {
        auto* events = events_;
        events_ = nullptr;
        events->on_transport_closed(why);
    }
}

}  // namespace acp::detail
