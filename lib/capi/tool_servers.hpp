// SPDX-License-Identifier: Apache-2.0
// The host's tool servers through the C API (internal; docs/tools.md).
//
// An acp_tool_server holds definitions only: it belongs to no client and may be offered
// to many. Each setup with tools (acp_client_new_session_with_tools, ...) turns the
// definitions into C++ ToolServers of its own whose handlers deliver every call to that
// client as an ACP_EVENT_TOOL_CALL; the host answers through the event's responder.
#pragma once

#include <cstddef>
#include <memory>

#include "acp/acp.h"
#include "acp/tools.hpp"
#include "capi/core.hpp"

namespace acp::capi {

// The C++ tool servers for one setup of core's client, from count host servers. 0, or
// ACP_EINVAL (acp_error_last set) for a NULL server or two with one name. Any thread.
int setup_tool_servers(ToolServers& out, const std::shared_ptr<Core>& core, acp_tool_server* const* servers,
                       std::size_t count);

}  // namespace acp::capi
