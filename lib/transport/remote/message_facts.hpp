// SPDX-License-Identifier: Apache-2.0
// What the Streamable HTTP transport must know of a JSON-RPC message to route it: its
// kind, method, id and session. The connection above decodes messages properly; this is
// only a look at the envelope.
#pragma once

#include <string>
#include <string_view>

namespace acp::detail {

struct MessageFacts {
    bool is_request = false;       // method and id
    bool is_notification = false;  // method, no id
    bool is_response = false;      // id and no method
    std::string method;
    std::string id_key;          // one key per id value ("n:5", "s:abc", "null"); empty: no id
    std::string id_json;         // the id as JSON text, for an error answer made here
    std::string params_session;  // params.sessionId of a request or notification
    std::string result_session;  // result.sessionId of a response
};

// A message that is not a JSON object gives all-false facts.
MessageFacts inspect_message(std::string_view json);

// Cheap test before inspect_message: a message without the characters "id" anywhere has
// no id to route by and opens no session, so it can be handed on without a parse.
inline bool may_carry_id(std::string_view json) { return json.find("\"id\"") != std::string_view::npos; }

}  // namespace acp::detail
