// SPDX-License-Identifier: Apache-2.0
// The per-carrier secrets of the HTTP and bridge carriers (internal; issue 26).
//
// Each carrier makes a fresh token from the kernel's random source and hands it to the
// agent in the MCP server entry only (a header, an environment variable). Whoever
// presents it is the agent: the token is compared in constant time and never logged.
//
//   auto token = random_token();            // 64 hex digits
//   if (!secret_equals(presented, *token)) refuse();
#pragma once

#include <string>
#include <string_view>

#include "acp/status.hpp"

namespace acp::detail::tools {

// 32 random bytes (platform/random_bytes.hpp) as 64 lowercase hex digits.
Result<std::string> random_token();

// Compares without an early exit, so the time taken tells nothing of where a guess went
// wrong (the length of the expected secret is public: always 64).
bool secret_equals(std::string_view presented, std::string_view expected);

}  // namespace acp::detail::tools
