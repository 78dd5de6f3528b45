// SPDX-License-Identifier: Apache-2.0
// How the C API's asynchronous calls start and complete (internal; api_calls.cpp,
// api_unstable.cpp): submit checks the client, gives the call its id and runs start on the
// loop thread; completion turns a typed answer into the call's RESULT (JSON, wire shape).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "capi/core.hpp"
#include "capi/json_text.hpp"

namespace acp::capi {

// A call about a session names it, and so does its result.
int submit(unsigned long* out_request, acp_client* client, const char* method, std::optional<std::string> session_id,
           acp_result_cb fn, void* userdata, std::function<void(Core&, const std::shared_ptr<Call>&)> start);
int submit(unsigned long* out_request, acp_client* client, const char* method, acp_result_cb fn, void* userdata,
           std::function<void(Core&, const std::shared_ptr<Call>&)> start);

// Encode: the codec that writes Response (v2's by default; the unstable one for its types).
template <class Response, class Encode>
Callback<Response> completion(std::shared_ptr<Call> call, Encode encode) {
    return [call, encode](Result<Response> result) {
        if (result) {
            call->succeed(encode(*result));
        } else {
            call->finish(result.status());
        }
    };
}

template <class Response>
Callback<Response> completion(std::shared_ptr<Call> call) {
    return completion<Response>(std::move(call), [](const Response& r) { return encode_json(r); });
}

}  // namespace acp::capi
