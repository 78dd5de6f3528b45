// SPDX-License-Identifier: Apache-2.0
// What the agent offers, in one shape for both protocol versions (internal).
//
// Built once, from the agent's initialize answer: the v2 capabilities, or a v1 agent's
// agentCapabilities (CLIENT-GUIDE §3 and §10). Every check before sending reads this view
// (protocol/request_checks.hpp), so a v1 agent gets exactly the checks a v2 agent gets.
// Absent, null and malformed markers all mean "not offered" (CLIENT-MUST-22).
//
//   detail::AgentFeatures agent = detail::features_of(v2_answer);
//   if (!agent.mcp_http) hide_http_servers();
#pragma once

#include <set>
#include <string>
#include <vector>

#include "acp/v1/types.hpp"
#include "acp/v2/types.hpp"

namespace acp::detail {

// One advertised auth method and how it is run.
struct AuthMethodFeature {
    enum class Flow { login, terminal, other };
    std::string id;
    Flow flow = Flow::other;  // login: auth/login (v1: authenticate); terminal: never sent
};

struct AgentFeatures {
    // The session surface (v2: capabilities.session; a v1 agent always has it).
    bool sessions = false;
    // Prompt blocks beyond text and resource_link (session.prompt.* / promptCapabilities).
    bool prompt_image = false;
    bool prompt_audio = false;
    bool prompt_embedded_context = false;
    // MCP transports: stdio, http, v1's sse, and `_` transports an extension advertises.
    bool mcp_stdio = false;
    bool mcp_http = false;
    bool mcp_sse = false;  // v1 only: v2 has no sse
    // MCP over ACP (unstable session.mcp.acp, v2 only): {type:"acp", name, serverId}
    // entries whose MCP traffic is mcp/message on this connection.
    bool mcp_acp = false;
    // v2: the keys of session.mcp._meta that start with `_` and hold an object; v1 none
    // (its McpServer union is closed, a custom transport cannot be written in v1).
    std::set<std::string> mcp_custom_transports;
    bool additional_directories = false;
    // Session calls beyond new/prompt/cancel.
    bool list = false;
    bool resume = false;  // without replay
    bool replay = false;  // resume with replayFrom {start} (v1: session/load)
    // `_` replay cursors the agent advertises (v2: the keys of session._meta that start with
    // `_` and hold an object; v1 none: session/load replays from the start only).
    std::set<std::string> replay_cursors;
    bool close = false;
    bool delete_ = false;
    bool cancel_entities = false;  // tool_call/cancel and terminal/cancel exist (v2 only)
    std::vector<AuthMethodFeature> auth_methods;
    bool logout = false;
};

AgentFeatures features_of(const v2::InitializeResponse& agent);
// lifted: the same answer lifted into v2 (client/v1_adapter.hpp), for its auth methods.
AgentFeatures features_of(const v1::InitializeResponse& agent, const v2::InitializeResponse& lifted);
// v1's unstable mcpCapabilities.acp (MCP over ACP), true only as the boolean true; not a
// member of the stable v1 types, so read from their extra fields.
bool v1_mcp_acp(const v1::McpCapabilities& mcp);

}  // namespace acp::detail
