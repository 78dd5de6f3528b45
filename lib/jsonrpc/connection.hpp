// SPDX-License-Identifier: Apache-2.0
// A JSON-RPC 2.0 connection over a Transport, as ACP uses it (internal).
//
// Outgoing: requests with integer ids allocated here, each completing exactly once
// (result, error, cancelled, timed out, or connection closed); notifications. Incoming:
// requests dispatched by method to handlers that answer through a Responder exactly once
// (a Responder dropped unanswered answers -32603 by itself); notifications by method;
// responses matched to pending requests. $/cancel_request works both ways. Malformed,
// oversized and invalid messages are reported to the log sink and answered with the
// JSON-RPC error the spec asks for; the connection keeps going.
//
// Loop-affine: every call and callback runs on the loop thread. Callbacks never run
// inside the call that caused them, so a handler may call close() or send anything.
//
//   Connection rpc(loop, std::move(transport), logger);
//   rpc.on_request("session/request_permission", [](const JsonValue* params, Responder r) {
//       r.respond([](JsonWriter& w) { w.StartObject(); /* ... */ w.EndObject(); });
//   });
//   rpc.start();
//   rpc.send_request("initialize", write_params, [](const Reply& reply) { /* ... */ });
#pragma once

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "acp/error_codes.hpp"
#include "acp/status.hpp"
#include "acp/traffic.hpp"
#include "jsonrpc/json.hpp"
#include "jsonrpc/lone_surrogates.hpp"
#include "jsonrpc/request_id.hpp"
#include "support/logger.hpp"
#include "transport/line_framer.hpp"
#include "transport/transport.hpp"

namespace acp::detail {

namespace rpc_code = acp::error_code;

using acp::Direction;
using acp::TrafficObserver;

struct ConnectionOptions {
    std::size_t max_line_bytes = LineFramer::kDefaultMaxLineBytes;
    // Backpressure on the answers the peer's requests made this side queue (WriteLimits);
    // 0: no limit.
    std::size_t max_queued_output_bytes = 4u * 1024u * 1024u;
    std::size_t resume_reading_below_bytes = 1024u * 1024u;
    // Reading paused by that limit this long: the peer is not reading, the connection is
    // closed with why. 0: wait forever.
    std::chrono::milliseconds queued_output_timeout{std::chrono::seconds(30)};
};

struct RequestOptions {
    std::chrono::milliseconds timeout{0};  // 0: none
};

// How an outgoing request ended. result is set only on success and is valid only during
// the reply handler.
struct Reply {
    Status status;
    const JsonValue* result = nullptr;
};
using ReplyHandler = std::function<void(const Reply& reply)>;

class ConnectionCore;
struct ResponderState;

// The one way to answer an incoming request. Copies share the same answer: the first
// respond()/fail() wins and later ones are ignored (and reported). When the last copy
// goes away unanswered, the request is answered with -32603.
class Responder {
public:
    explicit Responder(std::shared_ptr<ResponderState> state);

    const RequestId& id() const;
    const std::string& method() const;
    bool answered() const;
    // True once the peer sent $/cancel_request for this request.
    bool cancel_requested() const;
    // Called (once) when the peer cancels this request; the request is still owed an
    // answer: a result, the method's cancelled result, or fail(-32800, ...).
    void on_cancel(std::function<void()> fn) const;

    void respond(const WriteFn& write_result) const;
    void fail(int code, std::string_view message, const WriteFn& write_data = nullptr) const;

private:
    void answer_once(bool is_error, int code, std::string_view message, const WriteFn& write) const;
    std::shared_ptr<ResponderState> state_;
};

using RequestHandler = std::function<void(const JsonValue* params, Responder responder)>;
using NotificationHandler = std::function<void(const JsonValue* params)>;
using UnknownNotificationHandler = std::function<void(std::string_view method, const JsonValue* params)>;
// Offered every incoming line (writable, line[size] == '\0') before it is parsed: true when
// it took the line in full, false when it left it untouched for the parse and dispatch.
using LineShortcut = std::function<bool(char* line, std::size_t size)>;

class Connection {
public:
    Connection(uv_loop_t* loop, std::unique_ptr<Transport> transport, Logger logger, ConnectionOptions options = {});
    // Destroying is not closing: pending requests are dropped without completing. Call
    // close() and wait for the closed callback for an orderly end.
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Handlers are set before start(); a later one replaces the earlier for its method.
    void on_request(std::string method, RequestHandler handler);
    void on_notification(std::string method, NotificationHandler handler);
    void on_unknown_notification(UnknownNotificationHandler handler);
    // For the one message that dominates the traffic (streamed text): read without a
    // document (client/chunk_line.hpp). Whatever it declines takes the usual path.
    void set_line_shortcut(LineShortcut shortcut);
    void on_closed(std::function<void(const Status& why)> handler);
    // redact: hide secrets (env values and HTTP header values of MCP server configs) in
    // what the observer sees; what goes on the wire is never changed.
    void set_traffic_observer(TrafficObserver observer, bool redact = true);

    void start();

    // Returns the id of the request; the handler is called exactly once.
    int64_t send_request(std::string_view method, const WriteFn& write_params, ReplyHandler handler,
                         RequestOptions options = {});
    void send_notification(std::string_view method, const WriteFn& write_params);

    // Sends $/cancel_request and completes the request as cancelled on a later loop turn;
    // a response that still arrives is dropped. False if the id is not pending.
    bool cancel_request(int64_t id);
    // Sends $/cancel_request and leaves the request pending: it completes with the peer's
    // real answer (CLIENT-GUIDE 4.12: -32800, completed as Errc::cancelled with that rpc
    // code, or the normal result when the work had finished). False if the id is not
    // pending or was withdrawn already.
    bool withdraw_request(int64_t id);

    void close();
    // close(), and once closing the shutdown's next step now (Transport::hasten_close).
    void hasten_close();
    bool is_closed() const;
    std::size_t pending_requests() const;
    // Bytes written to the agent that it has not read yet.
    std::size_t queued_output_bytes() const;
    // Stops reading from the peer while held (the host lags behind what was read; the C
    // API's pull queue), as ConnectionOptions::max_queued_output_bytes does.
    void hold_reading(bool held);

    // During a handler: the lone surrogate halves a string value of the message being
    // handled lost at its edges (jsonrpc/lone_surrogates.hpp), or nullptr.
    const StringEdgeSurrogates* edge_surrogates(const JsonValue& string) const;

private:
    std::shared_ptr<ConnectionCore> core_;
};

}  // namespace acp::detail
