// SPDX-License-Identifier: Apache-2.0
// The TypeScript-SDK peer agent served over the network (tests/peers/ts-agent/server.mjs,
// on the SDK's own server side): one process on loopback, both transports on one port.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/server_process.hpp"

namespace acp::test {

class TsServer {
public:
    explicit TsServer(std::vector<std::string> flags = {}) : process_(command(std::move(flags))) {
        INFO("server.mjs said: " << process_.first_line());
        http_url = process_.url("http");
        ws_url = process_.url("ws");
        REQUIRE(!http_url.empty());
        REQUIRE(!ws_url.empty());
    }

    // Ends the server with a signal (SIGKILL: a crash mid-turn) and reaps it.
    void stop(int signal) { process_.stop(signal); }

    // The port the server listens on (from its URL).
    int port() const { return std::atoi(http_url.c_str() + http_url.rfind(':') + 1); }

    std::string http_url;
    std::string ws_url;

private:
    static std::vector<std::string> command(std::vector<std::string> flags) {
        std::vector<std::string> args = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/server.mjs", "--port=0"};
        for (auto& flag : flags) args.push_back(std::move(flag));
        return args;
    }

    ServerProcess process_;
};

}  // namespace acp::test
