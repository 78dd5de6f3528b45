// SPDX-License-Identifier: Apache-2.0
// The HTTP carrier of a build without libmicrohttpd (-DACP_WITH_HTTP_TOOLS=OFF): start
// says so, and the agent gets the host's tools over MCP over ACP or the stdio bridge.
#include "tools/http_carrier.hpp"

namespace acp::detail::tools {

struct HttpCarrier::Impl {
    std::string url;
    std::string token;
};

Result<std::unique_ptr<HttpCarrier>> HttpCarrier::start(uv_loop_t*, McpEndpoint&, Logger, HttpPolling) {
    return Status(Errc::unsupported, "tools over HTTP are not built into this libacp (ACP_WITH_HTTP_TOOLS=OFF)");
}

HttpCarrier::HttpCarrier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpCarrier::~HttpCarrier() = default;

const std::string& HttpCarrier::url() const { return impl_->url; }
const std::string& HttpCarrier::bearer_token() const { return impl_->token; }

}  // namespace acp::detail::tools
