// SPDX-License-Identifier: Apache-2.0
// MCP over ACP (internal; issue 26): the agent's `mcp/message` requests to the MCP
// servers the host offered as {type: "acp", name, serverId}, answered exactly as the
// TypeScript SDK 2.4.0's McpOverAcpProvider does (its dist/mcp/core.js):
//
// - the envelope {serverId, requestId, method, params?, _meta?} is checked first: a
//   malformed one is -32602;
// - an unknown or disposed serverId is -33001 (data {serverId}); ids are never reused;
// - a requestId still active on that server is -32602 (data {serverId, requestId});
// - more than the server's bound of active requests is -33000 (data {serverId});
// - otherwise the inner MCP message goes to the server's McpEndpoint, and its answer comes
//   back in a successful ACP response: {result} or, for an inner MCP error, {error};
// - request-scoped notifications (progress) go out as `mcp/message` notifications
//   {serverId, requestId, method, params} while the request is active, never after;
// - $/cancel_request, disposal and the end of the connection cancel the inner call
//   and answer -32800.
//
//   McpOverAcp acp(rpc, logger);
//   rpc.on_request("mcp/message", [&](const JsonValue* p, Responder r) { acp.on_request(p, std::move(r)); });
//   std::string id = acp.add("editor", endpoint, 64);   // entry {type:"acp", name:"editor", serverId:id}
//   acp.remove(id);                                      // its session closed
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "jsonrpc/connection.hpp"
#include "support/logger.hpp"
#include "tools/mcp_carrier.hpp"

namespace acp::detail::tools {

inline constexpr std::string_view kMcpMessageMethod = "mcp/message";

namespace binding_code {
constexpr int invalid_params = -32602;
constexpr int request_cancelled = -32800;
constexpr int resource_limit_exceeded = -33000;
constexpr int server_unavailable = -33001;
constexpr int backend_failed = -33002;
}  // namespace binding_code

class McpOverAcp {
public:
    McpOverAcp(Connection& rpc, Logger logger) : rpc_(rpc), logger_(std::move(logger)) {}
    ~McpOverAcp();
    McpOverAcp(const McpOverAcp&) = delete;
    McpOverAcp& operator=(const McpOverAcp&) = delete;

    // Registers an endpoint under a fresh serverId (returned); the endpoint must outlive
    // the registration (remove() it first).
    std::string add(const std::string& name, McpEndpoint& endpoint, std::size_t max_active);
    // Disposes the registration: its active requests are cancelled (-32800), later ones
    // get -33001. Unknown ids are ignored.
    void remove(const std::string& server_id);
    // Disposes every registration (the connection ended).
    void clear();

    void on_request(const JsonValue* params, Responder responder);

    std::size_t active_requests() const;

private:
    class RequestPeer;
    struct Registration {
        std::string name;
        McpEndpoint* endpoint;
        std::size_t max_active;
        std::unordered_map<std::string, std::shared_ptr<RequestPeer>> active;  // by requestId
    };

    void cancel_all(Registration& registration);

    Connection& rpc_;
    Logger logger_;
    std::unordered_map<std::string, std::unique_ptr<Registration>> servers_;
    uint64_t next_id_ = 0;
    std::string id_prefix_;
};

}  // namespace acp::detail::tools
