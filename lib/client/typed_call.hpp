// SPDX-License-Identifier: Apache-2.0
// One typed request to the agent and its decoded answer (internal), for both protocol
// drivers and the negotiation.
//
//   send_typed<v2::NewSessionResponse>(core, "session/new", write_params, &v2::codec::decode,
//       [](Result<v2::NewSessionResponse> answer, const JsonValue* raw) { ... }, core.request_options());
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "client/client_core.hpp"

namespace acp::detail {

// The decoded answer, and the raw result (valid during the call only, nullptr on failure)
// for what a driver lifts from members its types do not have.
template <class Response>
using AnswerHandler = std::function<void(Result<Response> answer, const JsonValue* raw)>;

template <class Response>
using DecodeFn = Status (*)(const JsonValue&, Response&);

// Sends the request; done runs exactly once (unless the Client is gone by then) with the
// agent's error, a connection failure, a protocol_error for an answer that does not
// decode, or the decoded answer.
template <class Response>
int64_t send_typed(ClientCore& core, std::string_view method, const WriteFn& write_params, DecodeFn<Response> decode,
                   AnswerHandler<Response> done, RequestOptions options) {
    core.sent_other_request = true;
    return core.rpc->send_request(
        method, write_params,
        [&core, method_name = std::string(method), decode, done = std::move(done)](const Reply& reply) {
            auto keep_alive = core.keep_alive();
            if (core.orphaned) return;
            if (!reply.status) return done(reply.status, nullptr);
            Response response;
            if (Status decoded = decode(*reply.result, response); !decoded) {
                const std::string why = "the agent's answer to " + method_name + " is invalid: " + decoded.message();
                core.log(LogLevel::error, why);
                return done(Status(Errc::protocol_error, why), nullptr);
            }
            done(std::move(response), reply.result);
        },
        options);
}

// An answer kept as JSON for the caller to decode (the unstable surface): an object.
inline Status decode_json_object(const JsonValue& json, RawJson& out) {
    if (!json.IsObject()) return Status(Errc::protocol_error, "the result is not a JSON object");
    out = RawJson{to_json_text(json)};
    return Status();
}

// CLIENT-MUST-46: closing or deleting a session the agent does not know is success.
inline bool is_unknown_session(const Status& status) {
    return status.code() == Errc::rpc_error && status.rpc_code() == error_code::resource_not_found;
}

}  // namespace acp::detail
