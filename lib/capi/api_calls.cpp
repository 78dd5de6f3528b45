// SPDX-License-Identifier: Apache-2.0
// The asynchronous calls of include/acp/acp.h (initialize, auth, sessions, prompt,
// extensions) and the synchronous reads of what initialize negotiated.
#include <cstdlib>

#include "capi/barrier.hpp"
#include "capi/call_submit.hpp"
#include "capi/json_text.hpp"
#include "capi/tool_servers.hpp"

namespace acp::capi {

int submit(unsigned long* out_request, acp_client* client, const char* method, std::optional<std::string> session_id,
           acp_result_cb fn, void* userdata, std::function<void(Core&, const std::shared_ptr<Call>&)> start) {
    if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
    auto core = client->core;
    if (core->closing || core->freed) return fail(ACP_ECLOSED, std::string(method) + ": the client is closed");
    auto call = std::make_shared<Call>();
    call->core = core;
    call->id = core->next_id();
    call->method = method;
    call->session_id = std::move(session_id);
    call->fn = fn;
    call->userdata = userdata;
    int posted = core->run([core, call, start = std::move(start)] {
        if (!core->client) return;  // the Call's destructor reports ACP_ECLOSED
        start(*core, call);
    });
    if (posted != ACP_OK) {
        call->done = true;  // refused now: it must not complete later as well
        return posted;
    }
    if (out_request != nullptr) *out_request = call->id;
    return ACP_OK;
}

int submit(unsigned long* out_request, acp_client* client, const char* method, acp_result_cb fn, void* userdata,
           std::function<void(Core&, const std::shared_ptr<Call>&)> start) {
    return submit(out_request, client, method, std::nullopt, fn, userdata, std::move(start));
}

}  // namespace acp::capi

using namespace acp;
using namespace acp::capi;

extern "C" {

int acp_client_initialize(unsigned long* out_request, acp_client* client, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        return submit(out_request, client, "initialize", done, userdata,
                      [](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->initialize(completion<v2::InitializeResponse>(call));
                      });
    });
}

int acp_client_agent_json(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        std::optional<std::string> json;
        int ran = core->run_sync([&] {
            if (core->client && core->client->agent() != nullptr) json = encode_json(*core->client->agent());
        });
        if (ran != ACP_OK) return ran;
        if (!json) return fail(ACP_ESTATE, "initialize has not succeeded");
        *out = copy_string(*json);
        return ACP_OK;
    });
}

int acp_client_agent_v1_json(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        bool initialized = false;
        std::optional<std::string> json;
        int ran = core->run_sync([&] {
            if (!core->client || core->client->agent() == nullptr) return;
            initialized = true;
            if (const v1::InitializeResponse* v1_answer = core->client->agent_v1()) {
                rapidjson::StringBuffer buffer;
                detail::JsonWriter writer(buffer);
                v1::codec::encode(writer, *v1_answer);
                json = std::string(buffer.GetString(), buffer.GetSize());
            }
        });
        if (ran != ACP_OK) return ran;
        if (!initialized) return fail(ACP_ESTATE, "initialize has not succeeded");
        if (!json) return fail(ACP_ENOTFOUND, "the agent speaks ACP v2");
        *out = copy_string(*json);
        return ACP_OK;
    });
}

void acp_string_free(char* text) { std::free(text); }

int acp_client_negotiated_version(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        int version = 0;
        int ran = core->run_sync([&] {
            if (core->client) version = core->client->negotiated_version();
        });
        return ran != ACP_OK ? ran : version;
    });
}

int acp_client_login(unsigned long* out_request, acp_client* client, const char* method_id, acp_result_cb done,
                     void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(method_id, "method_id"); ok != ACP_OK) return ok;
        std::string id = method_id;
        return submit(out_request, client, "auth/login", done, userdata,
                      [id](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->login(id, completion<v2::LoginAuthResponse>(call));
                      });
    });
}

int acp_client_logout(unsigned long* out_request, acp_client* client, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        return submit(out_request, client, "auth/logout", done, userdata,
                      [](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->logout(completion<v2::LogoutAuthResponse>(call));
                      });
    });
}

namespace {
int start_new_session(unsigned long* out_request, acp_client* client, v2::NewSessionRequest request, acp_result_cb done,
                      void* userdata, ToolServers tools = {}) {
    return submit(
        out_request, client, "session/new", done, userdata,
        [request = std::move(request), tools = std::move(tools)](Core& core, const std::shared_ptr<Call>& call) {
            Core* c = &core;
            auto finish = [c, call](Result<v2::NewSessionResponse> r) {
                if (r) {
                    c->session_ids.insert(r->sessionId);
                    call->session_id = r->sessionId;
                }
                completion<v2::NewSessionResponse>(call)(std::move(r));
            };
            if (tools.empty()) return core.client->new_session(request, std::move(finish));
            core.client->new_session(request, tools, std::move(finish));
        });
}

int start_resume_session(unsigned long* out_request, acp_client* client, const char* request_json, acp_result_cb done,
                         void* userdata, ToolServers tools, bool with_tools) {
    v2::ResumeSessionRequest request;
    if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
    return submit(out_request, client, "session/resume", request.sessionId, done, userdata,
                  [request, tools = std::move(tools), with_tools](Core& core, const std::shared_ptr<Call>& call) {
                      core.session_ids.insert(request.sessionId);
                      // With tools, even none: a resume's list replaces the session's servers.
                      if (!with_tools) {
                          return core.client->resume_session(request, completion<v2::ResumeSessionResponse>(call));
                      }
                      core.client->resume_session(request, tools, completion<v2::ResumeSessionResponse>(call));
                  });
}
}  // namespace

int acp_client_new_session(unsigned long* out_request, acp_client* client, const char* request_json, acp_result_cb done,
                           void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        v2::NewSessionRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return start_new_session(out_request, client, std::move(request), done, userdata);
    });
}

int acp_client_new_session_cwd(unsigned long* out_request, acp_client* client, const char* cwd, acp_result_cb done,
                               void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(cwd, "cwd"); ok != ACP_OK) return ok;
        v2::NewSessionRequest request;
        request.cwd = cwd;
        request.mcpServers.emplace();  // [] on the wire: ACP v1 requires the field
        return start_new_session(out_request, client, std::move(request), done, userdata);
    });
}

int acp_client_resume_session(unsigned long* out_request, acp_client* client, const char* request_json,
                              acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        return start_resume_session(out_request, client, request_json, done, userdata, {}, false);
    });
}

int acp_client_new_session_with_tools(unsigned long* out_request, acp_client* client, const char* request_json,
                                      acp_tool_server* const* servers, size_t count, acp_result_cb done,
                                      void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        v2::NewSessionRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        ToolServers tools;
        if (int ok = setup_tool_servers(tools, core, servers, count); ok != ACP_OK) return ok;
        // [] on the wire when no server is left to add it: ACP v1 requires the field.
        if (!request.mcpServers) request.mcpServers.emplace();
        return start_new_session(out_request, client, std::move(request), done, userdata, std::move(tools));
    });
}

int acp_client_resume_session_with_tools(unsigned long* out_request, acp_client* client, const char* request_json,
                                         acp_tool_server* const* servers, size_t count, acp_result_cb done,
                                         void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        ToolServers tools;
        if (int ok = setup_tool_servers(tools, core, servers, count); ok != ACP_OK) return ok;
        return start_resume_session(out_request, client, request_json, done, userdata, std::move(tools), true);
    });
}

int acp_client_list_sessions(unsigned long* out_request, acp_client* client, const char* request_json,
                             acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        v2::ListSessionsRequest request;
        if (int ok = decode_json(request_json != nullptr ? request_json : "{}", request, "request_json");
            ok != ACP_OK) {
            return ok;
        }
        return submit(out_request, client, "session/list", done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->list_sessions(request, completion<v2::ListSessionsResponse>(call));
                      });
    });
}

int acp_client_list_all_sessions(unsigned long* out_request, acp_client* client, const char* cwd, acp_result_cb done,
                                 void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        std::optional<std::string> filter;
        if (cwd != nullptr) filter = cwd;
        return submit(out_request, client, "session/list", done, userdata,
                      [filter](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->list_all_sessions(filter, [call](Result<std::vector<v2::SessionInfo>> r) {
                              if (!r) return call->finish(r.status());
                              std::string json = "[";
                              for (const auto& info : *r) {
                                  if (json.size() > 1) json += ",";
                                  json += encode_json(info);
                              }
                              call->succeed(json + "]");
                          });
                      });
    });
}

int acp_client_close_session(unsigned long* out_request, acp_client* client, const char* session_id, acp_result_cb done,
                             void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
        std::string id = session_id;
        return submit(out_request, client, "session/close", id, done, userdata,
                      [id](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->close_session(id, completion<v2::CloseSessionResponse>(call));
                      });
    });
}

int acp_client_delete_session(unsigned long* out_request, acp_client* client, const char* session_id,
                              acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
        std::string id = session_id;
        return submit(out_request, client, "session/delete", id, done, userdata,
                      [id](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->delete_session(id, completion<v2::DeleteSessionResponse>(call));
                      });
    });
}

namespace {

int start_prompt(unsigned long* out_request, acp_client* client, v2::PromptRequest request, acp_result_cb done,
                 void* userdata) {
    std::string session_id = request.sessionId;
    return submit(out_request, client, "session/prompt", std::move(session_id), done, userdata,
                  [request = std::move(request)](Core& core, const std::shared_ptr<Call>& call) {
                      RequestHandle handle = core.client->prompt(request, completion<v2::PromptResponse>(call));
                      if (handle.id >= 0 && !call->done) core.requests[call->id] = handle;
                  });
}

}  // namespace

int acp_client_prompt(unsigned long* out_request, acp_client* client, const char* request_json, acp_result_cb done,
                      void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        v2::PromptRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return start_prompt(out_request, client, std::move(request), done, userdata);
    });
}

int acp_client_prompt_text(unsigned long* out_request, acp_client* client, const char* session_id, const char* text,
                           acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
        if (int ok = need(text, "text"); ok != ACP_OK) return ok;
        v2::PromptRequest request;
        request.sessionId = session_id;
        v2::TextContent content;
        content.text = text;
        request.prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
        return start_prompt(out_request, client, std::move(request), done, userdata);
    });
}

int acp_client_cancel(acp_client* client, const char* session_id) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr || session_id == nullptr) return fail(ACP_EINVAL, "client or session_id is NULL");
        auto core = client->core;
        if (core->closing || core->freed) return fail(ACP_ECLOSED, "session/cancel: the client is closed");
        std::string id = session_id;
        return core->run([core, id] {
            if (core->client) core->client->cancel(id);
        });
    });
}

int acp_client_set_config_option(unsigned long* out_request, acp_client* client, const char* request_json,
                                 acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        v2::SetSessionConfigOptionRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return submit(out_request, client, "session/set_config_option", request.sessionId, done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->set_config_option(request, completion<v2::SetSessionConfigOptionResponse>(call));
                      });
    });
}

int acp_client_cancel_tool_call(unsigned long* out_request, acp_client* client, const char* session_id,
                                const char* tool_call_id, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (session_id == nullptr || tool_call_id == nullptr)
            return fail(ACP_EINVAL, "session_id or tool_call_id is NULL");
        std::string sid = session_id;
        std::string tid = tool_call_id;
        return submit(out_request, client, "tool_call/cancel", sid, done, userdata,
                      [sid, tid](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->cancel_tool_call(sid, tid, completion<v2::CancelToolCallResponse>(call));
                      });
    });
}

int acp_client_cancel_terminal(unsigned long* out_request, acp_client* client, const char* session_id,
                               const char* terminal_id, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (session_id == nullptr || terminal_id == nullptr)
            return fail(ACP_EINVAL, "session_id or terminal_id is NULL");
        std::string sid = session_id;
        std::string tid = terminal_id;
        return submit(out_request, client, "terminal/cancel", sid, done, userdata,
                      [sid, tid](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->cancel_terminal(sid, tid, completion<v2::CancelTerminalResponse>(call));
                      });
    });
}

int acp_client_ext_request(unsigned long* out_request, acp_client* client, const char* method, const char* params_json,
                           acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(method, "method"); ok != ACP_OK) return ok;
        if (method[0] != '_') return fail(ACP_EINVAL, "extension methods start with '_'");
        RawJson params{"{}"};
        if (int ok = object_json(params_json, params, "params_json"); ok != ACP_OK) return ok;
        std::string name = method;
        return submit(out_request, client, method, done, userdata,
                      [name, params](Core& core, const std::shared_ptr<Call>& call) {
                          RequestHandle handle = core.client->ext_request(name, params, [call](Result<RawJson> r) {
                              if (!r) return call->finish(r.status());
                              call->succeed(r->text.empty() ? "{}" : r->text);
                          });
                          if (handle.id >= 0 && !call->done) core.requests[call->id] = handle;
                      });
    });
}

int acp_client_ext_notify(acp_client* client, const char* method, const char* params_json) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr || method == nullptr) return fail(ACP_EINVAL, "client or method is NULL");
        if (method[0] != '_') return fail(ACP_EINVAL, "extension methods start with '_'");
        RawJson params{"{}"};
        if (int ok = object_json(params_json, params, "params_json"); ok != ACP_OK) return ok;
        auto core = client->core;
        if (core->closing || core->freed) return fail(ACP_ECLOSED, "the client is closed");
        std::string name = method;
        int result = ACP_OK;
        std::string message;
        int ran = core->run_sync([&] {
            if (!core->client) {
                result = ACP_ECLOSED;
                message = "the client is closed";
                return;
            }
            Status sent = core->client->ext_notification(name, params);
            result = code_of(sent);
            message = sent.message();
        });
        if (ran != ACP_OK) return ran;
        return result == ACP_OK ? ACP_OK : fail(result, message);
    });
}

int acp_client_cancel_request(acp_client* client, unsigned long request) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        return core->run([core, request] {
            auto it = core->requests.find(request);
            if (it == core->requests.end() || !core->client) return;
            core->client->cancel_request(it->second);
        });
    });
}

int acp_client_close(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        if (core->closing.exchange(true) || core->freed) return ACP_OK;
        return core->run([core] {
            if (core->client) core->client->close();
        });
    });
}

int acp_client_hasten_close(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        if (core->freed) return ACP_OK;
        core->closing = true;
        return core->run([core] {
            if (core->client) core->client->hasten_close();
        });
    });
}

int acp_client_is_closed(const acp_client* client) {
    if (client == nullptr) return 1;
    return client->core->closing || client->core->ended || client->core->freed ? 1 : 0;
}

}  // extern "C"
