// SPDX-License-Identifier: Apache-2.0
// Hides secrets in the copy of a message that a traffic observer sees.
//
// ACP clients pass secrets to agents in MCP server configs: environment variable values
// of stdio servers and HTTP header values of http servers ("mcpServers": [{"env":
// [{"name", "value"}], "headers": [{"name", "value"}]}]). A debugging panel or a log
// file must not show them, so every such "value" is replaced by "[redacted]".
#pragma once

#include <string>
#include <string_view>

namespace acp::detail {

inline constexpr std::string_view kRedactedValue = "[redacted]";

// Cheap test that decides whether redact_secrets() needs to run at all.
bool contains_secrets(std::string_view line);
// The line with every MCP server env/header value replaced; the line itself when it is
// not valid JSON.
std::string redact_secrets(std::string_view line);

}  // namespace acp::detail
