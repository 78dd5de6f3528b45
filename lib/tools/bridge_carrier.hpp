// SPDX-License-Identifier: Apache-2.0
// The stdio bridge carrier for host-offered MCP servers (internal; issue 26).
//
// For agents that only run stdio MCP servers: the entry names a small bridge program
// installed with libacp by absolute path. The agent spawns it; it connects back to the
// host over a Unix socket in a private directory (0700) or, on Windows, a named pipe
// (platform/local_rendezvous.hpp), proves itself with a per-carrier
// token passed in its environment (a secret: redacted in logs), and relays MCP messages
// (one JSON-RPC message per line) both ways until either side closes.
//
//   auto bridge = BridgeCarrier::start(loop, endpoint, logger);
//   entry: {"type":"stdio","name":...,"command":bridge->command(),"args":bridge->args(),
//           "env":bridge->env()}
#pragma once

#include <uv.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "acp/status.hpp"
#include "support/logger.hpp"
#include "tools/mcp_carrier.hpp"

namespace acp::detail::tools {

class BridgeCarrier {
public:
    // Makes the private directory, listens at its address; fails (naming why) when the
    // bridge program cannot be written or found, or the address cannot be listened at.
    static Result<std::unique_ptr<BridgeCarrier>> start(uv_loop_t* loop, McpEndpoint& endpoint, Logger logger);
    // Closes the listener and every bridge connection (each bridge then exits), and
    // removes the private directory. The endpoint hears on_mcp_peer_closed for every
    // bridge still connected before this returns (so it must outlive the carrier). May
    // run from inside the endpoint's own on_mcp_message.
    ~BridgeCarrier();

    const std::string& command() const;  // absolute path of the bridge program
    const std::vector<std::string>& args() const;
    // Includes the token: the entry's env only, never a log.
    const std::vector<std::pair<std::string, std::string>>& env() const;

private:
    struct Impl;
    explicit BridgeCarrier(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace acp::detail::tools
