// SPDX-License-Identifier: Apache-2.0
// The MCP server that serves one ToolServer to one agent session (internal; issue 26).
//
// Transport-independent: a carrier (tools/mcp_carrier.hpp) hands it each MCP message and
// it answers through the carrier's McpPeer. It speaks MCP's initialize handshake
// (revisions 2025-06-18, 2025-11-25, 2026-07-28), ping, tools/list, tools/call,
// server/discover, notifications/cancelled; answers tools/call through the tool's handler
// once the arguments passed the tool's input schema; and bounds what the agent can make
// it hold: the size of a message, the calls in flight.
//
// Mode::acp_binding is MCP over ACP as the TypeScript SDK 2.4.0 binds it: no handshake,
// every request carries MCP 2026-07-28's metadata in params._meta (protocolVersion,
// clientCapabilities) and is refused with an inner MCP error without it.
//
//   auto endpoint = ToolEndpoint::create(server_impl, ToolEndpoint::Mode::session, logger);
//   carrier = HttpCarrier::start(loop, *endpoint, logger);   // the carrier feeds it
//   endpoint->close();  // the session ended: calls in flight are cancelled, later ones refused
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "acp/tools.hpp"
#include "jsonrpc/message_parser.hpp"
#include "jsonrpc/request_id.hpp"
#include "support/logger.hpp"
#include "tools/mcp_carrier.hpp"
#include "tools/tool_server_impl.hpp"

namespace acp::detail::tools {

inline constexpr std::string_view kMcpBindingRevision = "2026-07-28";
inline constexpr std::string_view kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";

class ToolEndpoint final : public McpEndpoint, public std::enable_shared_from_this<ToolEndpoint> {
public:
    enum class Mode { session, acp_binding };

    static std::shared_ptr<ToolEndpoint> create(std::shared_ptr<ToolServer::Impl> server, Mode mode, Logger logger);
    ~ToolEndpoint() override;

    void on_mcp_message(McpPeer& from, std::string_view message) override;
    void on_mcp_peer_closed(McpPeer& from) override;

    // The session the server serves, for ToolCall::session_id (known once session/new answered).
    void set_session_id(std::string session_id) { session_id_ = std::move(session_id); }
    // Cancels every call in flight; later requests are refused. Idempotent. tell_host
    // false: the handlers are not told (the Client is being destroyed: no host callback
    // runs then), their answers just go nowhere.
    void close(bool tell_host = true);
    bool is_closed() const { return closed_; }

    std::size_t calls_in_flight() const { return calls_.size(); }
    const ToolServer::Impl& server() const { return *server_; }

    // --- for ToolResponder ------------------------------------------------------------
    // Sends the call's answer (a CallToolResult object, or an MCP error when error_code != 0)
    // and forgets the call. False when the call is gone (answered, cancelled, closed).
    bool finish(uint64_t call, std::string_view result, int error_code = 0, std::string_view error_message = {});
    // The call's handler failed without an answer (it threw): the carrier's backend error
    // where it has one (McpPeer::fail_backend), else the MCP error -32603.
    void fail_handler(uint64_t call, std::string_view details);
    void progress(uint64_t call, std::string_view notification_params);

private:
    struct Call {
        McpPeer* peer;
        RequestId id;
        std::string id_json;
        std::weak_ptr<ToolResponder::State> responder;
    };

    ToolEndpoint(std::shared_ptr<ToolServer::Impl> server, Mode mode, Logger logger)
        : server_(std::move(server)), mode_(mode), logger_(std::move(logger)) {}

    void handle_request(McpPeer& from, const RequestId& id, std::string_view method, const JsonValue* params);
    void handle_notification(McpPeer& from, std::string_view method, const JsonValue* params);
    void call_tool(McpPeer& from, const RequestId& id, const JsonValue* params);
    // Cancels one call: the responder is told, nothing more is sent for it.
    void cancel(uint64_t call, bool tell_host = true);

    void respond(McpPeer& to, const RequestId& id, std::string_view result_json);
    void respond_error(McpPeer& to, const std::optional<RequestId>& id, int code, std::string_view message,
                       std::string_view data_json = {});
    void log(LogLevel level, std::string_view message) const;

    std::shared_ptr<ToolServer::Impl> server_;
    Mode mode_;
    Logger logger_;
    std::string session_id_;
    MessageParser parser_;
    std::string buffer_;  // the message being parsed (the parser works in place)
    std::unordered_map<uint64_t, Call> calls_;
    uint64_t next_call_ = 0;
    bool closed_ = false;
    bool told_oversized_ = false;  // logged once
};

}  // namespace acp::detail::tools

namespace acp {

struct ToolResponder::State {
    std::weak_ptr<detail::tools::ToolEndpoint> endpoint;
    uint64_t call = 0;
    std::shared_ptr<const ToolServer::Impl::Entry> tool;
    std::string progress_token;  // its JSON text; empty: the agent asked for no progress
    bool answered = false;
    bool cancelled = false;
    std::function<void()> on_cancelled;

    // Dropped unanswered: the agent gets an internal error rather than waiting forever.
    ~State();
    void cancel(bool tell_host = true);
};

}  // namespace acp
