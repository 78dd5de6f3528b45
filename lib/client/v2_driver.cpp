// SPDX-License-Identifier: Apache-2.0
#include "client/v2_driver.hpp"

#include <string>
#include <utility>

#include "client/agent_requests.hpp"
#include "client/agent_tolerance.hpp"
#include "client/client_core.hpp"
#include "client/split_surrogates.hpp"
#include "client/typed_call.hpp"
#include "client/update_router.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"

namespace acp::detail {

namespace av2 = acp::v2;
namespace codec = acp::v2::codec;
namespace method = acp::v2::method;

namespace {

// Earlier drafts answered session/prompt with {}: accepted, the user_message update then
// carries the message id (CLIENT-GUIDE §4.8). Any other shape must decode.
Status decode_prompt_response(const JsonValue& json, av2::PromptResponse& out) {
    Status decoded = codec::decode(json, out);
    if (!decoded && json.IsObject() && find_member(json, "messageId") == nullptr) return Status();
    return decoded;
}

// Session answers whose commands lack `type` (Appendix B 9) are read as commands.
template <class Response>
Status decode_session_answer(const JsonValue& json, Response& out) {
    rapidjson::Document repaired;
    return codec::decode(with_command_types(json, repaired), out);
}

}  // namespace

template <class Response, class Request>
int64_t V2Driver::call(std::string_view name, const Request& request, Callback<Response> done, RequestOptions options) {
    DecodeFn<Response> decode = &codec::decode<Response>;
    if constexpr (std::is_same_v<Response, av2::PromptResponse>) decode = &decode_prompt_response;
    if constexpr (std::is_same_v<Response, av2::NewSessionResponse> ||
                  std::is_same_v<Response, av2::ResumeSessionResponse>) {
        decode = &decode_session_answer<Response>;
    }
    return send_typed<Response>(
        core_, name, [&request](JsonWriter& w) { codec::encode(w, request); }, decode,
        [done = std::move(done)](Result<Response> answer, const JsonValue*) { done(std::move(answer)); }, options);
}

template <class Response, class Request>
int64_t V2Driver::call(std::string_view name, const Request& request, Callback<Response> done) {
    return call<Response>(name, request, std::move(done), core_.request_options());
}

// A login may wait for a user in a browser: its own timeout, named when it fires.
void V2Driver::login(Checked<av2::LoginAuthRequest> request, Callback<av2::LoginAuthResponse> done) {
    const auto timeout = core_.options.login_timeout;
    call<av2::LoginAuthResponse>(
        method::auth_login, *request,
        [this, timeout, done = std::move(done)](Result<av2::LoginAuthResponse> result) {
            if (!result) return done(core_.step_failed(result.status(), "auth/login", timeout, "login_timeout"));
            done(std::move(result));
        },
        core_.step_options(timeout));
}

void V2Driver::logout(Checked<av2::LogoutAuthRequest> request, Callback<av2::LogoutAuthResponse> done) {
    call<av2::LogoutAuthResponse>(method::auth_logout, *request, std::move(done));
}

void V2Driver::new_session(Checked<av2::NewSessionRequest> request, Callback<av2::NewSessionResponse> done) {
    router_.new_session_sent();
    call<av2::NewSessionResponse>(
        method::session_new, *request, [this, done = std::move(done)](Result<av2::NewSessionResponse> result) {
            if (!result) {
                router_.new_session_answered(nullptr);
                return done(std::move(result));
            }
            // Updates that came before this answer go first
            // (CLIENT-MUST-59: the answer never overrides a
            // state they reported).
            router_.new_session_answered(&result->sessionId);
            router_.apply_lists(result->sessionId, result->configOptions, result->availableCommands);
            done(std::move(result));
        });
}

void V2Driver::resume_session(Checked<av2::ResumeSessionRequest> request, Callback<av2::ResumeSessionResponse> done) {
    const std::string session_id = request->sessionId;
    const bool full_replay =
        request->replayFrom.has_value() && request->replayFrom->kind() == av2::ReplayFrom::Kind::start;
    const UpdateRouter::Membership before = router_.begin_resume(session_id, full_replay);
    call<av2::ResumeSessionResponse>(
        method::session_resume, *request,
        [this, session_id, before, done = std::move(done)](Result<av2::ResumeSessionResponse> result) {
            if (!result) {
                router_.resume_refused(session_id, before);
                return done(std::move(result));
            }
            router_.apply_lists(session_id, result->configOptions, result->availableCommands);
            router_.resume_answered(session_id,
                                    [done, result = std::move(result)]() mutable { done(std::move(result)); });
        });
}

void V2Driver::list_sessions(Checked<av2::ListSessionsRequest> request, Callback<av2::ListSessionsResponse> done) {
    call<av2::ListSessionsResponse>(method::session_list, *request,
                                    [this, done = std::move(done)](Result<av2::ListSessionsResponse> result) {
                                        if (result) router_.sessions_listed(result->sessions);
                                        done(std::move(result));
                                    });
}

void V2Driver::close_session(Checked<av2::CloseSessionRequest> request, Callback<av2::CloseSessionResponse> done) {
    const std::string session_id = request->sessionId;
    // Forgotten whether the agent confirms or never knew it (-32002 counts as success).
    call<av2::CloseSessionResponse>(
        method::session_close, *request,
        [this, session_id, done = std::move(done)](Result<av2::CloseSessionResponse> result) {
            if (!result && !is_unknown_session(result.status())) return done(std::move(result));
            router_.session_closed(session_id);
            done(av2::CloseSessionResponse{});
        });
}

void V2Driver::delete_session(Checked<av2::DeleteSessionRequest> request, Callback<av2::DeleteSessionResponse> done) {
    call<av2::DeleteSessionResponse>(method::session_delete, *request,
                                     [done = std::move(done)](Result<av2::DeleteSessionResponse> result) {
                                         if (!result && is_unknown_session(result.status())) {
                                             return done(av2::DeleteSessionResponse{});
                                         }
                                         done(std::move(result));
                                     });
}

RequestHandle V2Driver::prompt(Checked<av2::PromptRequest> request, Callback<av2::PromptResponse> done) {
    return RequestHandle{call<av2::PromptResponse>(method::session_prompt, *request, std::move(done))};
}

void V2Driver::cancel(Checked<av2::CancelSessionNotification> notification) {
    core_.rpc->send_notification(method::session_cancel,
                                 [&notification](JsonWriter& w) { codec::encode(w, *notification); });
    // CLIENT-MUST-69: unfinished tool calls of the cancelled work show as cancelled now;
    // the agent's final statuses still win.
    core_.store.mark_cancelled(notification->sessionId);
    // Pending permission requests stay open: the agent withdraws those of the cancelled
    // foreground work with $/cancel_request (answered "cancelled", CLIENT-MUST-68); those
    // of background work stay valid, and libacp cannot tell the two apart itself.
}

void V2Driver::set_config_option(Checked<av2::SetSessionConfigOptionRequest> request,
                                 Callback<av2::SetSessionConfigOptionResponse> done) {
    const std::string session_id = request->sessionId;
    // CLIENT-MUST-56: the answer is the complete list; it replaces ours.
    call<av2::SetSessionConfigOptionResponse>(
        method::session_set_config_option, *request,
        [this, session_id, done = std::move(done)](Result<av2::SetSessionConfigOptionResponse> result) {
            if (result) core_.store.set_config_options(session_id, result->configOptions);
            done(std::move(result));
        });
}

void V2Driver::cancel_tool_call(Checked<av2::CancelToolCallRequest> request,
                                Callback<av2::CancelToolCallResponse> done) {
    call<av2::CancelToolCallResponse>(method::tool_call_cancel, *request, std::move(done));
}

void V2Driver::cancel_terminal(Checked<av2::CancelTerminalRequest> request,
                               Callback<av2::CancelTerminalResponse> done) {
    call<av2::CancelTerminalResponse>(method::terminal_cancel, *request, std::move(done));
}

// The unstable schema extends v2: sent as checked, the answer left for the caller to decode.
void V2Driver::unstable_request(Checked<UnstableMessage> message, Callback<RawJson> done) {
    send_typed<RawJson>(
        core_, message->method, [&message](JsonWriter& w) { write_raw(w, message->params); }, &decode_json_object,
        [done = std::move(done)](Result<RawJson> answer, const JsonValue*) { done(std::move(answer)); },
        core_.request_options());
}

bool V2Driver::on_update_line(char* line, std::size_t size) { return router_.deliver_chunk_line(line, size); }

// Everything the line shortcut declined (client/chunk_line.hpp) is decoded here.
void V2Driver::on_session_update(const JsonValue* params) {
    av2::UpdateSessionNotification notification;
    rapidjson::Document repaired;  // commands without `type` (Appendix B 9)
    Status decoded = params ? codec::decode(with_command_types_in_update(*params, repaired), notification)
                            : Status(Errc::protocol_error, "session/update without params");
    if (!decoded) {
        core_.log_session(LogLevel::error, "invalid session/update ignored: " + decoded.message());
        return;
    }
    if (const JsonValue* text = chunk_text_value(params)) {
        mark_chunk_edges(core_.rpc->edge_surrogates(*text), notification);
    }
    malformed_capabilities_clear(*params, notification.update);
    router_.route(std::move(notification));
}

void V2Driver::on_permission_request(const JsonValue* params, Responder responder) {
    av2::RequestPermissionRequest request;
    Status decoded = params ? codec::decode(*params, request) : Status(Errc::protocol_error, "no params");
    if (!decoded) {
        responder.fail(rpc_code::invalid_params, "Invalid params: " + decoded.message());
        return;
    }
    if (request.subject.has_value() && request.subject->tool_call() != nullptr) {
        const JsonValue* subject = find_member(*params, "subject");
        const JsonValue* tool_call = subject != nullptr ? find_member(*subject, "toolCall") : nullptr;
        if (tool_call != nullptr) malformed_capabilities_clear(*tool_call, request.subject->tool_call()->toolCall);
    }
    if (!router_.admits_request(request.sessionId, responder)) return;
    requests_.present_permission(request, requests_.prepare_permission(request, std::move(responder)));
}

// v2 has no client methods: fs/* and terminal/* are unknown methods there (CLIENT-MUST-08).
void V2Driver::on_client_method(std::string_view method, const JsonValue*, Responder responder) {
    responder.fail(rpc_code::method_not_found, "Method not found", [method](JsonWriter& w) {
        w.StartObject();
        w.Key("method");
        write_string(w, method);
        w.EndObject();
    });
}

}  // namespace acp::detail
