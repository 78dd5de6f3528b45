// SPDX-License-Identifier: Apache-2.0
// TODO(issue 26): stands in for client/tool_carriers.cpp until the HTTP and stdio bridge
// carriers (lib/tools/http_carrier.cpp, bridge_carrier.cpp, branch carriers26) are merged.
// Then delete this file and list client/tool_carriers.cpp in CMakeLists.txt in its place.
#include "client/tool_carriers.hpp"

namespace acp::detail {

Result<StartedCarrier> start_carrier(ToolTransport transport, uv_loop_t*, tools::McpEndpoint&, Logger,
                                     const std::string& name) {
    return Status(Errc::unsupported, std::string("tool server '") + name + "': this libacp has no " +
                                         (transport == ToolTransport::http ? "HTTP" : "stdio bridge") +
                                         " carrier for tool servers yet; the agent needs session.mcp.acp");
}

}  // namespace acp::detail
