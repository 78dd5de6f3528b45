// SPDX-License-Identifier: Apache-2.0
// The stdio bridge carrier (tools/bridge_carrier.hpp): the official MCP TypeScript SDK's
// client spawning the bridge (tests/peers/ts-agent/mcp-client.mjs) against a small test
// server (support/mcp_test_endpoint.hpp), and hostile callers: no or wrong tokens,
// oversized messages, a thousand bridges, a bridge that never closes. Whatever happens,
// nothing is left listening or running once a carrier is gone.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "support/logger.hpp"
#include "support/loop_child.hpp"
#include "support/mcp_test_endpoint.hpp"
#include "support/test_loop.hpp"
#include "tools/bridge_carrier.hpp"
#include "tools/carrier_support.hpp"

using acp::detail::Logger;
using acp::detail::tools::BridgeCarrier;
using acp::test::check_conversation;
using acp::test::closed_by_peer;
using acp::test::LogRecorder;
using acp::test::LoopChild;
using acp::test::McpTestEndpoint;
using acp::test::node_command;
using acp::test::off_loop;
using acp::test::send_all;
using acp::test::TestLoop;
using acp::test::tools_call;

namespace {

bool path_exists(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

// Connects to the bridge socket as a bridge would: 0 when refused.
int connect_unix(const std::string& path) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

std::vector<std::string> bridge_command(const BridgeCarrier& bridge) {
    std::vector<std::string> args = {bridge.command()};
    for (const auto& arg : bridge.args()) args.push_back(arg);
    return args;
}

std::vector<std::string> bridge_env(const BridgeCarrier& bridge, const std::string& token_override = {}) {
    std::vector<std::string> env = {"PATH=/usr/bin:/bin"};
    for (const auto& [name, value] : bridge.env())
        env.push_back(name + "=" + (token_override.empty() ? value : token_override));
    return env;
}

}  // namespace

TEST_CASE("the MCP SDK client spawns the bridge and calls tools through it, answered at once or later") {
    for (bool deferred : {false, true}) {
        CAPTURE(deferred);
        TestLoop loop;
        LogRecorder logs;
        McpTestEndpoint endpoint(loop.get(), deferred);
        auto bridge = BridgeCarrier::start(loop.get(), endpoint, logs.logger());
        REQUIRE_MESSAGE(bridge.ok(), bridge.status().to_string());
        REQUIRE((*bridge)->command()[0] == '/');
        std::vector<std::string> flags = {"--stdio=" + (*bridge)->command()};
        for (const auto& arg : (*bridge)->args()) flags.push_back("--arg=" + arg);
        for (const auto& [name, value] : (*bridge)->env()) {
            std::string flag = "--env=" + name;
            flag += '=';
            flag += value;
            flags.push_back(std::move(flag));
        }
        LoopChild client(loop.get(), node_command(flags));
        REQUIRE(loop.run_until([&] { return client.exited(); }, std::chrono::milliseconds(60000)));
        check_conversation(client, false);
        // The SDK closed the bridge's stdin; the bridge exited, and the endpoint heard it.
        REQUIRE(loop.run_until([&] { return endpoint.closed_peers == 1; }));
        CHECK(logs.lines.empty());
    }
}

TEST_CASE("a bridge with a wrong or no token is refused and exits, logged once, the token never") {
    TestLoop loop;
    LogRecorder logs;
    McpTestEndpoint endpoint(loop.get());
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, logs.logger());
    REQUIRE(bridge.ok());
    std::string token = (*bridge)->env().front().second;
    std::string wrong = token;
    wrong[0] = wrong[0] == '0' ? '1' : '0';
    for (const std::string& presented : {wrong, wrong, std::string("short")}) {
        LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge, presented));
        child.write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                          "\n");
        // The host closes the socket: the bridge exits though its stdin stays open.
        REQUIRE(loop.run_until([&] { return child.exited(); }));
        CHECK(child.exit_status() == 0);
    }
    CHECK(endpoint.messages == 0);
    CHECK(logs.count("wrong token") == 1);
    CHECK(logs.lines.size() == 1);
    CHECK(!logs.mentions(token));
    CHECK(!logs.mentions(wrong));
    // Without a token in its environment the bridge does not even try.
    LoopChild bare(loop.get(), bridge_command(**bridge), {"PATH=/usr/bin:/bin"});
    REQUIRE(loop.run_until([&] { return bare.exited(); }));
    CHECK(bare.exit_status() == 2);
    // A connection that never sends its token line is closed at the cap, not buffered.
    const std::string socket_path = (*bridge)->args().front();
    bool closed = off_loop(loop, [&] {
        int fd = connect_unix(socket_path);
        std::string noise(4096, 'a');
        send_all(fd, noise.data(), noise.size());
        bool result = closed_by_peer(fd);
        ::close(fd);
        return result;
    });
    CHECK(closed);
    CHECK(endpoint.messages == 0);
}

TEST_CASE("a bridge that sends an oversized line is closed and the endpoint never sees it") {
    TestLoop loop;
    LogRecorder logs;
    McpTestEndpoint endpoint(loop.get());
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, logs.logger());
    REQUIRE(bridge.ok());
    const std::string socket_path = (*bridge)->args().front();
    const std::string token = (*bridge)->env().front().second;
    bool closed = off_loop(loop, [&] {
        int fd = connect_unix(socket_path);
        std::string line = token + "\n" + R"({"jsonrpc":"2.0","id":1,"method":"ping"})" + "\n";
        send_all(fd, line.data(), line.size());
        std::string huge(std::size_t{33} * 1024 * 1024, 'x');
        send_all(fd, huge.data(), huge.size());
        send_all(fd, "\n", 1);
        bool result = closed_by_peer(fd);
        ::close(fd);
        return result;
    });
    CHECK(closed);
    CHECK(endpoint.messages == 1);  // the ping before it
    REQUIRE(loop.run_until([&] { return endpoint.closed_peers == 1; }));
    CHECK(logs.count("closed a bridge that sent a message of") == 1);
}

TEST_CASE("an agent spawning the bridge a thousand times: at most 8 held, every process ends") {
    TestLoop loop;
    LogRecorder logs;
    McpTestEndpoint endpoint(loop.get());
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, logs.logger());
    REQUIRE(bridge.ok());
    int exited = 0;
    for (int wave = 0; wave < 10; ++wave) {
        std::vector<std::unique_ptr<LoopChild>> children;
        for (int i = 0; i < 100; ++i) {
            children.push_back(std::make_unique<LoopChild>(loop.get(), bridge_command(**bridge), bridge_env(**bridge)));
            children.back()->write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                                         "\n");
        }
        // Refused ones exit by themselves; the accepted ones answer their ping.
        auto settled = [&] {
            std::size_t done = 0;
            for (auto& child : children)
                done += child->exited() || child->out().find("\"result\"") != std::string::npos;
            return done == children.size();
        };
        REQUIRE(loop.run_until(settled));
        CHECK(endpoint.open_peers.size() <= 8);
        for (auto& child : children) child->close_stdin();
        REQUIRE(loop.run_until([&] {
            for (auto& child : children) {
                if (!child->exited()) return false;
            }
            return true;
        }));
        for (auto& child : children) exited += child->exited() ? 1 : 0;
        REQUIRE(loop.run_until([&] { return endpoint.open_peers.empty(); }));
    }
    CHECK(exited == 1000);
    CHECK(endpoint.max_open_peers <= 8);
    CHECK(endpoint.max_open_peers >= 1);
    CHECK(logs.count("are connected already") == 1);
}

TEST_CASE("closing the bridge carrier ends a bridge the agent never closes, and removes its directory") {
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, Logger());
    REQUIRE(bridge.ok());
    const std::string socket_path = (*bridge)->args().front();
    const std::string directory = socket_path.substr(0, socket_path.rfind('/'));
    struct stat info {};
    REQUIRE(::stat(directory.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0700);
    LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge));
    child.write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":)"
                      R"({"text":"x"},"_meta":{"progressToken":"p"}}})"
                      "\n");
    REQUIRE(loop.run_until([&] { return child.out().find("\"result\"") != std::string::npos; }));
    // Relayed as sent: the progress notification, then the answer, one line each.
    CHECK(child.out() ==
          R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2}})"
          "\n"
          R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}})"
          "\n");
    bridge->reset();
    CHECK(endpoint.closed_peers == 1);
    REQUIRE(loop.run_until([&] { return child.exited(); }));
    CHECK(child.exit_status() == 0);
    CHECK(!path_exists(socket_path));
    CHECK(!path_exists(directory));
}

TEST_CASE("the endpoint may close the bridge carrier from inside a call") {
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, Logger());
    REQUIRE(bridge.ok());
    endpoint.on_close = [&] { bridge->reset(); };
    LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge));
    child.write_stdin(tools_call(1, "close") + "\n" + tools_call(2, "echo") + "\n");
    REQUIRE(loop.run_until([&] { return child.exited(); }));
    CHECK(endpoint.messages == 1);
    CHECK(endpoint.closed_peers == 1);
}

TEST_CASE("ACP_MCP_BRIDGE names the bridge program instead of the embedded copy") {
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    ::setenv("ACP_MCP_BRIDGE", ACP_MCP_BRIDGE_PROGRAM, 1);
    auto bridge = BridgeCarrier::start(loop.get(), endpoint, Logger());
    ::setenv("ACP_MCP_BRIDGE", "relative/path", 1);
    auto refused = BridgeCarrier::start(loop.get(), endpoint, Logger());
    ::unsetenv("ACP_MCP_BRIDGE");
    REQUIRE(bridge.ok());
    CHECK((*bridge)->command() == ACP_MCP_BRIDGE_PROGRAM);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().message().find("ACP_MCP_BRIDGE") != std::string::npos);
    LoopChild child(loop.get(), bridge_command(**bridge), bridge_env(**bridge));
    child.write_stdin(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
                      "\n");
    REQUIRE(loop.run_until([&] { return child.out().find("\"result\"") != std::string::npos; }));
    child.close_stdin();
    REQUIRE(loop.run_until([&] { return child.exited(); }));
}
