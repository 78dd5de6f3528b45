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

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acp/json.hpp"
#include "acp/status.hpp"
#include "acp/tools.hpp"
#include "acp/v2/types.hpp"
#include "acp/v2/unstable.hpp"
#include "protocol/agent_features.hpp"
#include "protocol/unstable_checks.hpp"

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

// How the host's tool servers reach the agent (acp/tools.hpp), in the order the gate
// prefers them: MCP over ACP, loopback HTTP, the stdio bridge.
enum class ToolTransport { acp, http, stdio };
std::string_view tool_transport_name(ToolTransport transport);

// Makes the mcpServers entries of a setup's tool servers for the transport the gate chose
// (starting what serves them); a failure refuses the setup.
using ToolEntries = std::function<Result<std::vector<v2::McpServer>>(ToolTransport)>;

// An extension request or notification: a `_` method and its params, a JSON object.
struct ExtMessage {
    std::string method;
    RawJson params;
};

// A request of the unstable surface, checked and encoded: its method and params.
struct UnstableMessage {
    std::string method;
    RawJson params;
};

class RequestGate {
public:
    RequestGate(AgentFeatures agent, UnstableFeatures unstable, ToolTransports allowed, const SessionStore& store,
                const UpdateRouter& router)
        : agent_(std::move(agent)), unstable_(unstable), allowed_(allowed), store_(store), router_(router) {}

    const AgentFeatures& agent() const { return agent_; }
    const UnstableFeatures& unstable() const { return unstable_; }

    Result<Checked<v2::LoginAuthRequest>> login(v2::LoginAuthRequest request) const;
    Result<Checked<v2::LogoutAuthRequest>> logout(v2::LogoutAuthRequest request) const;
    // With tools: the transport for the host's tool servers is chosen here, their entries
    // joined to mcpServers, and the whole list checked with the rest (CLIENT-MUST-33), so
    // the choice and the check are one decision.
    // An unstable systemPrompt is given apart and added after the stable checks; the host
    // cannot smuggle it in through extra_fields.
    Result<Checked<v2::NewSessionRequest>> new_session(
        v2::NewSessionRequest request, const ToolEntries& tools = nullptr,
        const std::optional<v2::unstable::SystemPrompt>& prompt = std::nullopt) const;
    Result<Checked<v2::ResumeSessionRequest>> resume_session(
        v2::ResumeSessionRequest request, const ToolEntries& tools = nullptr,
        const std::optional<v2::unstable::SystemPrompt>& prompt = std::nullopt) const;
    // The first transport of ToolTransport's order the host allows and the agent
    // advertised; a refusal naming what the agent does support when none.
    Result<ToolTransport> tool_transport() const;
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

    // The unstable surface (CLIENT-GUIDE 4.14; protocol/unstable_checks.hpp). A stable
    // request's unstable member is given apart and added after the stable checks; the host
    // cannot smuggle it in through extra_fields.
    Result<Checked<v2::ListSessionsRequest>> list_sessions(
        v2::ListSessionsRequest request, const std::optional<v2::unstable::SessionArchiveFilter>& archived) const;
    // With tools: as new_session, the fork's tool servers join its mcpServers.
    Result<Checked<UnstableMessage>> fork_session(v2::unstable::ForkSessionRequest request,
                                                  const ToolEntries& tools = nullptr) const;
    // A provider the agent lists as required is never disabled (current: its providers/list).
    Result<Checked<UnstableMessage>> disable_provider(const v2::unstable::DisableProviderRequest& request,
                                                      const v2::unstable::ListProvidersResponse& current) const;
    // The calls whose only check is their capability (archive, unarchive, status, set_title,
    // auth/status, providers/list and set).
    template <class Request>
    Result<Checked<UnstableMessage>> unstable_call(UnstableMethod which, std::string_view method,
                                                   const Request& request) const;

private:
    // The last check of every kind: what the host put in as raw JSON (_meta, unknown
    // variants, extra fields) must be JSON, extra fields must not name a member the
    // protocol defines, and every string must be UTF-8, or nothing is sent.
    template <class Request>
    Result<Checked<Request>> pass(Status checks, Request request) const;
    // Joins the tool servers' entries to a setup's mcpServers.
    Status add_tool_entries(std::optional<std::vector<v2::McpServer>>& servers, const ToolEntries& tools) const;
    // CLIENT-MUST-36: an entity may be cancelled only while its latest state says so.
    bool cancellable(const std::string& session_id, bool terminal, const std::string& id) const;
    template <class Request>
    Result<Checked<UnstableMessage>> pass_unstable(Status checks, std::string_view method,
                                                   const Request& request) const;
    // Adds an unstable member to a stable request once its checks passed.
    static Status add_member(v2::ExtraFields& extra, std::string_view key, RawJson value);

    AgentFeatures agent_;
    UnstableFeatures unstable_;
    ToolTransports allowed_;
    const SessionStore& store_;
    const UpdateRouter& router_;
};

}  // namespace acp::detail
