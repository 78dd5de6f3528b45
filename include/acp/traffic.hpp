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

// Sees every line in and out (without its newline) and when it passed. Secrets in MCP
// server configs are redacted unless the host opts out.
using TrafficObserver =
    std::function<void(Direction direction, std::string_view line, std::chrono::system_clock::time_point when)>;

}  // namespace acp
