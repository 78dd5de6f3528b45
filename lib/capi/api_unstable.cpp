// SPDX-License-Identifier: Apache-2.0
// acp_client_unstable_call, acp_client_unstable_offer and ACP_EVENT_AUTH_STATUS_UPDATE
// (include/acp/acp.h): the unstable surface of acp/unstable.hpp for C hosts, one entry
// point named by method. The request is decoded with the unstable codec, checked and sent
// by acp::unstable (the gate: the opt-in, then the agent's capability), and its answer
// encoded the same way; its notifications come as events.
#include "acp/unstable.hpp"

#include <string>
#include <utility>

#include "capi/barrier.hpp"
#include "capi/call_submit.hpp"
#include "capi/json_text.hpp"
#include "capi/tool_servers.hpp"
#include "protocol/unstable_additions.hpp"

namespace acp::capi {

namespace {

namespace un = v2::unstable;

template <class T>
std::string encode_unstable(const T& value) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    un::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

template <class Response>
Callback<Response> unstable_completion(std::shared_ptr<Call> call) {
    return completion<Response>(std::move(call), [](const Response& r) { return encode_unstable(r); });
}

// The host's params (NULL: {}) decoded with the unstable codec.
template <class T>
int decode_unstable(const char* json, T& out) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseValidateEncodingFlag>(json != nullptr ? json : "{}");
    if (document.HasParseError()) {
        return fail(ACP_EINVAL, std::string("params_json is not valid JSON text in UTF-8: ") +
                                    rapidjson::GetParseError_En(document.GetParseError()));
    }
    if (Status s = un::codec::decode(document, out); !s) return fail(ACP_EINVAL, "params_json: " + s.message());
    return ACP_OK;
}

// A stable request given with its unstable member (systemPrompt, archived): the member is
// taken out of the request's extra fields and given apart, as acp::unstable wants it.
template <class Request>
int take_member(Request& request, const char* key, RawJson& member) {
    for (auto it = request.extra_fields.begin(); it != request.extra_fields.end(); ++it) {
        if (it->first != key) continue;
        member = std::move(it->second);
        request.extra_fields.erase(it);
        return ACP_OK;
    }
    return fail(ACP_EINVAL, std::string("params_json: no ") + key + " (the stable call takes the request without it)");
}

template <class T>
int decode_member(const RawJson& member, T& out, const char* key) {
    rapidjson::Document document;
    document.Parse(member.text.data(), member.text.size());
    if (Status s = un::codec::decode(document, out); !s) {
        return fail(ACP_EINVAL, std::string("params_json: ") + key + ": " + s.message());
    }
    return ACP_OK;
}

int start(unsigned long* out_request, acp_client* client, const std::string& method, const char* params_json,
          acp_result_cb done, void* userdata, ToolServers tools) {
    const char* name = method.c_str();
    if (!tools.empty() && method != "session/fork" && method != "session/new" && method != "session/resume") {
        return fail(ACP_EINVAL, "tool servers go with session/fork, session/new and session/resume only");
    }
    if (method == "session/fork") {
        un::ForkSessionRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        const std::string source = request.sessionId;
        return submit(out_request, client, "session/fork", source, done, userdata,
                      [request, tools](Core& core, const std::shared_ptr<Call>& call) {
                          Core* c = &core;
                          unstable::fork_session(*core.client, request, tools,
                                                 [c, call](Result<un::ForkSessionResponse> r) {
                                                     // The fork is a new session of the model: the result names it.
                                                     if (r) {
                                                         c->session_ids.insert(r->sessionId);
                                                         call->session_id = r->sessionId;
                                                     }
                                                     unstable_completion<un::ForkSessionResponse>(call)(std::move(r));
                                                 });
                      });
    }
    if (method == "session/archive") {
        un::ArchiveSessionRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(out_request, client, name, request.sessionId, done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          unstable::archive_session(*core.client, request,
                                                    unstable_completion<un::ArchiveSessionResponse>(call));
                      });
    }
    if (method == "session/unarchive") {
        un::UnarchiveSessionRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(out_request, client, name, request.sessionId, done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          unstable::unarchive_session(*core.client, request,
                                                      unstable_completion<un::UnarchiveSessionResponse>(call));
                      });
    }
    if (method == "session/status") {
        un::SessionStatusRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(out_request, client, name, request.sessionId, done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          unstable::session_status(*core.client, request,
                                                   unstable_completion<un::SessionStatusResponse>(call));
                      });
    }
    if (method == "session/set_title") {
        un::SetSessionTitleRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(out_request, client, name, request.sessionId, done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          unstable::set_session_title(*core.client, request,
                                                      unstable_completion<un::SetSessionTitleResponse>(call));
                      });
    }
    if (method == "auth/status") {
        un::AuthStatusRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(
            out_request, client, name, done, userdata, [request](Core& core, const std::shared_ptr<Call>& call) {
                unstable::auth_status(*core.client, request, unstable_completion<un::AuthStatusResponse>(call));
            });
    }
    if (method == "providers/list") {
        un::ListProvidersRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(
            out_request, client, name, done, userdata, [request](Core& core, const std::shared_ptr<Call>& call) {
                unstable::list_providers(*core.client, request, unstable_completion<un::ListProvidersResponse>(call));
            });
    }
    if (method == "providers/set") {
        un::SetProviderRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(
            out_request, client, name, done, userdata, [request](Core& core, const std::shared_ptr<Call>& call) {
                unstable::set_provider(*core.client, request, unstable_completion<un::SetProviderResponse>(call));
            });
    }
    if (method == "providers/disable") {
        un::DisableProviderRequest request;
        if (int ok = decode_unstable(params_json, request); ok != ACP_OK) return ok;
        return submit(out_request, client, name, done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          unstable::disable_provider(*core.client, request,
                                                     unstable_completion<un::DisableProviderResponse>(call));
                      });
    }
    if (method == "session/new" || method == "session/resume") {
        const bool resume = method == "session/resume";
        v2::NewSessionRequest created;
        v2::ResumeSessionRequest resumed;
        RawJson member;
        if (int ok = resume ? decode_json(params_json, resumed, "params_json")
                            : decode_json(params_json, created, "params_json");
            ok != ACP_OK) {
            return ok;
        }
        if (int ok =
                resume ? take_member(resumed, "systemPrompt", member) : take_member(created, "systemPrompt", member);
            ok != ACP_OK) {
            return ok;
        }
        un::SystemPrompt prompt;
        if (int ok = decode_member(member, prompt, "systemPrompt"); ok != ACP_OK) return ok;
        if (resume) {
            return submit(out_request, client, name, resumed.sessionId, done, userdata,
                          [resumed, prompt, tools](Core& core, const std::shared_ptr<Call>& call) {
                              unstable::resume_session(*core.client, resumed, prompt, tools,
                                                       completion<v2::ResumeSessionResponse>(call));
                          });
        }
        return submit(out_request, client, name, done, userdata,
                      [created, prompt, tools](Core& core, const std::shared_ptr<Call>& call) {
                          Core* c = &core;
                          unstable::new_session(*core.client, created, prompt, tools,
                                                [c, call](Result<v2::NewSessionResponse> r) {
                                                    if (r) {
                                                        c->session_ids.insert(r->sessionId);
                                                        call->session_id = r->sessionId;
                                                    }
                                                    completion<v2::NewSessionResponse>(call)(std::move(r));
                                                });
                      });
    }
    if (method == "session/list") {
        v2::ListSessionsRequest request;
        if (int ok = decode_json(params_json != nullptr ? params_json : "{}", request, "params_json"); ok != ACP_OK) {
            return ok;
        }
        RawJson member;
        if (int ok = take_member(request, "archived", member); ok != ACP_OK) return ok;
        un::SessionArchiveFilter archived;
        if (int ok = decode_member(member, archived, "archived"); ok != ACP_OK) return ok;
        return submit(out_request, client, name, done, userdata,
                      [request, archived](Core& core, const std::shared_ptr<Call>& call) {
                          unstable::list_sessions(*core.client, request, archived,
                                                  completion<v2::ListSessionsResponse>(call));
                      });
    }
    return fail(ACP_EINVAL, "'" + method + "' is not a method of the unstable surface this libacp knows");
}

}  // namespace

void Core::install_unstable_handlers() {
    std::weak_ptr<Core> weak = shared_from_this();
    unstable::on_auth_status_update(*client, [weak](const un::AuthStatusUpdateNotification& n) {
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_AUTH_STATUS_UPDATE;
        event->method = "auth/status_update";
        event->json = encode_unstable(n);
        core->emit(std::move(event));
    });
}

}  // namespace acp::capi

using namespace acp;
using namespace acp::capi;

extern "C" {

int acp_client_unstable_call(unsigned long* out_request, acp_client* client, const char* method,
                             const char* params_json, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(method, "method"); ok != ACP_OK) return ok;
        return start(out_request, client, method, params_json, done, userdata, {});
    });
}

int acp_client_unstable_call_with_tools(unsigned long* out_request, acp_client* client, const char* method,
                                        const char* params_json, acp_tool_server* const* servers, size_t count,
                                        acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(method, "method"); ok != ACP_OK) return ok;
        auto core = core_of(client);
        if (!core) return ACP_EINVAL;
        ToolServers tools;
        if (int ok = setup_tool_servers(tools, core, servers, count); ok != ACP_OK) return ok;
        return start(out_request, client, method, params_json, done, userdata, std::move(tools));
    });
}

int acp_client_unstable_offer(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        std::optional<unstable::Offer> offer;
        int ran = core->run_sync([&] {
            if (core->client && core->client->agent() != nullptr) offer = unstable::offer(*core->client);
        });
        if (ran != ACP_OK) return ran;
        if (!offer) return fail(ACP_ESTATE, "initialize has not succeeded");
        auto flag = [](bool b) { return b ? "true" : "false"; };
        const std::string json =
            std::string("{\"fork\":") + flag(offer->fork) + ",\"archive\":" + flag(offer->archive) +
            ",\"status\":" + flag(offer->status) + ",\"title\":" + flag(offer->title) +
            ",\"systemPrompt\":" + flag(offer->system_prompt) +
            ",\"systemPromptOverride\":" + flag(offer->system_prompt_override) +
            ",\"authStatus\":" + flag(offer->auth_status) + ",\"providers\":" + flag(offer->providers) + "}";
        *out = copy_string(json);
        return ACP_OK;
    });
}

}  // extern "C"
