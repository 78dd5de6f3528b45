// SPDX-License-Identifier: Apache-2.0
// The ACP v1 driver (internal): lowers the client's v2-shaped calls to v1 requests and
// lifts the agent's v1 answers and session traffic into the v2 model, through the v1
// adapter (client/v1_adapter.hpp). The rules are docs/v1.md and CLIENT-GUIDE §10.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/protocol_driver.hpp"
#include "client/responder_state.hpp"
#include "client/v1_adapter.hpp"
#include "client/v1_client_methods.hpp"

namespace acp::detail {

struct ClientCore;
class UpdateRouter;
class AgentRequests;

class V1Driver final : public ProtocolDriver {
public:
    V1Driver(ClientCore& core, UpdateRouter& router, AgentRequests& requests);

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
    void on_permission_request(const JsonValue* params, Responder responder) override;
    void on_client_method(std::string_view method, const JsonValue* params, Responder responder) override;

private:
    // Sends a v1 request; done gets the decoded answer and the raw result (valid during
    // the call) for what is lifted from it.
    template <class V1Response, class V1Request>
    int64_t call(std::string_view method, const V1Request& request,
                 std::function<void(Result<V1Response>, const JsonValue*)> done, RequestOptions options);
    // A session setup (new, load, resume): as call, with MCP-over-ACP entries, which the
    // v1 types cannot hold, written into its mcpServers.
    template <class V1Response, class V1Request>
    int64_t setup_call(std::string_view method, const V1Request& request, const std::vector<RawJson>& acp_servers,
                       std::function<void(Result<V1Response>, const JsonValue*)> done, RequestOptions options);
    template <class V1Request, class V1Response, class V2Request, class V2Response>
    void end_session(std::string_view method, const V2Request& ended, Callback<V2Response> done);
    // Delivers a prompt's synthesized start (running, the user message) and whatever the
    // agent sent for the session meanwhile; nothing when already done.
    void flush_prompt_start(const std::string& session_id);
    void deliver_idle(const std::string& session_id, const Result<v1::PromptResponse>& result);
    // v1: session/cancel obliges the client to answer every pending permission request
    // of the session "cancelled" itself (CLIENT-GUIDE §10).
    void cancel_permissions(const std::string& session_id);

    ClientCore& core_;
    UpdateRouter& router_;
    AgentRequests& requests_;
    V1Lifter lifter_;
    V1ClientMethods client_methods_;
    std::map<std::string, std::vector<v2::UpdateSessionNotification>> prompt_starting_;
    std::map<std::string, std::vector<std::weak_ptr<PermissionResponder::State>>> permissions_;
};

}  // namespace acp::detail
