// SPDX-License-Identifier: Apache-2.0
// Picks the transport for a remote agent's URL (WebSocket or Streamable HTTP).
#pragma once

#include <uv.h>

#include <memory>
#include <string>

#include "acp/log.hpp"
#include "acp/status.hpp"
#include "acp/transport_options.hpp"
#include "transport/transport.hpp"

namespace acp::detail {

struct RemoteTransport {
    std::unique_ptr<Transport> transport;
    std::string label;  // "the agent at ws://host:port/path", safe to log
    LogSink log;        // the host's sink, the header values redacted: for everything of this client
};

// Errc::unsupported when built without ACP_WITH_REMOTE or for another scheme.
// max_message_bytes caps one incoming message where the transport must hold it whole.
// The agent's server may echo the headers (a bearer token) back in anything it sends, so
// whatever logs for this client uses the returned `log`, not `host_log`.
Result<RemoteTransport> connect_remote(uv_loop_t* loop, const RemoteOptions& options, std::size_t max_message_bytes,
                                       LogSink host_log);

}  // namespace acp::detail
