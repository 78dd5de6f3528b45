// SPDX-License-Identifier: Apache-2.0
// The demo agent's side of MCP with a server the client provided over http or stdio (MCP
// revisions 2025-06-18 and 2025-11-25): the initialize handshake that the first request
// starts, request ids and their answers, refusing the server's own requests. How the
// messages travel (a child's stdin and stdout, HTTP POSTs) is the subclass's.
//
// The server is untrusted: its messages are parsed with a nesting bound (libacp's
// MessageParser), the carriers cap their size at kMaxMcpMessageBytes, and an answer to
// nothing that was asked is dropped.
//
//   auto id = client->request("tools/list", "{}", [](const JsonValue* response, const std::string& failure) {...});
//   client->cancel(*id);   // the reply never runs; the server is told
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include "acp/status.hpp"
#include "jsonrpc/json.hpp"
#include "jsonrpc/message_parser.hpp"

namespace demo {

// The largest message a server may send (a line over stdio, a body or event over HTTP).
inline constexpr std::size_t kMaxMcpMessageBytes = 1 << 20;

class McpClient {
public:
    // The server's response message ({"result"} or {"error"}, valid during the call), or
    // nullptr and why there is none.
    using Reply = std::function<void(const acp::detail::JsonValue* response, const std::string& failure)>;

    virtual ~McpClient() = default;
    McpClient(const McpClient&) = delete;
    McpClient& operator=(const McpClient&) = delete;

    // Sends a request with params (a JSON object), after the handshake. reply runs later,
    // never inside this call; an error (the connection failed earlier) means it never runs.
    acp::Result<uint64_t> request(const std::string& method, const std::string& params, Reply reply);
    // The reply of that request never runs; the server is told (notifications/cancelled).
    void cancel(uint64_t id);
    // The connection failed (the server exited, broke the protocol, could not be reached).
    bool failed() const { return state_ == State::failed; }

protected:
    explicit McpClient(std::string name) : name_(std::move(name)) {}

    // Sends one JSON-RPC message: a request (id > 0), or a notification or response (id 0).
    virtual void send(uint64_t id, const std::string& message) = 0;
    // Sends notifications/initialized; sent() runs once requests may follow it.
    virtual void send_initialized(const std::string& message, std::function<void()> sent) {
        send(0, message);
        sent();
    }
    // The request was cancelled: whatever still carries it may be dropped.
    virtual void abandon(uint64_t /*id*/) {}

    // One message from the server (text of at most kMaxMcpMessageBytes).
    void receive(std::string text);
    // The request got no answer and will get none (ignored for ids already answered).
    void fail(uint64_t id, const std::string& why);
    // The connection is gone: every request waiting fails, later ones at once.
    void fail_all(const std::string& why);
    bool waiting_for(uint64_t id) const { return replies_.count(id) != 0; }
    // The revision the server agreed to (empty before the handshake).
    const std::string& protocol_version() const { return protocol_version_; }
    const std::string& name() const { return name_; }

private:
    enum class State { fresh, initializing, ready, failed };
    struct Queued {
        uint64_t id;
        std::string message;
    };
    void start_handshake();
    void on_initialized(const acp::detail::JsonValue* response, const std::string& failure);

    std::string name_;
    State state_ = State::fresh;
    std::string failure_;  // why, once failed
    std::string protocol_version_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, Reply> replies_;
    std::deque<Queued> queued_;  // requests made before the handshake ended
    acp::detail::MessageParser parser_;
    bool complained_ = false;  // about a message that was no JSON-RPC
};

}  // namespace demo
