// SPDX-License-Identifier: Apache-2.0
// Client-side checks before a request goes out (CLIENT-GUIDE §3, §4.1, §9.1), for both
// protocol versions: each reads the agent's offer in its version-neutral shape
// (protocol/agent_features.hpp), so a v1 agent gets every check a v2 agent gets.
//
// A request that breaks a rule is refused with Errc::invalid_argument and a message that
// names the rule and the offending value ("CLIENT-MUST-38: cwd must be an absolute path:
// 'src'"); one the agent does not offer with Errc::unsupported. Nothing is written to the
// wire. The client runs them on its one outgoing path (client/request_gate.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acp/json.hpp"
#include "acp/status.hpp"
#include "acp/v2/types.hpp"
#include "protocol/agent_features.hpp"

namespace acp::detail {

// Absolute in the agent machine's native syntax: /p, C:\p or C:/p, \\server\share.
bool is_absolute_path(std::string_view path);

Status check_login(std::string_view method_id, const AgentFeatures& agent);
Status check_logout(const AgentFeatures& agent);
Status check_new_session(const v2::NewSessionRequest& request, const AgentFeatures& agent);
Status check_resume_session(const v2::ResumeSessionRequest& request, const AgentFeatures& agent);
Status check_list_sessions(const v2::ListSessionsRequest& request, const AgentFeatures& agent);
Status check_close_session(const AgentFeatures& agent);
Status check_delete_session(const AgentFeatures& agent);
Status check_prompt(const v2::PromptRequest& request, const AgentFeatures& agent);
Status check_cancel(const AgentFeatures& agent);
// options: the session's current config options as last reported by the agent, nullptr
// when it reported none (then nothing can be set).
Status check_set_config_option(const v2::SetSessionConfigOptionRequest& request, const AgentFeatures& agent,
                               const std::vector<v2::SessionConfigOption>* options);
// tool_call/cancel and terminal/cancel exist at all (the entity's own capability is the
// caller's to check, from the session model: CLIENT-MUST-36).
Status check_entity_cancel(std::string_view method, const AgentFeatures& agent);
Status check_extension_method(std::string_view method);
// Host-supplied params or results: one JSON object (empty counts as {}).
Status check_raw_object(const RawJson& raw, const std::string& what);
// A message as the client would write it (compact JSON): every string valid UTF-8, so
// nothing invalid reaches the wire, and no member twice in one object (a host's extra
// field naming a member the type writes itself would be sent twice). The error names the
// member where it is ("prompt[0].text").
Status check_written_message(std::string_view json);

}  // namespace acp::detail
