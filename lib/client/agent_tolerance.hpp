// SPDX-License-Identifier: Apache-2.0
// Agent bugs the client tolerates instead of dropping the message (internal), each as the
// guide advises (AGENT-MUST list, Appendix B; docs/untrusted-agent.md). Each function
// returns the JSON it was given when it is fine, or a repaired copy kept in `scratch`.
//
//   rapidjson::Document scratch;
//   codec::decode(with_agent_info(*reply.result, scratch), answer);
#pragma once

#include <rapidjson/document.h>

#include "jsonrpc/json.hpp"

namespace acp::detail {

// AGENT-MUST-02: an initialize answer without `info` (or with an info lacking its name or
// version) gets {"name":"unknown","version":""} where they are missing.
const JsonValue& with_agent_info(const JsonValue& result, rapidjson::Document& scratch);

// Appendix B 9: commands in `availableCommands` (of a session answer, or of the update of
// a session/update's params) without a `type` are commands of type "command", as older
// drafts sent them.
const JsonValue& with_command_types(const JsonValue& holder, rapidjson::Document& scratch);
const JsonValue& with_command_types_in_update(const JsonValue& params, rapidjson::Document& scratch);

}  // namespace acp::detail
