// SPDX-License-Identifier: Apache-2.0
// The stdio bridge carrier where it is not built (Windows, issue 31): the bridge relays
// over a Unix socket, which wine lacks and which a named-pipe bridge would replace. start
// says so, and the agent gets the host's tools over MCP over ACP.
#include "tools/bridge_carrier.hpp"

namespace acp::detail::tools {

struct BridgeCarrier::Impl {
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
};

Result<std::unique_ptr<BridgeCarrier>> BridgeCarrier::start(uv_loop_t*, McpEndpoint&, Logger) {
    return Status(Errc::unsupported, "tools over the stdio bridge are not available on this platform (POSIX only)");
}

BridgeCarrier::BridgeCarrier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BridgeCarrier::~BridgeCarrier() = default;

const std::string& BridgeCarrier::command() const { return impl_->command; }
const std::vector<std::string>& BridgeCarrier::args() const { return impl_->args; }
const std::vector<std::pair<std::string, std::string>>& BridgeCarrier::env() const { return impl_->env; }

}  // namespace acp::detail::tools
