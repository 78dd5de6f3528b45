// SPDX-License-Identifier: Apache-2.0
// The reading half of ConnectionCore: each line from the agent parsed in place, then
// matched to the request it answers or handed to the handler of its method; anything
// unusable answered or reported so that nobody waits forever.
#include "jsonrpc/connection_core.hpp"

#include <algorithm>
#include <utility>

#include "jsonrpc/traffic_redaction.hpp"

namespace acp::detail {

namespace {
// Keep the first bytes of each incoming line only to recover its id if parsing fails.
constexpr std::size_t kLineHeadBytes = 4096;
}  // namespace

void ConnectionCore::on_transport_closed(const Status& transport_why) {
    auto keep_alive = shared_from_this();
    framer_.finish(*this);
    closed_ = true;
    output_timer_.reset();
    Status why = transport_why;
    if (close_reason_) {
        // This side ended the connection: say why first, then how the end went.
        why = Status(close_reason_->code(), close_reason_->message() + " (" + transport_why.message() + ")");
        if (transport_why.agent_exit() != nullptr) why = why.with_agent_exit(*transport_why.agent_exit());
    }
    close_status_ = why;
    // Every request still waiting completes now, with why the connection ended.
    auto pending = std::move(pending_);
    pending_.clear();
    for (auto& entry : pending) {
        discard_timer(entry.second.timer);
        if (owner_gone_) continue;  // a handler destroyed the connection: drop the rest
        Status status =
            Status(Errc::connection_closed, "request " + entry.second.method + " did not complete: " + why.message());
        if (why.agent_exit() != nullptr) status = status.with_agent_exit(*why.agent_exit());
        run_host_callback(logger_, "reply handler for " + entry.second.method, [&] {
            entry.second.handler(Reply{status, nullptr});
        });
    }
    if (closed_handler && !owner_gone_) run_host_callback(logger_, "closed handler", [&] { closed_handler(why); });
}

void ConnectionCore::on_oversized_line(std::string_view head, std::size_t total_size) {
    auto keep_alive = shared_from_this();
    EnvelopePeek peek = peek_envelope(head);
    std::string what = "discarded an incoming line of " + std::to_string(total_size) + " bytes: over the limit of " +
                       std::to_string(framer_.max_line_bytes()) + " bytes";
    logger_(LogLevel::error, log_source::jsonrpc, what);
    if (observer && !owner_gone_) {
        run_host_callback(logger_, "traffic observer", [&] {
            observer(Direction::incoming, "[" + what + "] " + loggable_head(head, 200),
                     std::chrono::system_clock::now());
        });
    }
    fail_from_peek(peek, "the agent's message was too large (" + std::to_string(total_size) + " bytes)");
}

void ConnectionCore::fail_from_peek(const EnvelopePeek& peek, const std::string& reason) {
    if (peek.looks_like_response() && !peek.id->is_string()) {
        const int64_t id = peek.id->as_integer();
        if (pending_.count(id) != 0) {
            complete(id, Reply{Status(Errc::protocol_error, reason), nullptr});
            return;
        }
    }
    if (peek.looks_like_request()) send_error(peek.id, rpc_code::invalid_request, reason);
}

void ConnectionCore::on_line(char* line, std::size_t size) {
    auto keep_alive = shared_from_this();
    observe(Direction::incoming, std::string_view(line, size));
    if (line_shortcut && !owner_gone_ && took_shortcut(line, size)) return;
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

bool ConnectionCore::took_shortcut(char* line, std::size_t size) {
    bool took = false;
    // A throw comes from a host callback the shortcut ran after taking the line: the line
    // is taken (parsing it again would apply it twice), the throw reported.
    run_host_callback(logger_, "incoming line shortcut", [&] {
        took = true;
        took = line_shortcut(line, size);
    });
    return took;
}

void ConnectionCore::dispatch(const JsonValue& message) {
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

void ConnectionCore::dispatch_one(const JsonValue& message, const std::shared_ptr<Batch>& batch) {
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
            send_error(id, rpc_code::invalid_params, "Invalid params: params must be an object or an array", batch);
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

void ConnectionCore::report_invalid(const std::optional<RequestId>& id, const std::string& why,
                                    const std::shared_ptr<Batch>& batch, bool is_notification) {
    logger_(LogLevel::error, log_source::jsonrpc, "invalid message from the agent: " + why);
    if (!is_notification) send_error(id, rpc_code::invalid_request, "Invalid Request: " + why, batch);
}

void ConnectionCore::handle_response(const JsonValue& message, const JsonValue* id_value, bool valid_version) {
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
    // dispatch_one sends only messages with a result or an error here; exactly one is valid.
    if (!valid_version || (result != nullptr) == (error != nullptr)) {
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
        complete(id,
                 Reply{Status(Errc::protocol_error, "the agent's error response is malformed: " + to_json_text(*error)),
                       nullptr});
        return;
    }
    const JsonValue* data = find_member(*error, "data");
    Status failed =
        Status::rpc(code->GetInt(), std::string(string_view_of(*text)), data ? to_json_text(*data) : std::string());
    auto pending = pending_.find(id);
    if (code->GetInt() == rpc_code::request_cancelled && pending->second.withdrawn) {
        // The withdrawal took effect: cancelled, as the caller asked, not a failure.
        failed = Status(Errc::cancelled, "request " + pending->second.method + " was cancelled: " + failed.message())
                     .with_rpc_code(rpc_code::request_cancelled);
    }
    complete(id, Reply{std::move(failed), nullptr});
}

void ConnectionCore::handle_notification(std::string_view method, const JsonValue* params) {
    if (method == kCancelRequestMethod) {
        handle_cancel_request(params);
        return;
    }
    auto it = notification_handlers.find(std::string(method));
    if (it != notification_handlers.end()) {
        const std::shared_ptr<const NotificationHandler> handler = it->second;  // it may replace itself
        run_host_callback(logger_, "notification handler for ", method, [&] { (*handler)(params); });
        return;
    }
    // Unknown notifications are ignored ($/... silently), but the host hears of them.
    logger_(LogLevel::debug, log_source::jsonrpc, "unhandled notification " + std::string(method));
    if (unknown_notification_handler && !owner_gone_ && method.substr(0, 2) != "$/") {
        run_host_callback(logger_, "unknown notification handler",
                          [&] { unknown_notification_handler(method, params); });
    }
}

void ConnectionCore::handle_cancel_request(const JsonValue* params) {
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

void ConnectionCore::handle_request(RequestId id, std::string_view method, const JsonValue* params,
                                    const std::shared_ptr<Batch>& batch) {
    if (incoming_.count(id) != 0) {
        // Answered without the id: the request that holds it is still owed its one
        // response, and a peer must never get two responses for one id.
        const std::string why = "id " + id.to_string() + " is already in use by a pending request";
        logger_(LogLevel::error, log_source::jsonrpc, "invalid message from the agent: " + why);
        send_error(std::nullopt, rpc_code::invalid_request, "Invalid Request: " + why, batch);
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

}  // namespace acp::detail
