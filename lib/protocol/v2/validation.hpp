// SPDX-License-Identifier: Apache-2.0
// Client-side checks before a request goes out (CLIENT-GUIDE §3, §4.1, §9.1).
//
// A request that breaks a rule is refused with Errc::invalid_argument and a message that
// names the rule and the offending value ("CLIENT-MUST-38: cwd must be an absolute path:
// 'src'"); nothing is written to the wire. The agent's capabilities decide what may be
// sent: absent, null and malformed capabilities all mean "not supported" (CLIENT-MUST-22).
#pragma once

#include <string_view>
#include <vector>

#include "acp/status.hpp"
#include "acp/v2/types.hpp"

namespace acp::detail::v2 {

// Absolute in the agent machine's native syntax: /p, C:\p or C:/p, \\server\share.
bool is_absolute_path(std::string_view path);

Status check_session_capability(const acp::v2::InitializeResponse& agent, std::string_view method);
Status check_new_session(const acp::v2::NewSessionRequest& request, const acp::v2::InitializeResponse& agent);
Status check_resume_session(const acp::v2::ResumeSessionRequest& request, const acp::v2::InitializeResponse& agent);
Status check_list_sessions(const acp::v2::ListSessionsRequest& request, const acp::v2::InitializeResponse& agent);
Status check_delete_session(const acp::v2::InitializeResponse& agent);
Status check_prompt(const acp::v2::PromptRequest& request, const acp::v2::InitializeResponse& agent);
Status check_login(std::string_view method_id, const acp::v2::InitializeResponse& agent);
Status check_logout(const acp::v2::InitializeResponse& agent);
// options: the session's current config options as last reported by the agent, nullptr
// when it reported none (then nothing can be set).
Status check_set_config_option(const acp::v2::SetSessionConfigOptionRequest& request,
                               const std::vector<acp::v2::SessionConfigOption>* options);
Status check_extension_method(std::string_view method);

}  // namespace acp::detail::v2
