// SPDX-License-Identifier: Apache-2.0
// Serving a host's tool server over loopback HTTP or the stdio bridge (internal; issue 26):
// starts the carrier for one endpoint and makes the mcpServers entry that points the
// agent at it. MCP over ACP needs no carrier of its own (client/tool_offers.cpp).
//
//   auto started = start_carrier(ToolTransport::http, loop, *endpoint, logger, "editor");
//   if (!started) return refuse(started.status());
//   entries.push_back(started->entry);   // keep started->carrier as long as the session
#pragma once

#include <uv.h>

#include <memory>
#include <string>

#include "acp/status.hpp"
#include "acp/v2/types.hpp"
#include "client/request_gate.hpp"
#include "support/logger.hpp"
#include "tools/mcp_carrier.hpp"

namespace acp::detail {

struct StartedCarrier {
    std::shared_ptr<void> carrier;  // stops listening (and ends its bridges) when dropped
    v2::McpServer entry;
};

// transport is http or stdio.
Result<StartedCarrier> start_carrier(ToolTransport transport, uv_loop_t* loop, tools::McpEndpoint& endpoint,
                                     Logger logger, const std::string& name);

}  // namespace acp::detail
