// SPDX-License-Identifier: Apache-2.0
// The one path every request to the agent takes before it is sent (internal).
//
// Each request kind has one gate method that runs every check of its kind against the
// agent's offer, in the same order for both protocol versions (protocol/request_checks.hpp
// on the version-neutral AgentFeatures), then the checks that need the client's own state
// (the session model, resumes under way), and makes sure host-supplied raw JSON inside it
// is JSON, extra fields add only members the protocol does not define, and every string
// is valid UTF-8. What passes comes back as a Checked<Request>: only the gate can make one, and
// the protocol drivers accept nothing else, so a new request kind cannot reach the wire
// without a gate method of its own.
//
//   Result<Checked<v2::NewSessionRequest>> checked = gate.new_session(std::move(request));
//   if (!checked) return refuse(checked.status());
//   driver.new_session(std::move(checked.value()), done);
#pragma once

#include <string>
#include <utility>

#include "acp/json.hpp"
#include "acp/status.hpp"
#include "acp/v2/types.hpp"
#include "protocol/agent_features.hpp"

namespace acp {
class SessionStore;
}

namespace acp::detail {

class UpdateRouter;

template <class Request>
class Checked {
public:
    const Request& operator*() const { return request_; }
    const Request* operator->() const { return &request_; }

private:
    friend class RequestGate;
    explicit Checked(Request request) : request_(std::move(request)) {}
    Request request_;
};

// An extension request or notification: a `_` method and its params, a JSON object.
struct ExtMessage {
    std::string method;
    RawJson params;
};

class RequestGate {
public:
    RequestGate(AgentFeatures agent, const SessionStore& store, const UpdateRouter& router)
        : agent_(std::move(agent)), store_(store), router_(router) {}

    const AgentFeatures& agent() const { return agent_; }

    Result<Checked<v2::LoginAuthRequest>> login(v2::LoginAuthRequest request) const;
    Result<Checked<v2::LogoutAuthRequest>> logout(v2::LogoutAuthRequest request) const;
    Result<Checked<v2::NewSessionRequest>> new_session(v2::NewSessionRequest request) const;
    Result<Checked<v2::ResumeSessionRequest>> resume_session(v2::ResumeSessionRequest request) const;
    Result<Checked<v2::ListSessionsRequest>> list_sessions(v2::ListSessionsRequest request) const;
    Result<Checked<v2::CloseSessionRequest>> close_session(v2::CloseSessionRequest request) const;
    Result<Checked<v2::DeleteSessionRequest>> delete_session(v2::DeleteSessionRequest request) const;
    Result<Checked<v2::PromptRequest>> prompt(v2::PromptRequest request) const;
    Result<Checked<v2::CancelSessionNotification>> cancel(v2::CancelSessionNotification notification) const;
    Result<Checked<v2::SetSessionConfigOptionRequest>> set_config_option(
        v2::SetSessionConfigOptionRequest request) const;
    Result<Checked<v2::CancelToolCallRequest>> cancel_tool_call(v2::CancelToolCallRequest request) const;
    Result<Checked<v2::CancelTerminalRequest>> cancel_terminal(v2::CancelTerminalRequest request) const;
    Result<Checked<ExtMessage>> extension(ExtMessage message) const;

private:
    // The last check of every kind: what the host put in as raw JSON (_meta, unknown
    // variants, extra fields) must be JSON, extra fields must not name a member the
    // protocol defines, and every string must be UTF-8, or nothing is sent.
    template <class Request>
    Result<Checked<Request>> pass(Status checks, Request request) const;
    // CLIENT-MUST-36: an entity may be cancelled only while its latest state says so.
    bool cancellable(const std::string& session_id, bool terminal, const std::string& id) const;

    AgentFeatures agent_;
    const SessionStore& store_;
    const UpdateRouter& router_;
};

}  // namespace acp::detail
