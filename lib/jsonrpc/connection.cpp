// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/connection.hpp"

#include <deque>
#include <exception>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "jsonrpc/envelope_peek.hpp"
#include "jsonrpc/message_parser.hpp"
#include "jsonrpc/traffic_redaction.hpp"
#include "support/deferred_queue.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

namespace {

constexpr std::string_view kCancelRequestMethod = "$/cancel_request";
// Ids of requests this side gave up on (cancelled, timed out), so a late response is
// recognised instead of being reported as unknown. Bounded: the oldest are forgotten.
constexpr std::size_t kRememberedAbandonedIds = 1024;
// Keep the first bytes of each incoming line only to recover its id if parsing fails.
constexpr std::size_t kLineHeadBytes = 4096;
// Runs a host callback; an exception escaping it is a host bug, reported, never let
// into libuv's C frames.
template <class Fn>
void run_host_callback(const Logger& logger, std::string_view what, Fn&& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        logger(LogLevel::error, log_source::jsonrpc, std::string(what) + " threw: " + e.what());
    } catch (...) {
        logger(LogLevel::error, log_source::jsonrpc, std::string(what) + " threw a non-standard exception");
    }
}

// Responses to the members of one incoming batch, sent together as one array.
struct Batch {
    std::vector<std::string> responses;
    std::size_t unanswered = 0;
    bool sealed = false;  // every member has been dispatched
};

}  // namespace

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

class ConnectionCore : public std::enable_shared_from_this<ConnectionCore>,
                       private TransportEvents,
                       private LineSink {
public:
    ConnectionCore(uv_loop_t* loop, std::unique_ptr<Transport> transport, Logger logger, ConnectionOptions options)
        : loop_(loop),
          transport_(std::move(transport)),
          logger_(std::move(logger)),
          framer_(options.max_line_bytes),
          deferred_(loop),
          writer_(out_) {
        transport_->set_write_limits(options.max_queued_output_bytes, options.resume_reading_below_bytes);
    }

    ~ConnectionCore() override {
        for (auto& entry : pending_) discard_timer(entry.second.timer);
        if (transport_) transport_->detach();
    }

    // --- configuration -------------------------------------------------------------

    std::unordered_map<std::string, RequestHandler> request_handlers;
    std::unordered_map<std::string, NotificationHandler> notification_handlers;
    UnknownNotificationHandler unknown_notification_handler;
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
                         RequestOptions options) {
        const int64_t id = next_id_++;
        if (closed_) {
            complete_later(std::move(handler), close_status_);
            return id;
        }
        Status written = write_message([&] {
            writer_.Key("id");
            writer_.Int64(id);
            writer_.Key("method");
            write_string(writer_, method);
            writer_.Key("params");
            write_params_or_empty(write_params);
        });
        if (!written) {
            complete_later(std::move(handler), Status(Errc::internal, "request " + std::string(method) +
                                                                          " was not sent: " + written.message()));
            return id;
        }
        Pending& pending = pending_[id];
        pending.handler = std::move(handler);
        pending.method = std::string(method);
        if (options.timeout.count() > 0) {
            pending.timer = new uv_timer_t{};
            uv_timer_init(loop_, pending.timer);
            pending.timer->data = new TimerTarget{weak_from_this(), id};
            uv_timer_start(pending.timer, &ConnectionCore::on_request_timeout,
                           static_cast<uint64_t>(options.timeout.count()), 0);
        }
        send_message();
        return id;
    }

    void send_notification(std::string_view method, const WriteFn& write_params) {
        if (closed_) {
            logger_(LogLevel::debug, log_source::jsonrpc,
                    "notification " + std::string(method) + " not sent: the connection is closed");
            return;
        }
        Status written = write_message([&] {
            writer_.Key("method");
            write_string(writer_, method);
            writer_.Key("params");
            write_params_or_empty(write_params);
        });
        if (!written) {
            logger_(LogLevel::error, log_source::jsonrpc,
                    "notification " + std::string(method) + " not sent: " + written.message());
            return;
        }
        send_message();
    }

    bool cancel_request(int64_t id) {
        auto it = pending_.find(id);
        if (it == pending_.end()) return false;
        Pending pending = std::move(it->second);
        pending_.erase(it);
        discard_timer(pending.timer);
        remember_abandoned(id);
        send_cancel_notification(id);
        complete_later(std::move(pending.handler), Status(Errc::cancelled, "request " + pending.method + " was cancelled"));
        return true;
    }

    void close() {
        if (closed_ || close_requested_) return;
        close_requested_ = true;
        if (transport_) transport_->close();
    }

    // The owning Connection is going away: no more callbacks of any kind. The handlers
    // themselves stay until the core dies, because one of them may be running right now
    // (a host may destroy the connection from inside a callback).
    void abandon() {
        owner_gone_ = true;
        for (auto& entry : pending_) discard_timer(entry.second.timer);
        pending_.clear();
        if (transport_) {
            transport_->detach();
            transport_->close();
        }
    }

    bool is_closed() const { return closed_; }
    std::size_t pending_count() const { return pending_.size(); }
    std::size_t queued_output_bytes() const { return transport_ ? transport_->queued_bytes() : 0; }

    // --- answering incoming requests (through ResponderState) ------------------------

    void answer(ResponderState& state, bool is_error, int code, std::string_view message, const WriteFn& write) {
        incoming_.erase(state.id);
        if (closed_) {
            logger_(LogLevel::debug, log_source::jsonrpc,
                    "answer to " + state.method + " not sent: the connection is closed");
            return;
        }
        Status written = write_message([&] {
            writer_.Key("id");
            state.id.write(writer_);
            if (is_error) {
                write_error_member(code, message, write);
            } else {
                writer_.Key("result");
                write_params_or_empty(write);
            }
        });
        if (!written) {
            // The request is still owed an answer: say what went wrong.
            logger_(LogLevel::error, log_source::jsonrpc,
                    "answer to " + state.method + " " + state.id.to_string() + " not written: " + written.message());
            (void)write_message([&] {
                writer_.Key("id");
                state.id.write(writer_);
                write_error_member(rpc_code::internal_error, "Internal error: the client could not write its answer",
                                   nullptr);
            });
        }
        if (state.batch) {
            add_to_batch(state.batch);
        } else {
            send_message();
        }
    }

    const StringEdgeSurrogates* edge_surrogates(const JsonValue& string) const {
        return parser_.edge_surrogates(string);
    }

private:
    struct Pending {
        ReplyHandler handler;
        std::string method;
        uv_timer_t* timer = nullptr;
    };
    struct TimerTarget {
        std::weak_ptr<ConnectionCore> core;
        int64_t id;
    };

    static void discard_timer(uv_timer_t* timer) {
        if (timer == nullptr) return;
        delete static_cast<TimerTarget*>(timer->data);
        timer->data = nullptr;
        close_and_delete(timer);
    }

    // --- writing ---------------------------------------------------------------------

    // A completion known at call time runs on a later loop turn, never inside the call.
    void complete_later(ReplyHandler handler, Status status) {
        deferred_.post([this, handler = std::move(handler), status = std::move(status)] {
            if (!owner_gone_) run_host_callback(logger_, "reply handler", [&] { handler(Reply{status, nullptr}); });
        });
    }

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
        return Status();
    }

    void begin_message() {
        out_.Clear();
        writer_.Reset(out_);
        writer_.StartObject();
        writer_.Key("jsonrpc");
        writer_.String("2.0");
    }

    void write_params_or_empty(const WriteFn& write) {
        if (write) {
            write(writer_);
        } else {
            writer_.StartObject();
            writer_.EndObject();
        }
    }

    void write_error_member(int code, std::string_view message, const WriteFn& write_data) {
        writer_.Key("error");
        writer_.StartObject();
        writer_.Key("code");
        writer_.Int(code);
        writer_.Key("message");
        write_string(writer_, message);
        if (write_data) {
            writer_.Key("data");
            write_data(writer_);
        }
        writer_.EndObject();
    }

    // Shows a line to the traffic observer, secrets redacted (both directions: the agent
    // may echo them, and its own _meta may carry some).
    void observe(Direction direction, std::string_view line) {
        if (!observer || owner_gone_) return;
        std::string redacted;
        std::string_view shown = line;
        if (redact && contains_secrets(line)) {
            redacted = redact_secrets(line);
            shown = redacted;
        }
        run_host_callback(logger_, "traffic observer",
                          [&] { observer(direction, shown, std::chrono::system_clock::now()); });
    }

    // Sends the message in out_ as one line.
    void send_message() {
        std::string_view line(out_.GetString(), out_.GetSize());
        observe(Direction::outgoing, line);
        out_.Put('\n');
        transport_->write(std::string_view(out_.GetString(), out_.GetSize()));
    }

    void send_error(const std::optional<RequestId>& id, int code, std::string_view message,
                    const std::shared_ptr<Batch>& batch = nullptr, const WriteFn& write_data = nullptr) {
        if (closed_) return;
        (void)write_message([&] {
            writer_.Key("id");
            if (id) {
                id->write(writer_);
            } else {
                writer_.Null();
            }
            write_error_member(code, message, write_data);
        });
        if (batch) {
            add_to_batch(batch);
        } else {
            send_message();
        }
    }

    void send_cancel_notification(int64_t id) {
        send_notification(kCancelRequestMethod, [id](JsonWriter& w) {
            w.StartObject();
            w.Key("requestId");
            w.Int64(id);
            w.EndObject();
        });
    }

    void add_to_batch(const std::shared_ptr<Batch>& batch) {
        batch->responses.emplace_back(out_.GetString(), out_.GetSize());
        maybe_send_batch(batch);
    }

    void maybe_send_batch(const std::shared_ptr<Batch>& batch) {
        if (!batch->sealed || batch->unanswered > 0 || batch->responses.empty() || closed_) return;
        out_.Clear();
        out_.Put('[');
        for (std::size_t i = 0; i < batch->responses.size(); ++i) {
            if (i > 0) out_.Put(',');
            for (char c : batch->responses[i]) out_.Put(c);
        }
        out_.Put(']');
        batch->responses.clear();
        send_message();
    }

    void remember_abandoned(int64_t id) {
        abandoned_ids_.insert(id);
        abandoned_order_.push_back(id);
        if (abandoned_order_.size() > kRememberedAbandonedIds) {
            abandoned_ids_.erase(abandoned_order_.front());
            abandoned_order_.pop_front();
        }
    }

    void complete(int64_t id, const Reply& reply) {
        auto it = pending_.find(id);
        if (it == pending_.end() || owner_gone_) return;
        Pending pending = std::move(it->second);
        pending_.erase(it);
        discard_timer(pending.timer);
        run_host_callback(logger_, "reply handler for " + pending.method, [&] { pending.handler(reply); });
    }

    static void on_request_timeout(uv_timer_t* timer) {
        auto* target = static_cast<TimerTarget*>(timer->data);
        auto core = target->core.lock();
        const int64_t id = target->id;
        if (!core) return;
        auto it = core->pending_.find(id);
        if (it == core->pending_.end()) return;
        const std::string method = it->second.method;
        core->remember_abandoned(id);
        core->send_cancel_notification(id);
        core->complete(id, Reply{Status(Errc::timed_out, "request " + method + " timed out"), nullptr});
    }

    // --- reading -----------------------------------------------------------------------

    void on_transport_data(char* data, std::size_t size) override {
        auto keep_alive = shared_from_this();
        framer_.feed(data, size, *this);
    }

    bool stopped() const override { return owner_gone_ || closed_; }

    void on_transport_closed(const Status& why) override {
        auto keep_alive = shared_from_this();
        framer_.finish(*this);
        closed_ = true;
        close_status_ = why;
        // Every request still waiting completes now, with why the connection ended.
        auto pending = std::move(pending_);
        pending_.clear();
        for (auto& entry : pending) {
            discard_timer(entry.second.timer);
            if (owner_gone_) continue;  // a handler destroyed the connection: drop the rest
            Status status = Status(Errc::connection_closed, "request " + entry.second.method +
                                                                " did not complete: " + why.message());
            if (why.agent_exit() != nullptr) status = status.with_agent_exit(*why.agent_exit());
            run_host_callback(logger_, "reply handler for " + entry.second.method,
                              [&] { entry.second.handler(Reply{status, nullptr}); });
        }
        if (closed_handler && !owner_gone_) run_host_callback(logger_, "closed handler", [&] { closed_handler(why); });
    }

    void on_oversized_line(std::string_view head, std::size_t total_size) override {
        auto keep_alive = shared_from_this();
        EnvelopePeek peek = peek_envelope(head);
        std::string what = "discarded an incoming line of " + std::to_string(total_size) +
                           " bytes: over the limit of " + std::to_string(framer_.max_line_bytes()) + " bytes";
        logger_(LogLevel::error, log_source::jsonrpc, what);
        if (observer && !owner_gone_) {
            run_host_callback(logger_, "traffic observer", [&] {
                observer(Direction::incoming, "[" + what + "] " + loggable_head(head, 200),
                         std::chrono::system_clock::now());
            });
        }
        fail_from_peek(peek, "the agent's message was too large (" + std::to_string(total_size) + " bytes)");
    }

    // A line that could not be used: fail the request it answers, or answer the request
    // it carries, so nobody waits forever.
    void fail_from_peek(const EnvelopePeek& peek, const std::string& reason) {
        if (peek.looks_like_response() && !peek.id->is_string()) {
            const int64_t id = peek.id->as_integer();
            if (pending_.count(id) != 0) {
                complete(id, Reply{Status(Errc::protocol_error, reason), nullptr});
                return;
            }
        }
        if (peek.looks_like_request()) send_error(peek.id, rpc_code::invalid_request, reason);
    }

    void on_line(char* line, std::size_t size) override {
        auto keep_alive = shared_from_this();
        observe(Direction::incoming, std::string_view(line, size));
        // In-place parsing overwrites the line; keep its head to recover the id on failure.
        line_head_.assign(line, std::min(size, kLineHeadBytes));
        const JsonValue* message = parser_.parse(line, size);
        if (message == nullptr) {
            logger_(LogLevel::error, log_source::jsonrpc,
                    "malformed message from the agent (" + parser_.error() + "): " + loggable_head(line_head_, 200));
            EnvelopePeek peek = peek_envelope(line_head_);
            if (peek.looks_like_response() && !peek.id->is_string() && pending_.count(peek.id->as_integer()) != 0) {
                fail_from_peek(peek, "the agent's response was malformed JSON");
            } else {
                // JSON-RPC: a parse error is answered with id null.
                send_error(std::nullopt, rpc_code::parse_error, "Parse error");
            }
        } else {
            dispatch(*message);
        }
    }

    void dispatch(const JsonValue& message) {
        if (message.IsArray()) {
            if (message.Empty()) {
                send_error(std::nullopt, rpc_code::invalid_request, "Invalid Request: empty batch");
                return;
            }
            // ACP never sends batches, but JSON-RPC allows them: answer each member, all
            // answers in one array once every request member is answered.
            auto batch = std::make_shared<Batch>();
            for (const auto& member : message.GetArray()) {
                if (stopped()) return;
                dispatch_one(member, batch);
            }
            batch->sealed = true;
            maybe_send_batch(batch);
            return;
        }
        dispatch_one(message, nullptr);
    }

    void dispatch_one(const JsonValue& message, const std::shared_ptr<Batch>& batch) {
        if (!message.IsObject()) {
            report_invalid(std::nullopt, "a message must be a JSON object", batch);
            return;
        }
        const JsonValue* version = find_member(message, "jsonrpc");
        const JsonValue* method = find_member(message, "method");
        const JsonValue* id_value = find_member(message, "id");
        std::optional<RequestId> id = id_value ? RequestId::from_json(*id_value) : std::nullopt;
        const bool valid_version = version != nullptr && version->IsString() && string_view_of(*version) == "2.0";

        if (method == nullptr) {
            if (find_member(message, "result") != nullptr || find_member(message, "error") != nullptr) {
                handle_response(message, id_value, valid_version);
            } else {
                report_invalid(id, "the message is neither a request, a notification nor a response", batch);
            }
            return;
        }
        if (!valid_version) {
            report_invalid(id, "\"jsonrpc\" must be \"2.0\"", batch, id_value == nullptr);
            return;
        }
        if (!method->IsString()) {
            report_invalid(id, "\"method\" must be a string", batch, id_value == nullptr);
            return;
        }
        const JsonValue* params = find_member(message, "params");
        if (params != nullptr && !params->IsObject() && !params->IsArray()) {
            if (id_value == nullptr) {
                logger_(LogLevel::warning, log_source::jsonrpc,
                        "ignored notification " + std::string(string_view_of(*method)) +
                            ": params must be an object or an array");
            } else {
                send_error(id, rpc_code::invalid_params, "Invalid params: params must be an object or an array",
                           batch);
            }
            return;
        }
        if (id_value == nullptr) {
            handle_notification(string_view_of(*method), params);
        } else if (!id) {
            report_invalid(std::nullopt, "a request id must be a string or an integer", batch);
        } else {
            handle_request(std::move(*id), string_view_of(*method), params, batch);
        }
    }

    // An invalid request is answered -32600; an invalid notification only reported
    // (notifications are never answered).
    void report_invalid(const std::optional<RequestId>& id, const std::string& why,
                        const std::shared_ptr<Batch>& batch, bool is_notification = false) {
        logger_(LogLevel::error, log_source::jsonrpc, "invalid message from the agent: " + why);
        if (!is_notification) send_error(id, rpc_code::invalid_request, "Invalid Request: " + why, batch);
    }

    void handle_response(const JsonValue& message, const JsonValue* id_value, bool valid_version) {
        if (id_value == nullptr || !id_value->IsInt64()) {
            std::string shown = id_value ? to_json_text(*id_value) : "no id";
            const JsonValue* error = find_member(message, "error");
            logger_(LogLevel::warning, log_source::jsonrpc,
                    "response with id " + shown + " matches no request of ours" +
                        (error ? ": " + to_json_text(*error) : std::string()));
            return;
        }
        const int64_t id = id_value->GetInt64();
        if (pending_.count(id) == 0) {
            if (abandoned_ids_.count(id) != 0) {
                logger_(LogLevel::debug, log_source::jsonrpc,
                        "late response to abandoned request " + std::to_string(id) + " dropped");
            } else {
                logger_(LogLevel::warning, log_source::jsonrpc,
                        "response with id " + std::to_string(id) + " matches no pending request");
            }
            return;
        }
        const JsonValue* result = find_member(message, "result");
        const JsonValue* error = find_member(message, "error");
        if (!valid_version || (result != nullptr && error != nullptr)) {
            complete(id, Reply{Status(Errc::protocol_error, "the agent's response is not valid JSON-RPC 2.0"), nullptr});
            return;
        }
        if (result != nullptr) {
            complete(id, Reply{Status(), result});
            return;
        }
        const JsonValue* code = find_member(*error, "code");
        const JsonValue* text = find_member(*error, "message");
        if (code == nullptr || !code->IsInt() || text == nullptr || !text->IsString()) {
            complete(id, Reply{Status(Errc::protocol_error, "the agent's error response is malformed: " +
                                                                 to_json_text(*error)),
                               nullptr});
            return;
        }
        const JsonValue* data = find_member(*error, "data");
        complete(id, Reply{Status::rpc(code->GetInt(), std::string(string_view_of(*text)),
                                       data ? to_json_text(*data) : std::string()),
                           nullptr});
    }

    void handle_notification(std::string_view method, const JsonValue* params) {
        if (method == kCancelRequestMethod) {
            handle_cancel_request(params);
            return;
        }
        auto it = notification_handlers.find(std::string(method));
        if (it != notification_handlers.end()) {
            NotificationHandler handler = it->second;  // the handler may replace itself
            run_host_callback(logger_, "notification handler for " + std::string(method),
                              [&] { handler(params); });
            return;
        }
        // Unknown notifications are ignored ($/... silently), but the host hears of them.
        logger_(LogLevel::debug, log_source::jsonrpc, "unhandled notification " + std::string(method));
        if (unknown_notification_handler && !owner_gone_ && method.substr(0, 2) != "$/") {
            run_host_callback(logger_, "unknown notification handler",
                              [&] { unknown_notification_handler(method, params); });
        }
    }

    void handle_cancel_request(const JsonValue* params) {
        const JsonValue* id_value = params ? find_member(*params, "requestId") : nullptr;
        std::optional<RequestId> id = id_value ? RequestId::from_json(*id_value) : std::nullopt;
        if (!id) {
            logger_(LogLevel::warning, log_source::jsonrpc, "$/cancel_request without a valid requestId ignored");
            return;
        }
        // Only requests received from the agent can be cancelled by it.
        auto it = incoming_.find(*id);
        auto state = it == incoming_.end() ? nullptr : it->second.lock();
        if (!state || state->answered || state->cancel_requested) return;
        state->cancel_requested = true;
        if (state->on_cancel) {
            auto on_cancel = std::move(state->on_cancel);
            run_host_callback(logger_, "cancel handler for " + state->method, [&] { on_cancel(); });
        }
    }

    void handle_request(RequestId id, std::string_view method, const JsonValue* params,
                        const std::shared_ptr<Batch>& batch) {
        if (incoming_.count(id) != 0) {
            send_error(id, rpc_code::invalid_request, "Invalid Request: id " + id.to_string() + " is already in use",
                       batch);
            return;
        }
        auto it = request_handlers.find(std::string(method));
        if (it == request_handlers.end()) {
            std::string name(method);
            send_error(id, rpc_code::method_not_found, "Method not found", batch, [&name](JsonWriter& w) {
                w.StartObject();
                w.Key("method");
                write_string(w, name);
                w.EndObject();
            });
            return;
        }
        auto state = std::make_shared<ResponderState>(weak_from_this(), id, std::string(method), batch);
        if (batch) ++batch->unanswered;
        incoming_[id] = state;
        RequestHandler handler = it->second;
        Responder responder(std::move(state));
        run_host_callback(logger_, "request handler for " + std::string(method),
                          [&] { handler(params, std::move(responder)); });
    }

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

    Status close_status_;
    bool started_ = false;
    bool closed_ = false;
    bool close_requested_ = false;
    bool owner_gone_ = false;
};

// --- Responder ----------------------------------------------------------------------

ResponderState::~ResponderState() {
    if (answered) return;
    auto connection = core.lock();
    if (!connection) return;
    answered = true;
    connection->logger_(LogLevel::error, log_source::jsonrpc,
                        "request " + method + " " + id.to_string() + " was dropped unanswered; answering -32603");
    connection->answer(*this, true, rpc_code::internal_error, "Internal error: the client dropped this request",
                       nullptr);
    if (batch) connection->batch_member_answered(batch);
}

Responder::Responder(std::shared_ptr<ResponderState> state) : state_(std::move(state)) {}

const RequestId& Responder::id() const { return state_->id; }
const std::string& Responder::method() const { return state_->method; }
bool Responder::answered() const { return state_->answered; }
bool Responder::cancel_requested() const { return state_->cancel_requested; }

void Responder::on_cancel(std::function<void()> fn) const {
    if (state_->answered) return;
    state_->on_cancel = std::move(fn);
}

void Responder::respond(const WriteFn& write_result) const { answer_once(false, 0, {}, write_result); }

void Responder::fail(int code, std::string_view message, const WriteFn& write_data) const {
    answer_once(true, code, message, write_data);
}

void Responder::answer_once(bool is_error, int code, std::string_view message, const WriteFn& write) const {
    auto connection = state_->core.lock();
    if (state_->answered) {
        if (connection) {
            connection->logger_(LogLevel::error, log_source::jsonrpc,
                                "request " + state_->method + " " + state_->id.to_string() +
                                    " was answered twice; the second answer is dropped");
        }
        return;
    }
    state_->answered = true;
    state_->on_cancel = nullptr;
    if (!connection) return;
    connection->answer(*state_, is_error, code, message, write);
    if (state_->batch) connection->batch_member_answered(state_->batch);
}

// --- Connection ---------------------------------------------------------------------

Connection::Connection(uv_loop_t* loop, std::unique_ptr<Transport> transport, Logger logger,
                       ConnectionOptions options)
    : core_(std::make_shared<ConnectionCore>(loop, std::move(transport), std::move(logger), options)) {}

Connection::~Connection() { core_->abandon(); }

void Connection::on_request(std::string method, RequestHandler handler) {
    core_->request_handlers[std::move(method)] = std::move(handler);
}
void Connection::on_notification(std::string method, NotificationHandler handler) {
    core_->notification_handlers[std::move(method)] = std::move(handler);
}
void Connection::on_unknown_notification(UnknownNotificationHandler handler) {
    core_->unknown_notification_handler = std::move(handler);
}
void Connection::on_closed(std::function<void(const Status&)> handler) { core_->closed_handler = std::move(handler); }
void Connection::set_traffic_observer(TrafficObserver observer, bool redact) {
    core_->observer = std::move(observer);
    core_->redact = redact;
}
void Connection::start() { core_->start(); }
int64_t Connection::send_request(std::string_view method, const WriteFn& write_params, ReplyHandler handler,
                                 RequestOptions options) {
    return core_->send_request(method, write_params, std::move(handler), options);
}
void Connection::send_notification(std::string_view method, const WriteFn& write_params) {
    core_->send_notification(method, write_params);
}
bool Connection::cancel_request(int64_t id) { return core_->cancel_request(id); }
void Connection::close() { core_->close(); }
bool Connection::is_closed() const { return core_->is_closed(); }
std::size_t Connection::pending_requests() const { return core_->pending_count(); }
std::size_t Connection::queued_output_bytes() const { return core_->queued_output_bytes(); }
const StringEdgeSurrogates* Connection::edge_surrogates(const JsonValue& string) const {
    return core_->edge_surrogates(string);
}

}  // namespace acp::detail
