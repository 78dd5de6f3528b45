// SPDX-License-Identifier: Apache-2.0
// The ACP v2 driver (internal): requests go out as they are, answers and updates come in
// in the shapes the client's API already uses.
#pragma once

#include "client/protocol_driver.hpp"

namespace acp::detail {

struct ClientCore;
class UpdateRouter;
class AgentRequests;

class V2Driver final : public ProtocolDriver {
public:
    V2Driver(ClientCore& core, UpdateRouter& router, AgentRequests& requests)
        : core_(core), router_(router), requests_(requests) {}

    void login(Checked<v2::LoginAuthRequest> request, Callback<v2::LoginAuthResponse> done) override;
    void logout(Checked<v2::LogoutAuthRequest> request, Callback<v2::LogoutAuthResponse> done) override;
    void new_session(Checked<v2::NewSessionRequest> request, Callback<v2::NewSessionResponse> done) override;
    void resume_session(Checked<v2::ResumeSessionRequest> request, Callback<v2::ResumeSessionResponse> done) override;
    void list_sessions(Checked<v2::ListSessionsRequest> request, Callback<v2::ListSessionsResponse> done) override;
    void close_session(Checked<v2::CloseSessionRequest> request, Callback<v2::CloseSessionResponse> done) override;
    void delete_session(Checked<v2::DeleteSessionRequest> request, Callback<v2::DeleteSessionResponse> done) override;
    RequestHandle prompt(Checked<v2::PromptRequest> request, Callback<v2::PromptResponse> done) override;
    void cancel(Checked<v2::CancelSessionNotification> notification) override;
    void set_config_option(Checked<v2::SetSessionConfigOptionRequest> request,
                           Callback<v2::SetSessionConfigOptionResponse> done) override;
    void cancel_tool_call(Checked<v2::CancelToolCallRequest> request,
                          Callback<v2::CancelToolCallResponse> done) override;
    void cancel_terminal(Checked<v2::CancelTerminalRequest> request,
                         Callback<v2::CancelTerminalResponse> done) override;
    void unstable_request(Checked<UnstableMessage> message, Callback<RawJson> done) override;

    void on_session_update(const JsonValue* params) override;
    bool on_update_line(char* line, std::size_t size) override;
    void on_permission_request(const JsonValue* params, Responder responder) override;
    void on_client_method(std::string_view method, const JsonValue* params, Responder responder) override;

private:
    template <class Response, class Request>
    int64_t call(std::string_view method, const Request& request, Callback<Response> done, RequestOptions options);
    template <class Response, class Request>
    int64_t call(std::string_view method, const Request& request, Callback<Response> done);

    ClientCore& core_;
    UpdateRouter& router_;
    AgentRequests& requests_;
};

}  // namespace acp::detail
