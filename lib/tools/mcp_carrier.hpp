// SPDX-License-Identifier: Apache-2.0
// The seam between the MCP server logic that serves a host's tools (lib/tools/) and the
// carriers that move MCP messages between it and the agent (internal).
//
// A carrier (MCP over ACP's mcp/message, the loopback HTTP endpoint, the stdio bridge's
// socket) knows nothing of tools: it authenticates and frames, then hands each JSON-RPC
// message text to an McpEndpoint and sends back what the endpoint gives its McpPeer. The
// endpoint knows nothing of sockets. Loop-affine like everything else: every call on the
// client's loop thread.
#pragma once

#include <string>
#include <string_view>

namespace acp::detail::tools {

// One MCP client (the agent, or one of its connections) as the server sees it.
// Implemented by each carrier.
class McpPeer {
public:
    virtual ~McpPeer() = default;
    // Sends one serialized JSON-RPC message (a response, or a notification such as
    // notifications/progress) to the MCP client. in_reply_to is the raw JSON text of the
    // id of the client request the message belongs to (its response, or progress for it),
    // empty when it belongs to none: HTTP picks the response stream by it.
    virtual void send(std::string message, std::string_view in_reply_to) = 0;
    // For logs: "HTTP 127.0.0.1:41234", "stdio bridge (pid 123)". Never holds a secret.
    virtual std::string describe() const = 0;
    // The server has no MCP outcome for the request in_reply_to (a tool's handler threw).
    // A carrier with an error channel of its own reports it there and returns true (MCP
    // over ACP: the binding's outer -33002); false: the server answers the MCP error -32603.
    virtual bool fail_backend(std::string_view /*in_reply_to*/, std::string_view /*details*/) { return false; }
};

// What a carrier hands every message to. Implemented by the MCP server logic.
class McpEndpoint {
public:
    virtual ~McpEndpoint() = default;
    // One JSON-RPC message text exactly as received (hostile: not yet parsed, maybe not
    // JSON at all). The carrier has already authenticated `from` and bounded the size.
    virtual void on_mcp_message(McpPeer& from, std::string_view message) = 0;
    // `from` is gone (socket closed, HTTP session deleted, bridge exited): the endpoint
    // cancels its calls in flight and never touches `from` again.
    virtual void on_mcp_peer_closed(McpPeer& from) = 0;
};

}  // namespace acp::detail::tools
