// SPDX-License-Identifier: Apache-2.0
// Paths, commands and words: small string helpers of acp-chat.
#pragma once

#include <acp/v2/types.hpp>

#include <string>
#include <vector>

namespace chat {

// The directory of the running executable ("" when unknown).
std::string self_dir();
// path made absolute against base.
std::string absolute(const std::string& base, const std::string& path);
// A command as a shell would run it: a bare name is looked up on PATH (an MCP server's
// command must be absolute, CLIENT-MUST-38), anything with a slash is relative to base.
std::string resolve_command(const std::string& base, const std::string& command);
// text split at white space.
std::vector<std::string> split_words(const std::string& text);
// text as one POSIX shell word: in single quotes (a quote inside as '\'').
std::string shell_quote(const std::string& text);
// The command line a user runs in a terminal for a terminal auth method: the agent's own
// command with the method's args, after its env assignments, every part quoted. Empty, with
// the reason in why, when an env name is not [A-Za-z_][A-Za-z0-9_]* or a part holds a
// control character (the screen would not show what runs).
std::string terminal_login_line(const std::vector<std::string>& agent, const acp::v2::AuthMethodTerminal& method,
                                std::string& why);
// Content blocks as text: text blocks as they are, others as [uri] or [type].
std::string text_of(const std::vector<acp::v2::ContentBlock>& blocks);

}  // namespace chat
