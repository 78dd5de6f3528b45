// SPDX-License-Identifier: Apache-2.0
#include "client/v1_driver.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "client/agent_requests.hpp"
#include "client/client_core.hpp"
#include "client/split_surrogates.hpp"
#include "client/typed_call.hpp"
#include "client/update_router.hpp"
#include "client/v1_unstable.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v1/methods.hpp"
#include "protocol/v1/unstable_methods.hpp"
#include "protocol/v2/codec.hpp"

namespace acp::detail {

namespace av1 = acp::v1;
namespace av2 = acp::v2;
namespace codec = acp::v2::codec;
namespace v1codec = acp::v1::codec;
namespace v1method = acp::v1::method;

namespace {

// The sessionUpdate tag of session/update params, "" when there is none.
std::string_view update_kind(const JsonValue& params) {
    const JsonValue* update = find_member(params, "update");
    const JsonValue* kind = update != nullptr && update->IsObject() ? find_member(*update, "sessionUpdate") : nullptr;
    return kind != nullptr && kind->IsString() ? string_view_of(*kind) : std::string_view();
}

// What a host put beside a request's typed fields reaches a v1 agent too: its _meta
// (CLIENT-GUIDE 1.5) and extra fields, among them the unstable members the gate added
// (systemPrompt, archived: v1's unstable schema has them in the same shape). The gate
// checked the extras against the v2 request; one the v1 request defines itself (none
// today) would go out twice, so the typed field wins.
template <class V2Request, class V1Request>
void carry_host_members(const V2Request& from, V1Request& to) {
    to._meta = from._meta;
    for (const auto& [name, value] : from.extra_fields) {
        if (!v1codec::has_member(to, name)) to.extra_fields.emplace_back(name, value);
    }
}

}  // namespace

V1Driver::V1Driver(ClientCore& core, UpdateRouter& router, AgentRequests& requests)
    : core_(core),
      router_(router),
      requests_(requests),
      client_methods_(core, router, [this](const std::string& session_id) { flush_prompt_start(session_id); }) {}

template <class V1Response, class V1Request>
int64_t V1Driver::call(std::string_view name, const V1Request& request,
                       std::function<void(Result<V1Response>, const JsonValue*)> done, RequestOptions options) {
    return send_typed<V1Response>(
        core_, name, [&request](JsonWriter& w) { v1codec::encode(w, request); }, &v1codec::decode<V1Response>,
        std::move(done), options);
}

template <class V1Response, class V1Request>
int64_t V1Driver::setup_call(std::string_view name, const V1Request& request, const std::vector<RawJson>& acp_servers,
                             std::function<void(Result<V1Response>, const JsonValue*)> done, RequestOptions options) {
    if (acp_servers.empty()) return call<V1Response>(name, request, std::move(done), options);
    rapidjson::StringBuffer typed;
    JsonWriter typed_writer(typed);
    v1codec::encode(typed_writer, request);
    const std::string_view typed_json(typed.GetString(), typed.GetSize());
    return send_typed<V1Response>(
        core_, name, [&](JsonWriter& w) { write_with_acp_servers(w, typed_json, acp_servers); },
        &v1codec::decode<V1Response>, std::move(done), options);
}

void V1Driver::login(Checked<av2::LoginAuthRequest> request, Callback<av2::LoginAuthResponse> done) {
    av1::AuthenticateRequest lowered;
    lowered.methodId = request->methodId;
    carry_host_members(*request, lowered);
    // A login may wait for a user in a browser: its own timeout, named when it fires.
    const auto timeout = core_.options.login_timeout;
    call<av1::AuthenticateResponse>(
        v1method::authenticate, lowered,
        [this, timeout, done = std::move(done)](Result<av1::AuthenticateResponse> result, const JsonValue*) {
            if (!result) return done(core_.step_failed(result.status(), "authenticate", timeout, "login_timeout"));
            done(av2::LoginAuthResponse{});
        },
        core_.step_options(timeout));
}

void V1Driver::logout(Checked<av2::LogoutAuthRequest>, Callback<av2::LogoutAuthResponse> done) {
    call<av1::LogoutResponse>(
        v1method::logout, av1::LogoutRequest{},
        [done = std::move(done)](Result<av1::LogoutResponse> result, const JsonValue*) {
            if (!result) return done(result.status());
            done(av2::LogoutAuthResponse{});
        },
        core_.request_options());
}

void V1Driver::new_session(Checked<av2::NewSessionRequest> request, Callback<av2::NewSessionResponse> done) {
    av1::NewSessionRequest lowered;
    lowered.cwd = request->cwd;
    lowered.additionalDirectories = request->additionalDirectories;
    carry_host_members(*request, lowered);
    std::vector<RawJson> acp_servers;
    if (Status s = lower_mcp_servers(request->mcpServers, lowered.mcpServers, acp_servers); !s) {
        return core_.refuse(std::move(done), s);
    }
    router_.new_session_sent();
    setup_call<av1::NewSessionResponse>(
        v1method::session_new, lowered, acp_servers,
        [this, done = std::move(done)](Result<av1::NewSessionResponse> result, const JsonValue* raw) {
            if (!result) {
                router_.new_session_answered(nullptr);
                return done(result.status());
            }
            av2::NewSessionResponse response;
            response.sessionId = result->sessionId;
            response.configOptions = lifter_.set_lists(response.sessionId, *raw);
            router_.new_session_answered(&response.sessionId);
            router_.apply_lists(response.sessionId, response.configOptions, response.availableCommands);
            done(std::move(response));
        },
        core_.request_options());
}

// replayFrom {start} → session/load; without → session/resume (the gate checked which
// one the agent offers, and that no other cursor is asked for).
void V1Driver::resume_session(Checked<av2::ResumeSessionRequest> request, Callback<av2::ResumeSessionResponse> done) {
    const bool replay = request->replayFrom.has_value();
    std::vector<av1::McpServer> servers;
    std::vector<RawJson> acp_servers;
    if (Status s = lower_mcp_servers(request->mcpServers, servers, acp_servers); !s) {
        return core_.refuse(std::move(done), s);
    }
    const std::string session_id = request->sessionId;
    const UpdateRouter::Membership before = router_.begin_resume(session_id, replay);
    V1Lifter::IdState ids;
    if (replay) ids = lifter_.restart(session_id);
    auto finish = [this, session_id, before, replay, ids, done = std::move(done)](Status status, const JsonValue* raw) {
        if (!status) {
            router_.resume_refused(session_id, before);
            // The transcript stays, so its synthetic ids go on where they stood.
            if (replay) lifter_.restore(session_id, ids);
            return done(status);
        }
        av2::ResumeSessionResponse response;
        response.configOptions = lifter_.set_lists(session_id, *raw);
        router_.apply_lists(session_id, response.configOptions, response.availableCommands);
        router_.resume_answered(session_id,
                                [done, response = std::move(response)]() mutable { done(std::move(response)); });
    };
    if (replay) {
        av1::LoadSessionRequest load;
        load.sessionId = session_id;
        load.cwd = request->cwd;
        load.additionalDirectories = request->additionalDirectories;
        load.mcpServers = std::move(servers);
        carry_host_members(*request, load);
        setup_call<av1::LoadSessionResponse>(
            v1method::session_load, load, acp_servers,
            [finish](Result<av1::LoadSessionResponse> result, const JsonValue* raw) {
                finish(result ? Status() : result.status(), raw);
            },
            core_.request_options());
        return;
    }
    av1::ResumeSessionRequest resume;
    resume.sessionId = session_id;
    resume.cwd = request->cwd;
    resume.additionalDirectories = request->additionalDirectories;
    if (request->mcpServers) resume.mcpServers = std::move(servers);
    carry_host_members(*request, resume);
    setup_call<av1::ResumeSessionResponse>(
        v1method::session_resume, resume, acp_servers,
        [finish](Result<av1::ResumeSessionResponse> result, const JsonValue* raw) {
            finish(result ? Status() : result.status(), raw);
        },
        core_.request_options());
}

void V1Driver::list_sessions(Checked<av2::ListSessionsRequest> request, Callback<av2::ListSessionsResponse> done) {
    av1::ListSessionsRequest lowered;
    if (request->cwd.has_value()) lowered.cwd = *request->cwd;
    if (request->cursor.has_value()) lowered.cursor = *request->cursor;
    carry_host_members(*request, lowered);
    call<av1::ListSessionsResponse>(
        v1method::session_list, lowered,
        [this, done = std::move(done)](Result<av1::ListSessionsResponse> result, const JsonValue* raw) {
            if (!result) return done(result.status());
            // The same shape in both versions; v2's stricter checks (absolute paths) apply.
            av2::ListSessionsResponse response;
            if (Status decoded = codec::decode(*raw, response); !decoded) {
                return done(Status(Errc::protocol_error, "session/list answer: " + decoded.message()));
            }
            router_.sessions_listed(response.sessions);
            done(std::move(response));
        },
        core_.request_options());
}

// CLIENT-MUST-46: an unknown session counts as ended; either way the client forgets it.
template <class V1Request, class V1Response, class V2Request, class V2Response>
void V1Driver::end_session(std::string_view name, const V2Request& ended, Callback<V2Response> done) {
    V1Request request;
    request.sessionId = ended.sessionId;
    carry_host_members(ended, request);
    const std::string session_id = ended.sessionId;
    call<V1Response>(
        name, request,
        [this, session_id, done = std::move(done)](Result<V1Response> result, const JsonValue*) {
            if (!result && !is_unknown_session(result.status())) return done(result.status());
            router_.session_closed(session_id);
            done(V2Response{});
        },
        core_.request_options());
}

void V1Driver::close_session(Checked<av2::CloseSessionRequest> request, Callback<av2::CloseSessionResponse> done) {
    end_session<av1::CloseSessionRequest, av1::CloseSessionResponse>(v1method::session_close, *request,
                                                                     std::move(done));
}

void V1Driver::delete_session(Checked<av2::DeleteSessionRequest> request, Callback<av2::DeleteSessionResponse> done) {
    end_session<av1::DeleteSessionRequest, av1::DeleteSessionResponse>(v1method::session_delete, *request,
                                                                       std::move(done));
}

RequestHandle V1Driver::prompt(Checked<av2::PromptRequest> request, Callback<av2::PromptResponse> done) {
    av1::PromptRequest lowered;
    lowered.sessionId = request->sessionId;
    carry_host_members(*request, lowered);
    if (Status s = lower_prompt(request->prompt, lowered.prompt); !s) {
        core_.refuse(std::move(done), s);
        return {};
    }
    const std::string session_id = request->sessionId;
    // v1 has no turn states and rarely echoes the prompt: the turn starts here (running,
    // then the user message), delivered on the next loop turn; anything the agent sends
    // for the session before that waits behind it.
    auto& start = prompt_starting_[session_id];
    av2::UpdateSessionNotification running;
    running.sessionId = session_id;
    running.update = av2::SessionUpdate::make_state_update(av2::StateUpdate::make_running({}));
    start.push_back(std::move(running));
    av2::UpdateSessionNotification user;
    user.sessionId = session_id;
    user.update = lifter_.user_message(session_id, request->prompt);
    const std::string message_id = user.update.user_message()->messageId;
    start.push_back(std::move(user));
    core_.deferred.post([this, session_id] {
        auto keep_alive = core_.keep_alive();
        if (!core_.orphaned) flush_prompt_start(session_id);
    });
    // The answer ends the turn, however long it takes: no request timeout.
    const int64_t id = call<av1::PromptResponse>(
        v1method::session_prompt, lowered,
        [this, session_id, message_id, done = std::move(done)](Result<av1::PromptResponse> result, const JsonValue*) {
            flush_prompt_start(session_id);
            if (core_.orphaned) return;
            deliver_idle(session_id, result);
            if (core_.orphaned) return;
            if (!result) return done(result.status());
            av2::PromptResponse response;
            response.messageId = message_id;
            done(std::move(response));
        },
        RequestOptions{});
    return RequestHandle{id};
}

// idle with the stop reason, or with "error" when the prompt failed (§10).
void V1Driver::deliver_idle(const std::string& session_id, const Result<av1::PromptResponse>& result) {
    rapidjson::Document idle(rapidjson::kObjectType);
    auto& allocator = idle.GetAllocator();
    idle.AddMember("state", "idle", allocator);
    if (result) {
        idle.AddMember("stopReason", JsonValue(result->stopReason.value.c_str(), allocator), allocator);
    } else {
        JsonValue error(rapidjson::kObjectType);
        const Status& why = result.status();
        error.AddMember("code", why.code() == Errc::rpc_error ? why.rpc_code() : error_code::internal_error, allocator);
        error.AddMember("message", JsonValue(why.message().c_str(), allocator), allocator);
        idle.AddMember("stopReason", "error", allocator);
        idle.AddMember("error", error, allocator);
    }
    av2::StateUpdate state;
    if (Status decoded = codec::decode(idle, state); !decoded) return;
    av2::UpdateSessionNotification notification;
    notification.sessionId = session_id;
    notification.update = av2::SessionUpdate::make_state_update(std::move(state));
    router_.route(std::move(notification));
}

void V1Driver::cancel(Checked<av2::CancelSessionNotification> notification) {
    const std::string& session_id = notification->sessionId;
    core_.rpc->send_notification(v1method::session_cancel, [&notification](JsonWriter& w) {
        av1::CancelNotification lowered;
        lowered.sessionId = notification->sessionId;
        carry_host_members(*notification, lowered);
        v1codec::encode(w, lowered);
    });
    core_.store.mark_cancelled(session_id);
    cancel_permissions(session_id);
}

void V1Driver::cancel_permissions(const std::string& session_id) {
    auto found = permissions_.find(session_id);
    if (found == permissions_.end()) return;
    auto pending = std::move(found->second);
    permissions_.erase(found);
    for (const auto& weak : pending) {
        if (auto state = weak.lock()) {
            if (!state->responder.answered()) state->send_cancelled();
        }
    }
}

// The synthesized mode option goes to session/set_mode, the agent's own options to
// session/set_config_option; both answers become the session's full option list.
void V1Driver::set_config_option(Checked<av2::SetSessionConfigOptionRequest> request,
                                 Callback<av2::SetSessionConfigOptionResponse> done) {
    const std::string session_id = request->sessionId;
    auto finish = [this, session_id](std::optional<std::vector<av2::SessionConfigOption>> options,
                                     const Callback<av2::SetSessionConfigOptionResponse>& reply) {
        av2::SetSessionConfigOptionResponse response;
        if (options) {
            core_.store.set_config_options(session_id, *options);
            response.configOptions = std::move(*options);
        }
        reply(std::move(response));
    };
    if (request->configId == kV1ModeOptionId && lifter_.has_mode_option(session_id) && request->type.id()) {
        av1::SetSessionModeRequest mode;
        mode.sessionId = session_id;
        mode.modeId = request->type.id()->value;
        carry_host_members(*request, mode);
        const std::string mode_id = mode.modeId;
        call<av1::SetSessionModeResponse>(
            v1method::session_set_mode, mode,
            [this, session_id, mode_id, finish, done = std::move(done)](Result<av1::SetSessionModeResponse> result,
                                                                        const JsonValue*) {
                if (!result) return done(result.status());
                finish(lifter_.set_mode(session_id, mode_id), done);
            },
            core_.request_options());
        return;
    }
    av1::SetSessionConfigOptionRequest lowered;
    lowered.sessionId = session_id;
    lowered.configId = request->configId;
    carry_host_members(*request, lowered);
    rapidjson::StringBuffer value;
    JsonWriter writer(value);
    if (const auto* flag = request->type.boolean()) {
        lowered.type = "boolean";
        writer.Bool(flag->value);
    } else if (const auto* id = request->type.id()) {
        write_string(writer, id->value);  // v1: no type means a value id
    } else {
        return core_.refuse(std::move(done), Status(Errc::unsupported, "v1 config options take ids or booleans, not '" +
                                                                           request->type.tag() + "'"));
    }
    lowered.value = RawJson{std::string(value.GetString(), value.GetSize())};
    call<av1::SetSessionConfigOptionResponse>(
        v1method::session_set_config_option, lowered,
        [this, session_id, finish, done = std::move(done)](Result<av1::SetSessionConfigOptionResponse> result,
                                                           const JsonValue* raw) {
            if (!result) return done(result.status());
            finish(lifter_.set_lists(session_id, *raw), done);
        },
        core_.request_options());
}

// The gate refuses these for a v1 agent (AgentFeatures::cancel_entities); refused here too.
void V1Driver::cancel_tool_call(Checked<av2::CancelToolCallRequest>, Callback<av2::CancelToolCallResponse> done) {
    core_.refuse(std::move(done), Status(Errc::unsupported, "tool_call/cancel: ACP v1 has no such method"));
}

void V1Driver::cancel_terminal(Checked<av2::CancelTerminalRequest>, Callback<av2::CancelTerminalResponse> done) {
    core_.refuse(std::move(done), Status(Errc::unsupported, "terminal/cancel: ACP v1 has no such method"));
}

// v1's unstable schema has the same calls in v1 shapes (client/v1_unstable.hpp); a fork
// is a new session, whose modes and config options are lifted as session/new's are.
void V1Driver::unstable_request(Checked<UnstableMessage> message, Callback<RawJson> done) {
    const std::string name = message->method;
    RawJson params;
    std::vector<RawJson> acp_servers;
    if (Status s = lower_unstable_request(name, message->params, params, acp_servers); !s) {
        return core_.refuse(std::move(done), s);
    }
    send_typed<RawJson>(
        core_, name,
        [&](JsonWriter& w) {
            if (acp_servers.empty()) return write_raw(w, params);
            write_with_acp_servers(w, params.text, acp_servers);
        },
        &decode_json_object,
        [this, name, done = std::move(done)](Result<RawJson> answer, const JsonValue* raw) {
            if (!answer) return done(answer.status());
            RawJson lifted;
            Status s = lift_unstable_answer(name, *raw, lifted);
            if (s && name == av1::unstable::method::session_fork) {
                const std::string session_id(string_view_of(*find_member(*raw, "sessionId")));  // lifted: a string
                s = with_fork_options(lifted, lifter_.set_lists(session_id, *raw));
            }
            if (!s) {
                const std::string why = "the agent's answer to " + name + " is invalid: " + s.message();
                core_.log(LogLevel::error, why);
                return done(Status(Errc::protocol_error, why));
            }
            done(std::move(lifted));
        },
        core_.request_options());
}

void V1Driver::on_session_update(const JsonValue* params) {
    client_methods_.flush_shown();  // the host's answers this update may follow come first
    av1::SessionNotification notification;
    Status decoded = params ? Status() : Status(Errc::protocol_error, "session/update without params");
    if (decoded && V1Lifter::is_v1_update_kind(update_kind(*params))) decoded = v1codec::decode(*params, notification);
    std::vector<av2::UpdateSessionNotification> lifted;
    if (decoded) decoded = lifter_.lift_update(*params, lifted);
    if (!decoded) {
        core_.log_session(LogLevel::error, "invalid v1 session/update ignored: " + decoded.message());
        return;
    }
    const JsonValue* chunk_text = chunk_text_value(params);
    const StringEdgeSurrogates* edges = chunk_text != nullptr ? core_.rpc->edge_surrogates(*chunk_text) : nullptr;
    for (auto& update : lifted) {
        if (core_.orphaned) return;
        mark_chunk_edges(edges, update);
        auto starting = prompt_starting_.find(update.sessionId);
        if (starting != prompt_starting_.end()) {
            starting->second.push_back(std::move(update));  // the synthesized start goes first
        } else {
            router_.route(std::move(update));
        }
    }
}

void V1Driver::flush_prompt_start(const std::string& session_id) {
    auto starting = prompt_starting_.find(session_id);
    if (starting == prompt_starting_.end()) return;
    std::vector<av2::UpdateSessionNotification> updates = std::move(starting->second);
    prompt_starting_.erase(starting);
    for (auto& update : updates) {
        if (core_.orphaned) return;
        router_.route(std::move(update));
    }
}

void V1Driver::on_permission_request(const JsonValue* params, Responder responder) {
    av2::RequestPermissionRequest request;
    Status decoded = params ? lift_permission(*params, request) : Status(Errc::protocol_error, "no params");
    if (!decoded) {
        responder.fail(rpc_code::invalid_params, "Invalid params: " + decoded.message());
        return;
    }
    // The turn's synthesized start comes before anything the turn does.
    flush_prompt_start(request.sessionId);
    if (core_.orphaned || !router_.admits_request(request.sessionId, responder)) return;
    auto state = requests_.prepare_permission(request, std::move(responder));
    auto& pending = permissions_[request.sessionId];
    pending.erase(std::remove_if(pending.begin(), pending.end(), [](const auto& w) { return w.expired(); }),
                  pending.end());
    pending.push_back(state);
    requests_.present_permission(request, std::move(state));
}

void V1Driver::on_client_method(std::string_view method, const JsonValue* params, Responder responder) {
    client_methods_.serve(method, params, std::move(responder));
}

}  // namespace acp::detail
