// SPDX-License-Identifier: Apache-2.0
#include "client/tool_carriers.hpp"

#include <utility>

#include "tools/bridge_carrier.hpp"
#include "tools/http_carrier.hpp"

namespace acp::detail {

Result<StartedCarrier> start_carrier(ToolTransport transport, uv_loop_t* loop, tools::McpEndpoint& endpoint,
                                     Logger logger, const std::string& name) {
    StartedCarrier started;
    if (transport == ToolTransport::http) {
        auto http = tools::HttpCarrier::start(loop, endpoint, std::move(logger));
        if (!http) return http.status();
        v2::McpServerHttp entry;
        entry.name = name;
        entry.url = (*http)->url();
        v2::HttpHeader authorization;
        authorization.name = "Authorization";
        authorization.value = "Bearer " + (*http)->bearer_token();
        entry.headers = std::vector<v2::HttpHeader>{std::move(authorization)};
        started.entry = v2::McpServer::make_http(std::move(entry));
        started.carrier = std::shared_ptr<tools::HttpCarrier>(std::move(http.value()));
        return started;
    }
    auto bridge = tools::BridgeCarrier::start(loop, endpoint, std::move(logger));
    if (!bridge) return bridge.status();
    v2::McpServerStdio entry;
    entry.name = name;
    entry.command = (*bridge)->command();
    entry.args = (*bridge)->args();
    std::vector<v2::EnvVariable> env;
    for (const auto& [key, value] : (*bridge)->env()) {
        v2::EnvVariable variable;
        variable.name = key;
        variable.value = value;
        env.push_back(std::move(variable));
    }
    entry.env = std::move(env);
    started.entry = v2::McpServer::make_stdio(std::move(entry));
    started.carrier = std::shared_ptr<tools::BridgeCarrier>(std::move(bridge.value()));
    return started;
}

}  // namespace acp::detail
