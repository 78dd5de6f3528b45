// SPDX-License-Identifier: Apache-2.0
#include "client/request_gate.hpp"

#include <rapidjson/stringbuffer.h>

#include "acp/session.hpp"
#include "client/update_router.hpp"
#include "protocol/codec_support.hpp"
#include "protocol/request_checks.hpp"
#include "protocol/unstable_additions.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"
#include "protocol/v2/unstable_methods.hpp"

namespace acp::detail {

namespace av2 = acp::v2;
namespace un = acp::v2::unstable;
namespace method = acp::v2::method;

namespace {

// Members only the unstable schema gives these requests, each gated on a capability
// (CLIENT-GUIDE 4.14): never let through as an extra field, where no gate sees them.
bool unstable_member(const av2::NewSessionRequest&, std::string_view key) { return key == "systemPrompt"; }
bool unstable_member(const av2::ResumeSessionRequest&, std::string_view key) { return key == "systemPrompt"; }
bool unstable_member(const av2::ListSessionsRequest&, std::string_view key) { return key == "archived"; }
template <class Request>
bool unstable_member(const Request&, std::string_view) {
    return false;
}

// The host's extra fields are for members the protocol does not define: one it does
// define would skip the checks of its field, or go out twice beside it.
template <class Request>
Status check_extra_fields(const Request& request) {
    for (const auto& field : request.extra_fields) {
        if (av2::codec::has_member(request, field.first)) {
            return Status(Errc::invalid_argument, "extra_fields may not carry '" + field.first +
                                                      "': the request defines it; set it through its own field");
        }
    }
    return Status();
}

// Runs on the host's request before the gate adds an unstable member of its own, which
// then passes check_extra_fields as a member the stable request does not define.
template <class Request>
Status check_no_unstable_extra(const Request& request) {
    for (const auto& field : request.extra_fields) {
        if (unstable_member(request, field.first)) {
            return Status(Errc::invalid_argument,
                          "extra_fields may not carry '" + field.first +
                              "': an unstable protocol member gated on the agent's capabilities, never sent unchecked");
        }
    }
    return Status();
}

// Encodes the request once under an audit: every RawJson in it is written, and the first
// that is not JSON is named; then what would be written is checked as a whole (valid
// UTF-8, no member twice). (The drivers encode it again to send it: raw values are
// rewritten compactly there, so a pretty-printed one never breaks a line, CLIENT-MUST-01.)
template <class Request>
Status check_written(const Request& request) {
    if (Status s = check_extra_fields(request); !s) return s;
    RawJsonAudit audit;
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    av2::codec::encode(writer, request);
    if (!audit.status()) return audit.status();
    return check_written_message(std::string_view(buffer.GetString(), buffer.GetSize()));
}

Status check_written(const ExtMessage& message) {
    RawJsonAudit audit;
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartObject();
    write_key(writer, "method");
    write_string(writer, message.method);
    write_key(writer, "params");
    write_raw(writer, message.params);
    writer.EndObject();
    if (!audit.status()) return audit.status();
    return check_written_message(std::string_view(buffer.GetString(), buffer.GetSize()));
}

}  // namespace

template <class Request>
Result<Checked<Request>> RequestGate::pass(Status checks, Request request) const {
    if (checks) checks = check_written(request);
    if (!checks) return checks;
    return Checked<Request>(std::move(request));
}

Result<Checked<av2::LoginAuthRequest>> RequestGate::login(av2::LoginAuthRequest request) const {
    Status checks = check_login(request.methodId, agent_);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::LogoutAuthRequest>> RequestGate::logout(av2::LogoutAuthRequest request) const {
    Status checks = check_logout(agent_);
    return pass(std::move(checks), std::move(request));
}

std::string_view tool_transport_name(ToolTransport transport) {
    switch (transport) {
        case ToolTransport::acp: return "MCP over ACP (session.mcp.acp)";
        case ToolTransport::http: return "loopback HTTP (session.mcp.http)";
        case ToolTransport::stdio: return "the stdio bridge (session.mcp.stdio)";
    }
    return "?";
}

Result<ToolTransport> RequestGate::tool_transport() const {
    if (allowed_.acp && agent_.mcp_acp) return ToolTransport::acp;
    if (allowed_.http && agent_.mcp_http) return ToolTransport::http;
    if (allowed_.stdio && agent_.mcp_stdio) return ToolTransport::stdio;
    std::string offered;
    auto add = [&offered](const std::string& name) { offered += (offered.empty() ? "" : ", ") + name; };
    if (agent_.mcp_acp) add("acp");
    if (agent_.mcp_http) add("http");
    if (agent_.mcp_stdio) add("stdio");
    if (agent_.mcp_sse) add("sse");
    for (const auto& custom : agent_.mcp_custom_transports) add(custom);
    std::string allowed;
    if (allowed_.acp) allowed = "acp";
    if (allowed_.http) allowed += allowed.empty() ? "http" : ", http";
    if (allowed_.stdio) allowed += allowed.empty() ? "stdio" : ", stdio";
    return Status(
        Errc::unsupported,
        "CLIENT-MUST-33: the agent takes the host's tool servers over none of the transports the host "
        "allows (ClientOptions::tool_transports: " +
            (allowed.empty() ? std::string("none") : allowed) + "), so they cannot be offered; its session.mcp " +
            (offered.empty() ? std::string("advertises no MCP transport at all") : "advertises only: " + offered));
}

Status RequestGate::add_tool_entries(std::optional<std::vector<av2::McpServer>>& servers,
                                     const ToolEntries& tools) const {
    if (!tools) return Status();
    auto transport = tool_transport();
    if (!transport) return transport.status();
    auto entries = tools(*transport);
    if (!entries) return entries.status();
    if (!servers) servers.emplace();
    for (auto& entry : *entries) servers->push_back(std::move(entry));
    return Status();
}

Result<Checked<av2::NewSessionRequest>> RequestGate::new_session(av2::NewSessionRequest request,
                                                                 const ToolEntries& tools,
                                                                 const std::optional<un::SystemPrompt>& prompt) const {
    Status checks = check_no_unstable_extra(request);
    if (checks) checks = add_tool_entries(request.mcpServers, tools);
    if (checks) checks = check_new_session(request, agent_);
    if (checks && prompt) checks = check_system_prompt(*prompt, unstable_);
    if (checks && prompt) checks = add_member(request.extra_fields, "systemPrompt", encode_raw(*prompt));
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::ResumeSessionRequest>> RequestGate::resume_session(
    av2::ResumeSessionRequest request, const ToolEntries& tools, const std::optional<un::SystemPrompt>& prompt) const {
    Status checks = check_no_unstable_extra(request);
    if (checks) checks = add_tool_entries(request.mcpServers, tools);
    if (checks) checks = check_resume_session(request, agent_);
    if (checks) checks = router_.check_not_resuming(request.sessionId);
    if (checks && prompt) checks = check_system_prompt(*prompt, unstable_);
    if (checks && prompt) checks = add_member(request.extra_fields, "systemPrompt", encode_raw(*prompt));
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::ListSessionsRequest>> RequestGate::list_sessions(av2::ListSessionsRequest request) const {
    return list_sessions(std::move(request), std::nullopt);
}

Result<Checked<av2::CloseSessionRequest>> RequestGate::close_session(av2::CloseSessionRequest request) const {
    Status checks = check_close_session(agent_);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::DeleteSessionRequest>> RequestGate::delete_session(av2::DeleteSessionRequest request) const {
    Status checks = check_delete_session(agent_);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::PromptRequest>> RequestGate::prompt(av2::PromptRequest request) const {
    Status checks = check_prompt(request, agent_);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::CancelSessionNotification>> RequestGate::cancel(av2::CancelSessionNotification notification) const {
    Status checks = check_cancel(agent_);
    return pass(std::move(checks), std::move(notification));
}

Result<Checked<av2::SetSessionConfigOptionRequest>> RequestGate::set_config_option(
    av2::SetSessionConfigOptionRequest request) const {
    const SessionState* state = store_.find(request.sessionId);
    const auto* options = state != nullptr && state->config_options() ? &*state->config_options() : nullptr;
    Status checks = check_set_config_option(request, agent_, options);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::CancelToolCallRequest>> RequestGate::cancel_tool_call(av2::CancelToolCallRequest request) const {
    Status checks = check_entity_cancel(method::tool_call_cancel, agent_);
    if (checks && !cancellable(request.sessionId, false, request.toolCallId)) {
        checks = Status(Errc::invalid_argument, "CLIENT-MUST-36: tool call '" + request.toolCallId +
                                                    "' does not currently advertise capabilities.cancel");
    }
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::CancelTerminalRequest>> RequestGate::cancel_terminal(av2::CancelTerminalRequest request) const {
    Status checks = check_entity_cancel(method::terminal_cancel, agent_);
    if (checks && !cancellable(request.sessionId, true, request.terminalId)) {
        checks = Status(Errc::invalid_argument, "CLIENT-MUST-36: terminal '" + request.terminalId +
                                                    "' does not currently advertise capabilities.cancel");
    }
    return pass(std::move(checks), std::move(request));
}

Result<Checked<ExtMessage>> RequestGate::extension(ExtMessage message) const {
    Status checks = check_extension_method(message.method);
    if (checks) checks = check_raw_object(message.params, "extension params");
    return pass(std::move(checks), std::move(message));
}

// --- the unstable surface ------------------------------------------------------------

template <class Request>
Result<Checked<UnstableMessage>> RequestGate::pass_unstable(Status checks, std::string_view method,
                                                            const Request& request) const {
    if (!checks) return checks;
    RawJsonAudit audit;
    RawJson params = encode_raw(request);
    if (!audit.status()) return audit.status();
    // As every request: valid UTF-8 only, and no extra field beside the member it names.
    if (Status s = check_written_message(params.text); !s) return s;
    return Checked<UnstableMessage>(UnstableMessage{std::string(method), std::move(params)});
}

Status RequestGate::add_member(av2::ExtraFields& extra, std::string_view key, RawJson value) {
    for (const auto& field : extra) {
        if (field.first == key) {
            return Status(Errc::invalid_argument,
                          "'" + std::string(key) + "' is not an extra field: give it to the acp::unstable call");
        }
    }
    extra.emplace_back(std::string(key), std::move(value));
    return Status();
}

Result<Checked<av2::ListSessionsRequest>> RequestGate::list_sessions(
    av2::ListSessionsRequest request, const std::optional<un::SessionArchiveFilter>& archived) const {
    Status checks = check_no_unstable_extra(request);
    if (checks) checks = check_list_sessions(request, agent_);
    if (checks && archived) checks = check_archive_filter(unstable_);
    if (checks && archived) checks = add_member(request.extra_fields, "archived", encode_raw(*archived));
    return pass(std::move(checks), std::move(request));
}

Result<Checked<UnstableMessage>> RequestGate::fork_session(un::ForkSessionRequest request,
                                                           const ToolEntries& tools) const {
    Status checks = check_unstable_method(UnstableMethod::fork, unstable_);
    if (checks) checks = add_tool_entries(request.mcpServers, tools);
    // The fork opens a session: its cwd, directories and MCP servers pass new_session's checks.
    if (checks) {
        av2::NewSessionRequest opened;
        opened.cwd = request.cwd;
        opened.additionalDirectories = request.additionalDirectories;
        opened.mcpServers = request.mcpServers;
        checks = check_new_session(opened, agent_);
    }
    if (checks && request.systemPrompt.has_value()) checks = check_system_prompt(*request.systemPrompt, unstable_);
    return pass_unstable(std::move(checks), un::method::session_fork, request);
}

Result<Checked<UnstableMessage>> RequestGate::disable_provider(const un::DisableProviderRequest& request,
                                                               const un::ListProvidersResponse& current) const {
    Status checks = check_unstable_method(UnstableMethod::providers, unstable_);
    for (const auto& provider : current.providers) {
        if (checks && provider.providerId == request.providerId && provider.required) {
            checks = Status(Errc::invalid_argument,
                            "provider '" + request.providerId + "' is required: it cannot be disabled");
        }
    }
    return pass_unstable(std::move(checks), un::method::providers_disable, request);
}

template <class Request>
Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod which, std::string_view method,
                                                            const Request& request) const {
    return pass_unstable(check_unstable_method(which, unstable_), method, request);
}

template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::ArchiveSessionRequest&) const;
template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::UnarchiveSessionRequest&) const;
template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::SessionStatusRequest&) const;
template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::SetSessionTitleRequest&) const;
template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::AuthStatusRequest&) const;
template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::ListProvidersRequest&) const;
template Result<Checked<UnstableMessage>> RequestGate::unstable_call(UnstableMethod, std::string_view,
                                                                     const un::SetProviderRequest&) const;

bool RequestGate::cancellable(const std::string& session_id, bool terminal, const std::string& id) const {
    if (router_.is_closed(session_id)) return false;
    const SessionState* state = store_.find(session_id);
    const SessionItem* item = state ? state->item(terminal ? ItemKind::terminal : ItemKind::tool_call, id) : nullptr;
    if (item == nullptr) return false;
    if (const auto* tool = item->tool_call()) return tool->capabilities && tool->capabilities->cancel.has_value();
    if (const auto* shown = item->terminal()) return shown->capabilities && shown->capabilities->cancel.has_value();
    return false;
}

}  // namespace acp::detail
