// SPDX-License-Identifier: Apache-2.0
// Client::Impl (internal): the parts the facade (client/client.cpp) is made of, and the
// dispatch of the agent's messages to them.
//
//   core        the loop, options, connection, session model, host handlers
//   router      session membership and delivery of session/update into the model
//   requests    permission and elicitation requests, for both versions
//   negotiation initialize and the protocol version
//   gate        every check before sending (exists once initialize succeeded)
//   driver      the wire shapes of the negotiated version, chosen once per initialize
//   tools       the host's tool servers offered to sessions, and mcp/message
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "client/agent_requests.hpp"
#include "client/client_core.hpp"
#include "client/negotiation.hpp"
#include "client/protocol_driver.hpp"
#include "client/request_gate.hpp"
#include "client/tool_offers.hpp"
#include "client/update_router.hpp"

namespace acp {

// Shared so that a host callback may destroy the Client: whatever runs keeps the Impl
// alive until it returns, and core_.orphaned stops every further host callback.
class Client::Impl : public std::enable_shared_from_this<Impl> {
public:
    Impl(uv_loop_t* loop, std::unique_ptr<detail::Transport> transport, ClientOptions options, std::string agent_label);

    void initialize(Callback<v2::InitializeResponse> done);

    // Everything but initialize needs an open connection and a successful initialize
    // (CLIENT-MUST-20); then the request passes the gate and goes to the driver.
    Status ready(std::string_view method) const;
    template <class Response, class Check, class Send>
    void submit(std::string_view method, Callback<Response> done, Check&& check, Send&& send) {
        if (Status s = ready(method); !s) return core_.refuse(std::move(done), s);
        auto checked = check(*gate_);
        if (!checked) return core_.refuse(std::move(done), checked.status());
        send(*driver_, std::move(checked.value()), std::move(done));
    }

    // The session calls, with the unstable members acp::unstable adds (client/unstable_calls.cpp).
    void new_session(v2::NewSessionRequest request, const ToolServers& tools,
                     const std::optional<v2::unstable::SystemPrompt>& prompt, Callback<v2::NewSessionResponse> done);
    void resume_session(v2::ResumeSessionRequest request, const ToolServers& tools,
                        const std::optional<v2::unstable::SystemPrompt>& prompt,
                        Callback<v2::ResumeSessionResponse> done);
    void list_sessions(v2::ListSessionsRequest request,
                       const std::optional<v2::unstable::SessionArchiveFilter>& archived,
                       Callback<v2::ListSessionsResponse> done);

    detail::ClientCore core_;
    detail::UpdateRouter router_;
    detail::AgentRequests requests_;
    detail::Negotiation negotiation_;
    detail::ToolOffers tools_;
    // Settled by a successful initialize.
    std::optional<v2::InitializeResponse> agent_;
    std::optional<v1::InitializeResponse> agent_v1_;
    std::optional<detail::RequestGate> gate_;
    std::unique_ptr<detail::ProtocolDriver> driver_;
    // An initialize is on the wire: another may not follow until it is answered.
    bool initializing_ = false;

private:
    // The one place the protocol version decides anything: the driver.
    void choose_driver(detail::Negotiation::Outcome outcome);
    void listen();
};

}  // namespace acp
