// SPDX-License-Identifier: Apache-2.0
// The loopback Streamable HTTP carrier for host-offered MCP servers (internal; issue 26).
//
// An MCP endpoint on 127.0.0.1 at a port the OS picks, served on the client's loop. Every
// request must carry `Authorization: Bearer <token>` (a fresh random token per carrier,
// never logged) and come from loopback with no foreign Origin; anything else is refused.
// Each authenticated MCP message goes to the McpEndpoint; what the endpoint sends its
// McpPeer goes back on the matching response (JSON, or an event stream when progress
// notifications precede the answer).
//
//   auto http = HttpCarrier::start(loop, endpoint, logger);
//   entry: {"type":"http","name":...,"url":http->url(),
//           "headers":[{"name":"Authorization","value":"Bearer "+http->bearer_token()}]}
#pragma once

#include <uv.h>

#include <memory>
#include <string>

#include "acp/status.hpp"
#include "support/logger.hpp"
#include "tools/mcp_carrier.hpp"

namespace acp::detail::tools {

// How the HTTP server's descriptors are watched on the loop (tools/microhttpd_watch.hpp).
enum class HttpPolling {
    best,     // epoll where libmicrohttpd has it (Linux), else each socket
    sockets,  // each socket on its own, as where there is no epoll: tests that path on Linux
};

class HttpCarrier {
public:
    // Listens at once; fails (naming why) when the HTTP server cannot be had here.
    static Result<std::unique_ptr<HttpCarrier>> start(uv_loop_t* loop, McpEndpoint& endpoint, Logger logger,
                                                      HttpPolling polling = HttpPolling::best);
    // Closes the listener and every connection; nothing stays listening. Requests still
    // waiting get 503, and the endpoint hears on_mcp_peer_closed for every open session
    // before this returns (so it must outlive the carrier). May run from inside the
    // endpoint's own on_mcp_message.
    ~HttpCarrier();

    const std::string& url() const;           // "http://127.0.0.1:PORT/mcp"
    const std::string& bearer_token() const;  // secret: for the entry's headers only

private:
    struct Impl;
    explicit HttpCarrier(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace acp::detail::tools
