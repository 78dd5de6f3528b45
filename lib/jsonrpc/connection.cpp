// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/connection.hpp"

#include <utility>

#include "jsonrpc/connection_core.hpp"

namespace acp::detail {

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

Connection::Connection(uv_loop_t* loop, std::unique_ptr<Transport> transport, Logger logger, ConnectionOptions options)
    : core_(std::make_shared<ConnectionCore>(loop, std::move(transport), std::move(logger), options)) {}

Connection::~Connection() { core_->abandon(); }

void Connection::on_request(std::string method, RequestHandler handler) {
    core_->request_handlers[std::move(method)] = std::move(handler);
}
void Connection::on_notification(std::string method, NotificationHandler handler) {
    core_->notification_handlers[std::move(method)] = std::make_shared<const NotificationHandler>(std::move(handler));
}
void Connection::set_line_shortcut(LineShortcut shortcut) { core_->line_shortcut = std::move(shortcut); }
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
bool Connection::withdraw_request(int64_t id) { return core_->withdraw_request(id); }
void Connection::close() { core_->close(); }
void Connection::hasten_close() { core_->hasten_close(); }
bool Connection::is_closed() const { return core_->is_closed(); }
std::size_t Connection::pending_requests() const { return core_->pending_count(); }
std::size_t Connection::queued_output_bytes() const { return core_->queued_output_bytes(); }
void Connection::hold_reading(bool held) { core_->hold_reading(held); }
const StringEdgeSurrogates* Connection::edge_surrogates(const JsonValue& string) const {
    return core_->edge_surrogates(string);
}

}  // namespace acp::detail
