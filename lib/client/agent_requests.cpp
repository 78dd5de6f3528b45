// SPDX-License-Identifier: Apache-2.0
#include "client/agent_requests.hpp"

#include <utility>

#include "client/client_core.hpp"
#include "client/update_router.hpp"
#include "protocol/v2/codec.hpp"

namespace acp::detail {

namespace av2 = acp::v2;
namespace codec = acp::v2::codec;

namespace {

// The session a session-scoped elicitation is about; nullptr for one scoped to a request
// of the client's own (or of a mode libacp does not know).
const av2::ElicitationSessionScope* session_scope(const av2::CreateElicitationRequest& request) {
    if (const auto* form = request.mode.form()) return form->scope.session();
    if (const auto* url = request.mode.url()) return url->scope.session();
    return nullptr;
}

}  // namespace

std::shared_ptr<PermissionResponder::State> AgentRequests::prepare_permission(
    const av2::RequestPermissionRequest& request, Responder responder) {
    auto state = std::make_shared<PermissionResponder::State>(responder);
    for (const auto& option : request.options) state->offered.insert(option.optionId);
    // The tool call a permission is about counts as an update of that tool call
    // (CLIENT-MUST-70: applied before the host sees the request).
    if (request.subject.has_value() && request.subject->tool_call() != nullptr) {
        Status applied =
            core_.store.apply_permission_subject(request.sessionId, request.subject->tool_call()->toolCall);
        if (!applied) {
            core_.log_session(LogLevel::warning,
                              "the tool call of a permission request was only partly applied: " + applied.message());
        }
        core_.model_settled();
    }
    std::weak_ptr<PermissionResponder::State> weak = state;
    // CLIENT-MUST-68: the agent withdrew it: answer "cancelled" (once).
    responder.on_cancel([weak] {
        if (auto s = weak.lock()) {
            if (s->on_withdrawn) s->on_withdrawn();
            if (!s->responder.answered()) s->send_cancelled();
        }
    });
    return state;
}

void AgentRequests::present_permission(const av2::RequestPermissionRequest& request,
                                       std::shared_ptr<PermissionResponder::State> state) {
    if (!core_.host.permission || core_.orphaned) return;
    core_.host.permission(request, PermissionResponder(std::move(state)));
}

void AgentRequests::elicitation(const JsonValue* params, Responder responder) {
    av2::CreateElicitationRequest request;
    Status decoded = params ? codec::decode(*params, request) : Status(Errc::protocol_error, "no params");
    if (!decoded) {
        responder.fail(rpc_code::invalid_params, "Invalid params: " + decoded.message());
        return;
    }
    const auto kind = request.mode.kind();
    const HostHandlers& host = core_.host;
    const bool advertised = (kind == av2::CreateElicitationRequestMode::Kind::form && core_.advertised_form) ||
                            (kind == av2::CreateElicitationRequestMode::Kind::url && core_.advertised_url);
    if (!advertised) {
        // CLIENT-MUST-72
        responder.fail(rpc_code::invalid_params,
                       "Invalid params: elicitation mode '" + request.mode.tag() + "' was not advertised");
        return;
    }
    if (const auto* scope = session_scope(request); scope && !router_.admits_request(scope->sessionId, responder))
        return;
    if (const auto* url = request.mode.url()) open_url_elicitations_.insert(url->elicitationId);
    auto state = std::make_shared<ElicitationResponder::State>(responder);
    std::weak_ptr<ElicitationResponder::State> weak = state;
    // The agent withdrew it: tell the host, answer "cancel" (CLIENT-GUIDE §5.3).
    responder.on_cancel([weak] {
        if (auto s = weak.lock()) {
            if (s->on_withdrawn) s->on_withdrawn();
            if (!s->responder.answered()) s->send(av2::CreateElicitationResponseAction::make_cancel());
        }
    });
    // Advertised, but the host no longer handles the mode (it replaced its handler since):
    // the responder dies here, answered "cancel".
    const bool handled =
        host.elicitation &&
        (kind == av2::CreateElicitationRequestMode::Kind::form ? host.elicitation_form : host.elicitation_url);
    if (core_.orphaned || !handled) return;
    host.elicitation(request, ElicitationResponder(std::move(state)));
}

void AgentRequests::elicitation_complete(const JsonValue* params) {
    av2::CompleteElicitationNotification notification;
    if (!params || !codec::decode(*params, notification)) {
        core_.log(LogLevel::warning, "invalid elicitation/complete ignored");
        return;
    }
    // CLIENT-MUST-78: only ids we were given, once.
    if (open_url_elicitations_.erase(notification.elicitationId) == 0) {
        core_.log(LogLevel::debug, "elicitation/complete for unknown id " + notification.elicitationId + " ignored");
        return;
    }
    if (core_.host.elicitation_complete && !core_.orphaned) core_.host.elicitation_complete(notification);
}

}  // namespace acp::detail
