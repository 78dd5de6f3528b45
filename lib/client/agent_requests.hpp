// SPDX-License-Identifier: Apache-2.0
// The agent's requests to the host that both protocol versions share (internal):
// session/request_permission (a v1 one arrives here already lifted), elicitation/create
// and elicitation/complete.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "client/responder_state.hpp"
#include "jsonrpc/json.hpp"

namespace acp::detail {

struct ClientCore;
class UpdateRouter;

// Requests that name a session this client does not have are answered -32002 by the
// router and never reach the host (client/update_router.hpp).
class AgentRequests {
public:
    AgentRequests(ClientCore& core, UpdateRouter& router) : core_(core), router_(router) {}
    AgentRequests(const AgentRequests&) = delete;
    AgentRequests& operator=(const AgentRequests&) = delete;

    // Applies the request's tool_call subject to the model (CLIENT-MUST-70) and makes its
    // responder, which answers "cancelled" when the agent withdraws it (CLIENT-MUST-68).
    std::shared_ptr<PermissionResponder::State> prepare_permission(const v2::RequestPermissionRequest& request,
                                                                   Responder responder);
    // Hands it to the host; without a handler the state dies here: answered "cancelled".
    void present_permission(const v2::RequestPermissionRequest& request,
                            std::shared_ptr<PermissionResponder::State> state);

    void elicitation(const JsonValue* params, Responder responder);
    void elicitation_complete(const JsonValue* params);

private:
    ClientCore& core_;
    UpdateRouter& router_;
    std::set<std::string> open_url_elicitations_;
};

}  // namespace acp::detail
