// SPDX-License-Identifier: Apache-2.0
#include "client/request_gate.hpp"

#include <rapidjson/stringbuffer.h>

#include "acp/session.hpp"
#include "client/update_router.hpp"
#include "protocol/codec_support.hpp"
#include "protocol/request_checks.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"

namespace acp::detail {

namespace av2 = acp::v2;
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

Result<Checked<av2::NewSessionRequest>> RequestGate::new_session(av2::NewSessionRequest request) const {
    Status checks = check_new_session(request, agent_);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::ResumeSessionRequest>> RequestGate::resume_session(av2::ResumeSessionRequest request) const {
    Status checks = check_resume_session(request, agent_);
    if (checks) checks = router_.check_not_resuming(request.sessionId);
    return pass(std::move(checks), std::move(request));
}

Result<Checked<av2::ListSessionsRequest>> RequestGate::list_sessions(av2::ListSessionsRequest request) const {
    Status checks = check_list_sessions(request, agent_);
    return pass(std::move(checks), std::move(request));
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

Result<Checked<av2::CancelSessionNotification>> RequestGate::cancel(
    av2::CancelSessionNotification notification) const {
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
