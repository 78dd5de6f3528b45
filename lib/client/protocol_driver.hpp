// SPDX-License-Identifier: Apache-2.0
// One protocol version's way of talking to the agent (internal): the wire shape of each
// client call and of the agent's session traffic. The negotiation picks one driver, once,
// when initialize succeeds (client/negotiation.hpp); the client's facade, request gate,
// update router and agent-request handling are the same for both versions.
//
// Drivers take only checked requests (client/request_gate.hpp): every check has run by
// then, for both versions alike. A driver may still refuse what its version cannot
// express (a v1 config option of a type v1 lacks), on a later loop turn like any refusal.
#pragma once

#include "acp/client.hpp"
#include "client/request_gate.hpp"
#include "jsonrpc/connection.hpp"

namespace acp::detail {

class ProtocolDriver {
public:
    virtual ~ProtocolDriver() = default;

    // --- client → agent ---------------------------------------------------------------
    virtual void login(Checked<v2::LoginAuthRequest> request, Callback<v2::LoginAuthResponse> done) = 0;
    virtual void logout(Checked<v2::LogoutAuthRequest> request, Callback<v2::LogoutAuthResponse> done) = 0;
    virtual void new_session(Checked<v2::NewSessionRequest> request, Callback<v2::NewSessionResponse> done) = 0;
    virtual void resume_session(Checked<v2::ResumeSessionRequest> request,
                                Callback<v2::ResumeSessionResponse> done) = 0;
    virtual void list_sessions(Checked<v2::ListSessionsRequest> request, Callback<v2::ListSessionsResponse> done) = 0;
    virtual void close_session(Checked<v2::CloseSessionRequest> request, Callback<v2::CloseSessionResponse> done) = 0;
    virtual void delete_session(Checked<v2::DeleteSessionRequest> request,
                                Callback<v2::DeleteSessionResponse> done) = 0;
    virtual RequestHandle prompt(Checked<v2::PromptRequest> request, Callback<v2::PromptResponse> done) = 0;
    virtual void cancel(Checked<v2::CancelSessionNotification> notification) = 0;
    virtual void set_config_option(Checked<v2::SetSessionConfigOptionRequest> request,
                                   Callback<v2::SetSessionConfigOptionResponse> done) = 0;
    virtual void cancel_tool_call(Checked<v2::CancelToolCallRequest> request,
                                  Callback<v2::CancelToolCallResponse> done) = 0;
    virtual void cancel_terminal(Checked<v2::CancelTerminalRequest> request,
                                 Callback<v2::CancelTerminalResponse> done) = 0;
    // A request of the unstable surface (acp/unstable.hpp), its params v2-shaped: done gets
    // the agent's answer as v2 JSON. The v1 driver lowers the params to v1's unstable
    // schema and lifts the answer (client/v1_unstable.hpp), or refuses a method v1 lacks.
    virtual void unstable_request(Checked<UnstableMessage> message, Callback<RawJson> done) = 0;

    // --- agent → client ---------------------------------------------------------------
    virtual void on_session_update(const JsonValue* params) = 0;
    // A raw line offered before it is parsed (jsonrpc LineShortcut): true when the driver
    // took it as a streamed chunk. v1 chunks are lifted by the adapter and decline.
    virtual bool on_update_line(char* /*line*/, std::size_t /*size*/) { return false; }
    virtual void on_permission_request(const JsonValue* params, Responder responder) = 0;
    // The v1 client methods (fs/*, terminal/*: client/v1_client_methods.hpp).
    virtual void on_client_method(std::string_view method, const JsonValue* params, Responder responder) = 0;
};

}  // namespace acp::detail
