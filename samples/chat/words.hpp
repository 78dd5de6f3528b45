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
// Content blocks as text: text blocks as they are, others as [uri] or [type].
std::string text_of(const std::vector<acp::v2::ContentBlock>& blocks);

}  // namespace chat
