// SPDX-License-Identifier: Apache-2.0
// Agent bugs the client tolerates instead of dropping the message (internal), each as the
// guide advises (AGENT-MUST list, Appendix B; docs/untrusted-agent.md). Each function
// returns the JSON it was given when it is fine, or a repaired copy kept in `scratch`.
//
//   rapidjson::Document scratch;
//   codec::decode(with_agent_info(*reply.result, scratch), answer);
#pragma once

#include <rapidjson/document.h>

#include "acp/v2/types.hpp"
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

// CLIENT-GUIDE 3: a per-entity `capabilities` value that is there but malformed counts as
// "no controls". The decoder leaves a malformed value absent (= unchanged, which would keep
// an earlier cancel); these make it null (= cleared). `json` is the entity's object as
// received: a tool_call_update or terminal_update, or a permission subject's toolCall.
void malformed_capabilities_clear(const JsonValue& json, v2::ToolCallUpdate& update);
void malformed_capabilities_clear(const JsonValue& json, v2::TerminalUpdate& update);
// The same for the tool call or terminal a session/update's params carry.
void malformed_capabilities_clear(const JsonValue& params, v2::SessionUpdate& update);

}  // namespace acp::detail
