// SPDX-License-Identifier: Apache-2.0
// The stdio tool bridge on Windows (tools/bridge_carrier.hpp, lib/tools/bridge/
// mcp_bridge_windows.c): the test acts as the agent, spawning acp-mcp-bridge.exe with the
// carrier's command, args and env, and talks MCP's JSON-RPC lines through it to a small
// endpoint; a bridge with a wrong token is refused and exits, and one whose agent never
// closes it ends with the carrier.
//
// Wine is not Windows: pipe-name collisions are not enforced and some error codes differ,
// so these tests check what the agent and the endpoint see, never how a refusal failed.
// libuv's header first: it brings winsock2.h, which must come before windows.h.
#include <uv.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/logger.hpp"
#include "support/loop_child.hpp"
#include "support/mcp_test_endpoint.hpp"
#include "support/test_loop.hpp"
#include "tools/bridge_carrier.hpp"

using acp::detail::Logger;
using acp::detail::tools::BridgeCarrier;
using acp::test::LoopChild;
using acp::test::McpTestEndpoint;
using acp::test::TestLoop;

namespace {

std::vector<std::string> bridge_command(const BridgeCarrier& bridge) {
    std::vector<std::string> args = {bridge.command()};
    for (const auto& arg : bridge.args()) args.push_back(arg);
    return args;
}

std::vector<std::string> bridge_env(const BridgeCarrier& bridge, const std::string& token_override = {}) {
    std::vector<std::string> env;
    for (const auto& [name, value] : bridge.env())
        env.push_back(name + "=" + (token_override.empty() ? value : token_override));
    return env;
}

}  // namespace

TEST_CASE("bridge: an agent's tools/call goes through acp-mcp-bridge.exe and its answer comes back") {
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    std::vector<std::string> logged;
    auto bridge = BridgeCarrier::start(
        loop.get(), endpoint, Logger([&](const acp::LogRecord& record) { logged.emplace_back(record.message); }));
    REQUIRE_MESSAGE(bridge.ok(), bridge.status().to_string());
    CHECK((*bridge)->command().find("acp-mcp-bridge.exe") != std::string::npos);
    CHECK((*bridge)->args().front().rfind("\\\\.\\pipe\\acp-mcp-", 0) == 0);
    // Another carrier starting (it removes closed carriers' leftovers) leaves this live
    // one's program alone: the bridge below runs from it.
    McpTestEndpoint other_endpoint(loop.get());
    auto other = BridgeCarrier::start(loop.get(), other_endpoint, Logger());
    REQUIRE(other.ok());
    CHECK((*other)->command() != (*bridge)->command());
    LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge));
    child.write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":)"
                      R"({"text":"caf\u00e9"},"_meta":{"progressToken":"p"}}})"
                      "\n");
    REQUIRE_MESSAGE(loop.run_until([&] { return child.out().find("\"result\"") != std::string::npos; }),
                    "stderr: " << child.err());
    // Relayed as sent: the progress notification, then the answer, one line each.
    CHECK(child.out() ==
          R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2}})"
          "\n"
          R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"caf)"
          "\xc3\xa9"
          R"("}]}})"
          "\n");
    // The agent closes the bridge's stdin: the bridge exits, and the endpoint hears it.
    child.close_stdin();
    REQUIRE(loop.run_until([&] { return child.exited(); }));
    CHECK(child.exit_status() == 0);
    REQUIRE(loop.run_until([&] { return endpoint.closed_peers == 1; }));
    CHECK(endpoint.messages == 1);
    CHECK(logged.empty());
}

TEST_CASE("bridge: a wrong token is refused, the bridge exits, the endpoint sees nothing") {
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    std::vector<std::string> logged;
    auto bridge = BridgeCarrier::start(
        loop.get(), endpoint, Logger([&](const acp::LogRecord& record) { logged.emplace_back(record.message); }));
    REQUIRE(bridge.ok());
    std::string token = (*bridge)->env().front().second;
    std::string wrong = token;
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge, wrong));
    child.write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                      "\n");
    // The host closes the pipe: the bridge exits though its stdin stays open.
    REQUIRE(loop.run_until([&] { return child.exited(); }));
    CHECK(child.out().empty());
    CHECK(endpoint.messages == 0);
    REQUIRE(logged.size() == 1);
    CHECK(logged.front().find("wrong token") != std::string::npos);
    CHECK(logged.front().find(token) == std::string::npos);
    // Without a token in its environment the bridge does not even try.
    LoopChild bare(loop.get(), bridge_command(**bridge), {"PATH=C:\\windows"});
    REQUIRE(loop.run_until([&] { return bare.exited(); }));
    CHECK(bare.exit_status() == 2);
}

TEST_CASE("bridge: closing the carrier ends a bridge the agent never closes") {
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, Logger());
    REQUIRE(bridge.ok());
    LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge));
    child.write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                      "\n");
    REQUIRE(loop.run_until([&] { return child.out().find("\"result\"") != std::string::npos; }));
    bridge->reset();
    CHECK(endpoint.closed_peers == 1);
    REQUIRE(loop.run_until([&] { return child.exited(); }));
    CHECK(child.exit_status() == 0);
}
