// SPDX-License-Identifier: Apache-2.0
// jsonrpc/connection_core.hpp — the state behind a Connection, shared with its Responders.
//
// Internal to the jsonrpc layer. The core is split by direction: connection_core.cpp
// writes (requests, notifications, answers, timeouts), message_dispatch.cpp reads (lines
// in, responses matched, requests and notifications handed to their handlers), and
// connection.cpp holds the public Connection and Responder over it.
#pragma once

#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "jsonrpc/connection.hpp"
#include "jsonrpc/envelope_peek.hpp"
#include "jsonrpc/message_parser.hpp"
#include "support/deferred_queue.hpp"
#include "support/utf8.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

inline constexpr std::string_view kCancelRequestMethod = "$/cancel_request";

// Runs a host callback; an exception escaping it is a host bug, reported, never let
// into libuv's C frames.
// `what` and `of` (its method, say) are joined only when it threw: the hot path (every
// notification) builds no string.
template <class Fn>
void run_host_callback(const Logger& logger, std::string_view what, std::string_view of, Fn&& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        logger(LogLevel::error, log_source::jsonrpc, std::string(what) + std::string(of) + " threw: " + e.what());
    } catch (...) {
        logger(LogLevel::error, log_source::jsonrpc,
               std::string(what) + std::string(of) + " threw a non-standard exception");
    }
}

template <class Fn>
void run_host_callback(const Logger& logger, std::string_view what, Fn&& fn) {
    run_host_callback(logger, what, std::string_view(), std::forward<Fn>(fn));
}

// Responses to the members of one incoming batch, sent together as one array.
struct Batch {
    std::vector<std::string> responses;
    std::size_t unanswered = 0;
    bool sealed = false;  // every member has been dispatched
};

struct ResponderState {
    std::weak_ptr<ConnectionCore> core;
    RequestId id;
    std::string method;
    std::shared_ptr<Batch> batch;
    std::function<void()> on_cancel;
    bool answered = false;
    bool cancel_requested = false;

    ResponderState(std::weak_ptr<ConnectionCore> c, RequestId i, std::string m, std::shared_ptr<Batch> b)
        : core(std::move(c)), id(std::move(i)), method(std::move(m)), batch(std::move(b)) {}
    ~ResponderState();
};

class ConnectionCore : public std::enable_shared_from_this<ConnectionCore>, private TransportEvents, private LineSink {
public:
    ConnectionCore(uv_loop_t* loop, std::unique_ptr<Transport> transport, Logger logger, ConnectionOptions options)
        : loop_(loop),
          transport_(std::move(transport)),
          logger_(std::move(logger)),
          framer_(options.max_line_bytes),
          deferred_(loop),
          writer_(out_),
          queued_output_timeout_(options.queued_output_timeout) {
        // `this` outlives the transport's use of it: the transport dies with the core, or
        // (a supervised process) forgets its limits when detached.
        transport_->set_write_limits(
            WriteLimits{options.max_queued_output_bytes, options.resume_reading_below_bytes,
                        [this](bool paused, std::size_t agent_bytes) { on_output_paused(paused, agent_bytes); }});
    }

    ~ConnectionCore() override {
        for (auto& entry : pending_) discard_timer(entry.second.timer);
        if (transport_) transport_->detach();
    }

    // --- configuration -------------------------------------------------------------

    std::unordered_map<std::string, RequestHandler> request_handlers;
    // Shared, so a dispatch keeps its handler alive (it may replace itself) without
    // copying the std::function for every notification.
    std::unordered_map<std::string, std::shared_ptr<const NotificationHandler>> notification_handlers;
    UnknownNotificationHandler unknown_notification_handler;
    LineShortcut line_shortcut;
    std::function<void(const Status&)> closed_handler;
    TrafficObserver observer;
    bool redact = true;

    void start() {
        if (started_) return;
        started_ = true;
        transport_->start(this);
    }

    // --- outgoing ------------------------------------------------------------------

    int64_t send_request(std::string_view method, const WriteFn& write_params, ReplyHandler handler,
                         RequestOptions options);

    void send_notification(std::string_view method, const WriteFn& write_params);

    bool cancel_request(int64_t id);
    bool withdraw_request(int64_t id);

    void close() {
        if (closed_ || close_requested_) return;
        close_requested_ = true;
        output_timer_.reset();
        if (transport_) transport_->close();
    }
    // The first call closes; later ones take the transport's next shutdown step now.
    void hasten_close() {
        if (closed_) return;
        if (!close_requested_) {
            close();
            return;
        }
        if (transport_) transport_->hasten_close();
    }

    // The owning Connection is going away: no more callbacks of any kind. The handlers
    // themselves stay until the core dies, because one of them may be running right now
    // (a host may destroy the connection from inside a callback).
    void abandon();

    bool is_closed() const { return closed_; }
    std::size_t pending_count() const { return pending_.size(); }
    std::size_t queued_output_bytes() const { return transport_ ? transport_->queued_bytes() : 0; }
    void hold_reading(bool held) {
        if (transport_) transport_->hold_reading(held);
    }

    // --- answering incoming requests (through ResponderState) ------------------------

    void answer(ResponderState& state, bool is_error, int code, std::string_view message, const WriteFn& write);

    const StringEdgeSurrogates* edge_surrogates(const JsonValue& string) const {
        return parser_.edge_surrogates(string);
    }

private:
    struct Pending {
        ReplyHandler handler;
        std::string method;
        uv_timer_t* timer = nullptr;
        bool withdrawn = false;  // $/cancel_request sent; the answer is still awaited
    };
    struct TimerTarget {
        std::weak_ptr<ConnectionCore> core;
        int64_t id;
    };

    static void discard_timer(uv_timer_t* timer);

    // --- writing ---------------------------------------------------------------------

    // A completion known at call time runs on a later loop turn, never inside the call.
    void complete_later(ReplyHandler handler, Status status);

    // Writes one message envelope into out_ around body(); a WriteFn that throws or does
    // not write exactly one value leaves nothing to send.
    template <class Body>
    Status write_message(Body&& body) {
        try {
            begin_message();
            body();
            writer_.EndObject();
        } catch (const std::exception& e) {
            return Status(Errc::internal, std::string("writing the message threw: ") + e.what());
        }
        if (!writer_.IsComplete()) return Status(Errc::internal, "the message was not written completely");
        // The last guard: whatever a layer above let through, nothing but UTF-8 is sent.
        if (!utf8_valid(std::string_view(out_.GetString(), out_.GetSize()))) {
            return Status(Errc::invalid_argument, "the message holds a string that is not valid UTF-8");
        }
        return Status();
    }

    void begin_message() {
        out_.Clear();
        writer_.Reset(out_);
        writer_.StartObject();
        writer_.Key("jsonrpc");
        writer_.String("2.0");
    }

    void write_params_or_empty(const WriteFn& write);

    void write_error_member(int code, std::string_view message, const WriteFn& write_data);

    // Shows a line to the traffic observer, secrets redacted (both directions: the agent
    // may echo them, and its own _meta may carry some).
    void observe(Direction direction, std::string_view line);

    // Sends the message in out_ as one line.
    void send_message(WriteCause cause);

    // Backpressure: reading from the peer paused (or resumed) because it leaves the
    // answers it asked for unread. Paused for queued_output_timeout_: the peer gets no
    // more time, the connection closes with why.
    void on_output_paused(bool paused, std::size_t agent_bytes);
    void give_up_on_unread_output();

    void send_error(const std::optional<RequestId>& id, int code, std::string_view message,
                    const std::shared_ptr<Batch>& batch = nullptr, const WriteFn& write_data = nullptr);

    void send_cancel_notification(int64_t id);

    void add_to_batch(const std::shared_ptr<Batch>& batch);

    void maybe_send_batch(const std::shared_ptr<Batch>& batch);

    void remember_abandoned(int64_t id);

    void complete(int64_t id, const Reply& reply);

    static void on_request_timeout(uv_timer_t* timer);

    // --- reading -----------------------------------------------------------------------

    void on_transport_data(char* data, std::size_t size) override {
        auto keep_alive = shared_from_this();
        framer_.feed(data, size, *this);
    }

    bool stopped() const override { return owner_gone_ || closed_; }

    void on_transport_closed(const Status& why) override;

    void on_oversized_line(std::string_view head, std::size_t total_size) override;

    // A line that could not be used: fail the request it answers, or answer the request
    // it carries, so nobody waits forever.
    void fail_from_peek(const EnvelopePeek& peek, const std::string& reason);

    void on_line(char* line, std::size_t size) override;

    bool took_shortcut(char* line, std::size_t size);
    void dispatch(const JsonValue& message);

    void dispatch_one(const JsonValue& message, const std::shared_ptr<Batch>& batch);

    // An invalid request is answered -32600; an invalid notification only reported
    // (notifications are never answered).
    void report_invalid(const std::optional<RequestId>& id, const std::string& why, const std::shared_ptr<Batch>& batch,
                        bool is_notification = false);

    void handle_response(const JsonValue& message, const JsonValue* id_value, bool valid_version);

    void handle_notification(std::string_view method, const JsonValue* params);

    void handle_cancel_request(const JsonValue* params);

    void handle_request(RequestId id, std::string_view method, const JsonValue* params,
                        const std::shared_ptr<Batch>& batch);

    friend struct ResponderState;
    friend class Responder;
    void batch_member_answered(const std::shared_ptr<Batch>& batch) {
        if (batch->unanswered > 0) --batch->unanswered;
        maybe_send_batch(batch);
    }

    uv_loop_t* loop_;
    std::unique_ptr<Transport> transport_;
    Logger logger_;
    LineFramer framer_;
    DeferredQueue deferred_;

    MessageParser parser_;
    std::string line_head_;

    rapidjson::StringBuffer out_;
    JsonWriter writer_;

    int64_t next_id_ = 0;
    std::unordered_map<int64_t, Pending> pending_;
    std::unordered_set<int64_t> abandoned_ids_;
    std::deque<int64_t> abandoned_order_;
    std::unordered_map<RequestId, std::weak_ptr<ResponderState>, RequestIdHash> incoming_;

    std::chrono::milliseconds queued_output_timeout_;
    UvHandlePtr<uv_timer_t> output_timer_;  // runs while reading is paused for unread answers
    std::size_t paused_agent_bytes_ = 0;
    std::optional<Status> close_reason_;  // why this side closed on its own, for the closed status

    Status close_status_;
    bool started_ = false;
    bool closed_ = false;
    bool close_requested_ = false;
    bool owner_gone_ = false;
};

}  // namespace acp::detail
