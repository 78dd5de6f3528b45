// SPDX-License-Identifier: Apache-2.0
// The ACP v1 adapter (internal): lowers the Client's v2 requests to v1 and lifts a v1
// agent's answers and session/update traffic into the v2 model, so the session store and
// every observer see the same thing for both versions. Rules: docs/v1.md and
// CLIENT-GUIDE §10.
//
//   detail::V1Lifter lifter;
//   std::vector<v2::UpdateSessionNotification> lifted;
//   if (lifter.lift_update(params, lifted)) for (auto& n : lifted) deliver(n);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "acp/status.hpp"
#include "acp/v1/types.hpp"
#include "acp/v2/types.hpp"
#include "jsonrpc/json.hpp"

namespace acp::detail {

// The config option a v1 session's modes become; setting it sends session/set_mode.
inline constexpr const char* kV1ModeOptionId = "_v1_mode";
// The plan id v1's single, id-less plan gets.
inline constexpr const char* kV1PlanId = "main";

// What the host serves, for the v1 client capabilities.
struct V1ClientFeatures {
    bool read_text_file = false;
    bool write_text_file = false;
    bool terminal = false;
    bool elicitation_form = false;
    bool elicitation_url = false;
    bool auth_terminal = false;
};

v1::InitializeRequest v1_initialize_request(const v2::Implementation& info, const V1ClientFeatures& features);
// The v1 answer as the v2 InitializeResponse the host reads (protocolVersion stays 1).
Status lift_initialize(const v1::InitializeResponse& in, v2::InitializeResponse& out);

// v2 request pieces in v1 shape: stdio servers lose `type` and always carry args and env.
// MCP-over-ACP entries ({type: "acp", name, serverId}; v1's unstable McpServerAcp, which
// the stable v1 types cannot hold) go to acp_entries as JSON, to be written into the
// request with write_with_acp_servers.
Status lower_mcp_servers(const std::optional<std::vector<v2::McpServer>>& in, std::vector<v1::McpServer>& out,
                         std::vector<RawJson>& acp_entries);
// Writes a v1 setup request (its JSON text) with the acp entries appended to mcpServers.
void write_with_acp_servers(JsonWriter& writer, std::string_view request_json, const std::vector<RawJson>& acp_entries);
Status lower_prompt(const std::vector<v2::ContentBlock>& in, std::vector<v1::ContentBlock>& out);

// session/request_permission: the v1 tool call becomes the request's tool_call subject.
Status lift_permission(const JsonValue& params, v2::RequestPermissionRequest& out);

// The stateful part: per session, the synthetic message ids, the modes and the agent's own
// config options (the model's option list is both).
class V1Lifter {
public:
    // One v1 session/update (params already known to decode as v1::SessionNotification,
    // unless its sessionUpdate is none that v1 defines: see is_v1_update_kind).
    Status lift_update(const JsonValue& params, std::vector<v2::UpdateSessionNotification>& out);
    // Whether v1 defines this sessionUpdate. v1's union is closed, so an agent's own
    // kinds cannot be decoded as v1; they go on to the v2 model, which keeps unknown
    // variants verbatim, as it does for a v2 agent.
    static bool is_v1_update_kind(std::string_view kind);

    // The user message a v1 prompt shows as (v1 agents do not echo it), with a synthetic id.
    v2::SessionUpdate user_message(const std::string& session_id, const std::vector<v2::ContentBlock>& prompt);

    // A session answer's modes and configOptions (JSON members of the result, may be null):
    // the session's complete v2 option list, or nullopt when the agent sent neither.
    std::optional<std::vector<v2::SessionConfigOption>> set_lists(const std::string& session_id,
                                                                  const JsonValue& result);
    // After session/set_mode succeeded.
    std::optional<std::vector<v2::SessionConfigOption>> set_mode(const std::string& session_id,
                                                                 const std::string& mode_id);
    bool has_mode_option(const std::string& session_id) const;

    // Where a session's synthetic ids stand.
    struct IdState {
        unsigned next_message = 0;
        std::string last_chunk_kind;
        std::string current_message;
    };
    // A replay (session/load) starts the session's synthetic ids again, so a replay of
    // the same history produces the same ids as the live run did. Returns where they
    // stood, for restore() when the agent refuses the load.
    IdState restart(const std::string& session_id);
    void restore(const std::string& session_id, IdState ids);

private:
    struct Session {
        unsigned next_message = 0;
        std::string last_chunk_kind;  // the previous update, when it was a chunk without id
        std::string current_message;
        std::optional<v2::SessionConfigOption> mode;
        std::optional<std::vector<v2::SessionConfigOption>> agent_options;
    };
    std::string next_message_id(Session& session);
    std::optional<std::vector<v2::SessionConfigOption>> options_of(const Session& session) const;
    Status lift_one(const std::string& session_id, Session& session, rapidjson::Document& update,
                    std::vector<v2::UpdateSessionNotification>& out);

    std::map<std::string, Session> sessions_;
};

}  // namespace acp::detail
