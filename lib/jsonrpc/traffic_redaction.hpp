// SPDX-License-Identifier: Apache-2.0
// Hides secrets in the copy of a message that a traffic observer sees (never in what goes
// on the wire), in both directions.
//
// ACP clients pass secrets to agents in MCP server configs, and either side may put them
// in `_meta`. A debugging panel or a log file must not show them, so these become
// "[redacted]" (the rules, with examples, are in docs/untrusted-agent.md, "Secrets stay
// out of logs"):
//   - in every object of an "mcpServers" array: each "value" of "env" and "headers";
//     in "args", the argument after a flag whose name looks secret ("--api-key", "--token",
//     "--password", "--secret", "--auth...") and the value of "--flag=VALUE" and
//     "NAME=VALUE" forms with such a name; in "url", the userinfo, every query value and
//     the fragment;
//   - in every "_meta" object, at any depth: the value of each member whose name looks
//     secret.
// A name looks secret when, compared case-insensitively, it contains "token", "key",
// "secret", "passw", "auth", "credential" or "cookie" (over-redaction is the safe error).
#pragma once

#include <string>
#include <string_view>

namespace acp::detail {

inline constexpr std::string_view kRedactedValue = "[redacted]";

// Whether a flag, environment variable or `_meta` member with this name holds a secret.
bool looks_secret_name(std::string_view name);
// A URL with its userinfo, query values and fragment redacted; unchanged without them.
std::string redact_url(std::string_view url);
// Cheap test that decides whether redact_secrets() needs to run at all.
bool contains_secrets(std::string_view line);
// The line with the secrets above replaced; the line itself when it is not valid JSON.
std::string redact_secrets(std::string_view line);
// The first bytes of a line that cannot be parsed (oversized or malformed), for a log
// message: at most max_bytes, or a placeholder when they may hold secrets, since they
// cannot be walked. Control characters and bytes that are not UTF-8 become \xNN.
std::string loggable_head(std::string_view head, std::size_t max_bytes);

}  // namespace acp::detail
