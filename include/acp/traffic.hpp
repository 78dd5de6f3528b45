// SPDX-License-Identifier: Apache-2.0
// acp/traffic.hpp — watching the raw protocol traffic (for logs and debugging panels).
//
//   client->set_traffic_observer([](acp::Direction d, std::string_view line, auto when) {
//       panel.append(d == acp::Direction::outgoing ? "-> " : "<- ", line);
//   });
#pragma once

#include <chrono>
#include <functional>
#include <string_view>

namespace acp {

enum class Direction { incoming, outgoing };

// Sees every line in and out (without its newline) and when it passed. Secrets (MCP server
// env, headers, secret-looking args and URL parts, secret-looking `_meta` members) are
// redacted in both directions unless the host opts out (docs/untrusted-agent.md).
using TrafficObserver =
    std::function<void(Direction direction, std::string_view line, std::chrono::system_clock::time_point when)>;

}  // namespace acp
