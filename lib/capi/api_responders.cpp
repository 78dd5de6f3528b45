// SPDX-License-Identifier: Apache-2.0
// Responders: the answers a host owes the agent's requests, given from any thread,
// exactly once (a responder freed unanswered answers with the safe default).
#include "capi/barrier.hpp"
#include "capi/json_text.hpp"
#include "protocol/v1/methods.hpp"
#include "support/utf8.hpp"

namespace acp::capi {

namespace {

int responder_answer(acp_responder* r, int kind_a, int kind_b, std::function<void(Core::Answer&)> answer) {
    if (r == nullptr) return fail(ACP_EINVAL, "responder is NULL");
    if (r->kind != kind_a && r->kind != kind_b) return fail(ACP_ESTATE, "this answer does not fit the request");
    if (r->answered.exchange(true)) return fail(ACP_ESTATE, "the request was already answered");
    auto core = r->core;
    const unsigned long id = r->id;
    const int posted = core->run([core, id, answer = std::move(answer)] {
        auto it = core->answers.find(id);
        if (it == core->answers.end()) return;
        answer(it->second);
        core->answers.erase(it);
    });
    // Not sent (the client is closed): nothing was answered through this handle.
    if (posted != ACP_OK) r->answered = false;
    return posted;
}

// Decodes the host's answer to a v1 client method as that method's response type, so an
// answer that does not fit is refused here (ACP_EINVAL) instead of reaching the agent.
int client_method_answer(const std::string& method, const char* json,
                         std::function<void(ClientMethodResponder&)>& send) {
    if (json == nullptr) return fail(ACP_EINVAL, "result_json is NULL");
    rapidjson::Document document;
    document.Parse(json);
    if (document.HasParseError()) return fail(ACP_EINVAL, "result_json is not valid JSON");
    auto decoded_as = [&](auto response) -> int {
        if (Status s = v1::codec::decode(document, response); !s) {
            return fail(ACP_EINVAL, "result_json is no " + method + " response: " + s.message());
        }
        send = [response](ClientMethodResponder& r) { r.respond(response); };
        return ACP_OK;
    };
    namespace m = v1::method;
    if (method == m::fs_read_text_file) return decoded_as(v1::ReadTextFileResponse{});
    if (method == m::fs_write_text_file) return decoded_as(v1::WriteTextFileResponse{});
    if (method == m::terminal_create) return decoded_as(v1::CreateTerminalResponse{});
    if (method == m::terminal_output) return decoded_as(v1::TerminalOutputResponse{});
    if (method == m::terminal_wait_for_exit) return decoded_as(v1::WaitForTerminalExitResponse{});
    if (method == m::terminal_kill) return decoded_as(v1::KillTerminalResponse{});
    if (method == m::terminal_release) return decoded_as(v1::ReleaseTerminalResponse{});
    return fail(ACP_EINTERNAL, "no response type for " + method);
}

// The host's text for a tool answer: UTF-8, or ACP_EINVAL naming it.
int utf8_text(const char* text, std::string& out, const char* what) {
    if (text == nullptr) return fail(ACP_EINVAL, std::string(what) + " is NULL");
    out = text;
    if (!detail::utf8_valid(out)) {
        return fail(ACP_EINVAL, std::string(what) + " is not valid UTF-8");
    }
    return ACP_OK;
}

// The host's JSON object for a tool answer, compact, validated (encoding included).
int tool_object(const char* json, RawJson& out, const char* what) {
    if (json == nullptr) return fail(ACP_EINVAL, std::string(what) + " is NULL");
    rapidjson::Document document;
    document.Parse<rapidjson::kParseValidateEncodingFlag>(json);
    if (document.HasParseError() || !document.IsObject()) {
        return fail(ACP_EINVAL, std::string(what) + " must be a JSON object in UTF-8");
    }
    out.text = detail::to_json_text(document);
    return ACP_OK;
}

int tool_answer(acp_responder* r, std::function<void(const ToolResponder&)> answer) {
    return responder_answer(r, ACP_EVENT_TOOL_CALL, ACP_EVENT_TOOL_CALL,
                            [answer = std::move(answer)](Core::Answer& a) { answer(*a.tool); });
}

}  // namespace

}  // namespace acp::capi

using namespace acp;
using namespace acp::capi;

extern "C" {

unsigned long acp_responder_id(const acp_responder* responder) { return responder != nullptr ? responder->id : 0; }

int acp_responder_select(acp_responder* responder, const char* option_id) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (option_id == nullptr) return fail(ACP_EINVAL, "option_id is NULL");
        std::string option = option_id;
        return responder_answer(responder, ACP_EVENT_PERMISSION_REQUEST, ACP_EVENT_PERMISSION_REQUEST,
                                [option](Core::Answer& a) { a.permission->select(option); });
    });
}

int acp_responder_cancel(acp_responder* responder) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        return responder_answer(responder, ACP_EVENT_PERMISSION_REQUEST, ACP_EVENT_ELICITATION_REQUEST,
                                [](Core::Answer& a) {
                                    if (a.permission) a.permission->cancel();
                                    if (a.elicitation) a.elicitation->cancel();
                                });
    });
}

int acp_responder_accept(acp_responder* responder, const char* content_json) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        RawJson content{"{}"};
        if (int valid = object_json(content_json, content, "content_json"); valid != ACP_OK) return valid;
        return responder_answer(responder, ACP_EVENT_ELICITATION_REQUEST, ACP_EVENT_ELICITATION_REQUEST,
                                [content](Core::Answer& a) {
                                    // A content the schema refuses: the agent gets "cancel", never a bad answer.
                                    if (!a.elicitation->accept(content)) a.elicitation->cancel();
                                });
    });
}

int acp_responder_decline(acp_responder* responder) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        return responder_answer(responder, ACP_EVENT_ELICITATION_REQUEST, ACP_EVENT_ELICITATION_REQUEST,
                                [](Core::Answer& a) { a.elicitation->decline(); });
    });
}

int acp_responder_respond(acp_responder* responder, const char* result_json) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (responder != nullptr && responder->kind == ACP_EVENT_CLIENT_REQUEST) {
            if (responder->answered) return fail(ACP_ESTATE, "the request was already answered");
            std::function<void(ClientMethodResponder&)> send;
            if (int valid = client_method_answer(responder->method, result_json, send); valid != ACP_OK) return valid;
            return responder_answer(responder, ACP_EVENT_CLIENT_REQUEST, ACP_EVENT_CLIENT_REQUEST,
                                    [send](Core::Answer& a) { send(*a.client_method); });
        }
        RawJson result{"{}"};
        if (int valid = object_json(result_json, result, "result_json"); valid != ACP_OK) return valid;
        // Withdrawn, an extension request was answered -32800 already: this goes nowhere.
        return responder_answer(responder, ACP_EVENT_EXT_REQUEST, ACP_EVENT_EXT_REQUEST, [result](Core::Answer& a) {
            if (!a.ext->answered()) a.ext->respond(result);
        });
    });
}

int acp_responder_fail(acp_responder* responder, int rpc_code, const char* message) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        std::string text = message != nullptr ? message : "";
        return responder_answer(responder, ACP_EVENT_EXT_REQUEST, ACP_EVENT_CLIENT_REQUEST,
                                [rpc_code, text](Core::Answer& a) {
                                    if (a.ext && !a.ext->answered()) a.ext->fail(rpc_code, text);
                                    if (a.client_method) a.client_method->fail(rpc_code, text);
                                });
    });
}

int acp_responder_answered(const acp_responder* responder) {
    return responder != nullptr && responder->answered.load() ? 1 : 0;
}

int acp_responder_withdrawn(const acp_responder* responder) {
    return responder != nullptr && responder->withdrawn->load() ? 1 : 0;
}

int acp_responder_tool_text(acp_responder* responder, const char* text) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        std::string content;
        if (int valid = utf8_text(text, content, "text"); valid != ACP_OK) return valid;
        return tool_answer(responder, [content](const ToolResponder& r) { r.text(content); });
    });
}

int acp_responder_tool_error(acp_responder* responder, const char* message) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        std::string content;
        if (int valid = utf8_text(message, content, "message"); valid != ACP_OK) return valid;
        return tool_answer(responder, [content](const ToolResponder& r) { r.error(content); });
    });
}

int acp_responder_tool_structured(acp_responder* responder, const char* structured_json) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        RawJson value;
        if (int valid = tool_object(structured_json, value, "structured_json"); valid != ACP_OK) return valid;
        if (responder != nullptr && responder->kind == ACP_EVENT_TOOL_CALL && responder->check_structured) {
            if (Status fits = responder->check_structured(value); !fits) return fail(ACP_EINVAL, fits.message());
        }
        return tool_answer(responder, [value](const ToolResponder& r) { (void)r.structured(value); });
    });
}

int acp_responder_tool_result(acp_responder* responder, const char* call_tool_result_json) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        RawJson value;
        if (int valid = tool_object(call_tool_result_json, value, "call_tool_result_json"); valid != ACP_OK) {
            return valid;
        }
        return tool_answer(responder, [value](const ToolResponder& r) { (void)r.result(value); });
    });
}

int acp_responder_tool_progress(acp_responder* responder, double progress, double total, const char* message) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (responder == nullptr) return fail(ACP_EINVAL, "responder is NULL");
        if (responder->kind != ACP_EVENT_TOOL_CALL) return fail(ACP_ESTATE, "this answer does not fit the request");
        if (responder->answered) return fail(ACP_ESTATE, "the request was already answered");
        std::string text;
        if (message != nullptr) {
            if (int valid = utf8_text(message, text, "message"); valid != ACP_OK) return valid;
        }
        auto core = responder->core;
        const unsigned long id = responder->id;
        return core->run([core, id, progress, total, text] {
            auto it = core->answers.find(id);
            if (it != core->answers.end() && it->second.tool) it->second.tool->progress(progress, total, text);
        });
    });
}

void acp_responder_free(acp_responder* responder) {
    guarded_void([&] {
        if (responder == nullptr) return;
        if (!responder->answered) responder->core->drop_responder(responder->id);
        delete responder;
    });
}

}  // extern "C"
