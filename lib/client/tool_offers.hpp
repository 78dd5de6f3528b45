// SPDX-License-Identifier: Apache-2.0
// The host's tool servers as the client serves them, per session (internal; issue 26).
//
// A setup with tools (Client::new_session / resume_session) prepares an Offer: one MCP
// endpoint per tool server, and, once the request gate chose the transport, what carries
// it (an MCP-over-ACP registration, an HTTP listener, a bridge socket). The Offer belongs
// to the pending request until the agent accepted the setup, then to the session: a
// resume replaces the session's offer, closing or deleting the session drops it, and the
// end of the connection drops them all. A dropped Offer cancels its calls, disposes its
// serverIds and stops its listeners: nothing stays listening or running.
//
//   auto offer = offers.prepare(servers);
//   gate.new_session(request, [&](ToolTransport t) { return offers.start(*offer, t); });
//   ... on success: offers.attach(session_id, offer);   on close: offers.release(session_id);
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acp/tools.hpp"
#include "client/request_gate.hpp"
#include "jsonrpc/connection.hpp"
#include "support/logger.hpp"
#include "tools/acp_carrier.hpp"
#include "tools/tool_endpoint.hpp"

namespace acp::detail {

class ToolOffers {
public:
    struct Offer {
        struct Served {
            std::shared_ptr<ToolServer::Impl> server;
            std::shared_ptr<tools::ToolEndpoint> endpoint;  // once started
            std::string acp_server_id;                      // MCP over ACP: its registration
            std::shared_ptr<void> carrier;                  // HTTP or stdio: its listener
        };
        std::vector<Served> served;
        std::optional<ToolTransport> transport;
        std::weak_ptr<tools::McpOverAcp> acp;
        bool tell_host = true;  // false once the Client is gone: no host callback runs
        ~Offer();
    };

    ToolOffers(uv_loop_t* loop, Connection& rpc, Logger logger);
    ~ToolOffers();

    std::shared_ptr<Offer> prepare(const ToolServers& servers) const;
    // Starts the offer's carriers for the transport and returns their entries.
    Result<std::vector<v2::McpServer>> start(Offer& offer, ToolTransport transport);
    // The session's tool servers from now on (a resume's replace the earlier ones; null: none).
    void attach(const std::string& session_id, std::shared_ptr<Offer> offer);
    void release(const std::string& session_id);
    // Every session's offer (the connection ended); tell_host false once the Client is gone.
    void clear(bool tell_host = true);

    void on_mcp_message(const JsonValue* params, Responder responder) {
        acp_->on_request(params, std::move(responder));
    }
    std::size_t sessions() const { return sessions_.size(); }

private:
    uv_loop_t* loop_;
    Logger logger_;
    std::shared_ptr<tools::McpOverAcp> acp_;
    std::map<std::string, std::shared_ptr<Offer>> sessions_;
};

}  // namespace acp::detail
