// SPDX-License-Identifier: Apache-2.0
// MCP Streamable HTTP for the demo agent: every message is a POST to the client's http
// entry (its url, with its headers), answered with JSON or an event stream whose events
// are messages; the server's Mcp-Session-Id goes with every later request, the agreed
// revision in MCP-Protocol-Version. On libacp's libcurl multi interface on the agent's
// loop (libcurl is loaded on first use, as libacp's remote transports do).
//
// Destroying the client drops what is in flight and ends the MCP session (DELETE).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mcp_client.hpp"
#include "transport/remote/curl_multi.hpp"

namespace demo {

class HttpMcpClient final : public McpClient {
public:
    HttpMcpClient(std::shared_ptr<acp::detail::CurlMulti> multi, std::string name, std::string url,
                  std::vector<std::pair<std::string, std::string>> headers);
    ~HttpMcpClient() override;

private:
    struct Post;  // one POST and its response
    void send(uint64_t id, const std::string& message) override;
    void send_initialized(const std::string& message, std::function<void()> sent) override;
    void abandon(uint64_t id) override;
    acp::detail::Exchange* post(uint64_t id, const std::string& message, std::function<void()> done);
    std::unique_ptr<acp::detail::Exchange> new_exchange();
    void on_header_line(std::string_view line);
    void on_done(Post& post, acp::detail::Exchange& exchange, CURLcode result);

    std::shared_ptr<acp::detail::CurlMulti> multi_;
    std::string url_;
    std::vector<std::pair<std::string, std::string>> headers_;
    std::string session_id_;                                // Mcp-Session-Id, from the initialize answer
    std::map<acp::detail::Exchange*, uint64_t> in_flight_;  // and the id of its request (0: none)
};

}  // namespace demo
