// SPDX-License-Identifier: Apache-2.0
// Paths, commands and words: small string helpers of acp-chat.
#pragma once

#include <acp/v2/types.hpp>

#include <string>
#include <string_view>
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
// The names among the method's env assignments that change what code runs, rather than
// what the program is told: the dynamic loader's (LD_*, DYLD_*), interpreters' startup
// code and search paths (NODE_OPTIONS, PYTHONPATH, PERL5OPT, RUBYOPT, JAVA_TOOL_OPTIONS,
// ...), shells' startup files (BASH_ENV, ENV, ...) and PATH. Shown to the user before
// they run the command, since the command's quoted words alone do not say it.
std::vector<std::string> env_changing_what_runs(const acp::v2::AuthMethodTerminal& method);
// Content blocks as text: text blocks as they are, others as [uri] or [type].
std::string text_of(const std::vector<acp::v2::ContentBlock>& blocks);
// One block of that text: a text block's own text, or "[uri]"/"[type]" built in scratch.
std::string_view block_text(const acp::v2::ContentBlock& block, std::string& scratch);

}  // namespace chat
