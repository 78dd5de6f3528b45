// SPDX-License-Identifier: Apache-2.0
// The carriers that bring an agent to the tools its host offers (lib/tools/): the loopback
// Streamable HTTP endpoint and the stdio bridge. Driven by the official MCP TypeScript SDK's
// client (tests/peers/ts-agent/mcp-client.mjs) against a small test server
// (support/mcp_test_endpoint.hpp), and by hostile callers: no or wrong tokens, a foreign
// Origin, oversized messages, a thousand bridges, a bridge that never closes. Whatever
// happens, nothing is left listening or running once a carrier is gone.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "support/logger.hpp"
#include "support/loop_child.hpp"
#include "support/mcp_test_endpoint.hpp"
#include "support/test_loop.hpp"
#include "tools/bridge_carrier.hpp"
#include "tools/http_carrier.hpp"

using acp::detail::Logger;
using acp::detail::tools::BridgeCarrier;
using acp::detail::tools::HttpCarrier;
using acp::detail::tools::HttpPolling;
using acp::test::LoopChild;
using acp::test::McpTestEndpoint;
using acp::test::TestLoop;

namespace {

// Every record the carriers log, to check what is logged once and that no secret is.
struct LogRecorder {
    std::vector<std::string> lines;
    Logger logger() {
        return Logger([this](const acp::LogRecord& record) { lines.emplace_back(record.message); });
    }
    int count(const std::string& needle) const {
        int n = 0;
        for (const auto& line : lines) n += line.find(needle) != std::string::npos ? 1 : 0;
        return n;
    }
    bool mentions(const std::string& secret) const { return count(secret) > 0; }
};

// Runs f on another thread while the loop serves it (a blocking client of a server on the
// same loop would deadlock otherwise).
template <class F>
auto off_loop(TestLoop& loop, F f) -> decltype(f()) {
    auto result = std::async(std::launch::async, std::move(f));
    REQUIRE(loop.run_until([&] { return result.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
                           std::chrono::milliseconds(60000)));
    return result.get();
}

// Every HTTP test runs twice: with epoll (Linux's libmicrohttpd has it) and with each
// socket watched on its own, the path of macOS and the BSDs.
HttpPolling each_polling() {
    HttpPolling polling = HttpPolling::best;
    SUBCASE("epoll") { polling = HttpPolling::best; }
    SUBCASE("each socket on its own") { polling = HttpPolling::sockets; }
    return polling;
}

int port_of(const std::string& url) { return std::atoi(url.c_str() + url.rfind(':') + 1); }

int connect_tcp(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        int error = errno;
        ::close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

bool send_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

struct HttpReply {
    int status = 0;  // 0: the connection closed without a status line
    std::string head;
    std::string body;
    std::string header(const std::string& name) const {
        std::string lower_head;
        for (char c : head) lower_head += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string key = "\r\n";
        for (char c : name) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        key += ": ";
        auto at = lower_head.find(key);
        if (at == std::string::npos) return {};
        auto end = head.find("\r\n", at + key.size());
        return head.substr(at + key.size(), end - at - key.size());
    }
};

// One request on its own connection (Connection: close), read to the end.
HttpReply http_request(int port, const std::string& method, const std::vector<std::string>& headers,
                       const std::string& body = {}) {
    HttpReply reply;
    int fd = connect_tcp(port);
    if (fd < 0) return reply;
    std::string request = method + " /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                          "\r\nConnection: close\r\nAccept: application/json, text/event-stream\r\n";
    for (const auto& line : headers) request += line + "\r\n";
    if (method == "POST")
        request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    request += "\r\n" + body;
    send_all(fd, request.data(), request.size());
    std::string all;
    char buffer[65536];
    ssize_t n;
    while ((n = ::recv(fd, buffer, sizeof buffer, 0)) > 0) all.append(buffer, static_cast<std::size_t>(n));
    ::close(fd);
    auto end = all.find("\r\n\r\n");
    if (all.compare(0, 9, "HTTP/1.1 ") != 0 || end == std::string::npos) return reply;
    reply.status = std::atoi(all.c_str() + 9);
    reply.head = all.substr(0, end);
    reply.body = all.substr(end + 4);
    return reply;
}

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
    R"("capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})";

std::string tools_call(int id, const std::string& tool) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
           R"(","arguments":{"text":"x"}}})";
}

std::vector<std::string> node_command(std::vector<std::string> flags) {
    std::vector<std::string> args = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/mcp-client.mjs"};
    for (auto& flag : flags) args.push_back(std::move(flag));
    return args;
}

// What the SDK client reported (mcp-client.mjs prints one JSON line). Over stdio the SDK
// may drop a progress notification that arrives in the same read as its response (it
// handles notifications a microtask late, after the response removed the handler), so
// there the bridge's relaying of progress is checked on its raw output instead.
void check_conversation(const LoopChild& client, bool sdk_sees_progress) {
    INFO("stderr: " << client.err());
    REQUIRE(client.exit_status() == 0);
    rapidjson::Document reply;
    reply.Parse(client.out().c_str());
    REQUIRE_MESSAGE(!reply.HasParseError(), client.out());
    REQUIRE(reply["tools"].Size() == 1);
    CHECK(std::string(reply["tools"][0].GetString()) == "echo");
    CHECK(std::string(reply["plain"][0]["text"].GetString()) == "plain h\xc3\xa9llo");
    CHECK(std::string(reply["withProgress"][0]["text"].GetString()) == "with progress");
    if (sdk_sees_progress) CHECK(reply["progress"].GetInt() == 1);
}

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

// Reads until the peer closes; true when it did within the time.
bool closed_by_peer(int fd) {
    timeval timeout{20, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[4096];
    while (true) {
        ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n == 0) return true;
        if (n < 0) return errno == ECONNRESET;
    }
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

TEST_CASE("the MCP SDK client lists and calls tools over HTTP, answered at once or later") {
    const HttpPolling polling = each_polling();
    for (bool deferred : {false, true}) {
        CAPTURE(deferred);
        TestLoop loop;
        LogRecorder logs;
        McpTestEndpoint endpoint(loop.get(), deferred);
        auto http = HttpCarrier::start(loop.get(), endpoint, logs.logger(), polling);
        REQUIRE_MESSAGE(http.ok(), http.status().to_string());
        CHECK((*http)->url().rfind("http://127.0.0.1:", 0) == 0);
        CHECK((*http)->bearer_token().size() == 64);
        LoopChild client(loop.get(), node_command({"--http=" + (*http)->url(), "--token=" + (*http)->bearer_token()}));
        REQUIRE(loop.run_until([&] { return client.exited(); }, std::chrono::milliseconds(60000)));
        check_conversation(client, true);
        // The SDK ends its session with DELETE: the endpoint heard the peer go.
        CHECK(endpoint.closed_peers == 1);
        CHECK(endpoint.methods.front() == "initialize");
        CHECK(!logs.mentions((*http)->bearer_token()));
    }
}

TEST_CASE("HTTP requests without the token, with a wrong one or from another origin are refused, logged once") {
    const HttpPolling polling = each_polling();
    TestLoop loop;
    LogRecorder logs;
    McpTestEndpoint endpoint(loop.get());
    auto http = HttpCarrier::start(loop.get(), endpoint, logs.logger(), polling);
    REQUIRE(http.ok());
    const int port = port_of((*http)->url());
    const std::string token = (*http)->bearer_token();
    const std::string good = "Authorization: Bearer " + token;
    std::string wrong_token = token;
    wrong_token[10] = wrong_token[10] == 'a' ? 'b' : 'a';
    for (int i = 0; i < 3; ++i) {
        CHECK(off_loop(loop, [&] { return http_request(port, "POST", {}, kInitialize); }).status == 401);
        CHECK(off_loop(loop, [&] {
                  return http_request(port, "POST", {"Authorization: Bearer " + wrong_token}, kInitialize);
              }).status == 401);
        CHECK(off_loop(loop, [&] {
                  return http_request(port, "POST", {"Authorization: Basic " + token}, kInitialize);
              }).status == 401);
        CHECK(off_loop(loop, [&] {
                  return http_request(port, "POST", {good, "Origin: http://evil.example"}, kInitialize);
              }).status == 403);
    }
    CHECK(endpoint.messages == 0);
    CHECK(logs.count("refused a request without the bearer token") == 1);
    CHECK(logs.count("refused a request with a wrong bearer token") == 1);
    CHECK(logs.count("refused a request from a foreign Origin") == 1);
    CHECK(logs.lines.size() == 3);
    CHECK(!logs.mentions(token));
    CHECK(!logs.mentions(wrong_token));
    // A refused caller keeps no connection open, even one that asked to keep it alive.
    CHECK(off_loop(loop, [&] {
        int fd = connect_tcp(port);
        std::string request = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}";
        send_all(fd, request.data(), request.size());
        bool result = closed_by_peer(fd);
        ::close(fd);
        return result;
    }));
    // The token with the server's own origin (a browser on this very page) is let in.
    auto own = off_loop(loop, [&] {
        return http_request(port, "POST", {good, "Origin: http://127.0.0.1:" + std::to_string(port)}, kInitialize);
    });
    CHECK(own.status == 200);
    CHECK(endpoint.messages == 1);
}

TEST_CASE("HTTP: oversized bodies get 413 and reach no endpoint, bad messages 400") {
    const HttpPolling polling = each_polling();
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto http = HttpCarrier::start(loop.get(), endpoint, Logger(), polling);
    REQUIRE(http.ok());
    const int port = port_of((*http)->url());
    const std::string auth = "Authorization: Bearer " + (*http)->bearer_token();
    // Declared too long: refused before a byte of it is read.
    auto declared = off_loop(loop, [&] {
        HttpReply reply;
        int fd = connect_tcp(port);
        std::string head = "POST /mcp HTTP/1.1\r\nHost: x\r\n" + auth + "\r\nContent-Length: 100000000\r\n\r\n";
        send_all(fd, head.data(), head.size());
        char buffer[4096];
        ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        ::close(fd);
        if (n > 9) reply.status = std::atoi(buffer + 9);
        return reply;
    });
    CHECK(declared.status == 413);
    // Chunked, so no length is declared: cut off at the cap, answered once it ends.
    auto chunked = off_loop(loop, [&] {
        HttpReply reply;
        int fd = connect_tcp(port);
        std::string head =
            "POST /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth + "\r\nTransfer-Encoding: chunked\r\n\r\n";
        send_all(fd, head.data(), head.size());
        const std::string chunk(std::size_t{1024} * 1024, ' ');
        char size_line[32];
        std::snprintf(size_line, sizeof size_line, "%zx\r\n", chunk.size());
        for (int i = 0; i < 40; ++i) {
            if (!send_all(fd, size_line, std::strlen(size_line)) || !send_all(fd, chunk.data(), chunk.size()) ||
                !send_all(fd, "\r\n", 2)) {
                break;
            }
        }
        send_all(fd, "0\r\n\r\n", 5);
        char buffer[4096];
        ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        ::close(fd);
        if (n > 9) reply.status = std::atoi(buffer + 9);
        return reply;
    });
    CHECK(chunked.status == 413);
    CHECK(off_loop(loop, [&] { return http_request(port, "POST", {auth}, "not json"); }).status == 400);
    CHECK(off_loop(loop, [&] { return http_request(port, "POST", {auth}, "[" + kInitialize + "]"); }).status == 400);
    CHECK(endpoint.messages == 0);
}

TEST_CASE("HTTP sessions: issued at initialize, required after, ended by DELETE, no standalone stream") {
    const HttpPolling polling = each_polling();
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto http = HttpCarrier::start(loop.get(), endpoint, Logger(), polling);
    REQUIRE(http.ok());
    const int port = port_of((*http)->url());
    const std::string auth = "Authorization: Bearer " + (*http)->bearer_token();
    auto init = off_loop(loop, [&] { return http_request(port, "POST", {auth}, kInitialize); });
    REQUIRE(init.status == 200);
    CHECK(init.header("Content-Type") == "application/json");
    const std::string session = init.header("Mcp-Session-Id");
    REQUIRE(!session.empty());
    const std::string with_session = "Mcp-Session-Id: " + session;
    CHECK(off_loop(loop, [&] { return http_request(port, "POST", {auth}, tools_call(2, "echo")); }).status == 400);
    CHECK(off_loop(loop, [&] {
              return http_request(port, "POST", {auth, "Mcp-Session-Id: nope"}, tools_call(2, "echo"));
          }).status == 404);
    auto notified = off_loop(loop, [&] {
        return http_request(port, "POST", {auth, with_session},
                            R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    });
    CHECK(notified.status == 202);
    auto call = off_loop(loop, [&] { return http_request(port, "POST", {auth, with_session}, tools_call(2, "echo")); });
    CHECK(call.status == 200);
    CHECK(call.body == R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"}]}})");
    CHECK(off_loop(loop, [&] { return http_request(port, "GET", {auth, with_session}); }).status == 405);
    CHECK(endpoint.closed_peers == 0);
    CHECK(off_loop(loop, [&] { return http_request(port, "DELETE", {auth, with_session}); }).status == 200);
    CHECK(endpoint.closed_peers == 1);
    CHECK(off_loop(loop, [&] {
              return http_request(port, "POST", {auth, with_session}, tools_call(3, "echo"));
          }).status == 404);
}

TEST_CASE("HTTP: closing the carrier answers waiting requests, tells the endpoint, leaves nothing listening") {
    const HttpPolling polling = each_polling();
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto http = HttpCarrier::start(loop.get(), endpoint, Logger(), polling);
    REQUIRE(http.ok());
    const int port = port_of((*http)->url());
    const std::string auth = "Authorization: Bearer " + (*http)->bearer_token();
    auto init = off_loop(loop, [&] { return http_request(port, "POST", {auth}, kInitialize); });
    const std::string with_session = "Mcp-Session-Id: " + init.header("Mcp-Session-Id");
    // A call the endpoint never answers holds its request open until the carrier closes.
    auto waiting = std::async(std::launch::async, [&] {
        return http_request(port, "POST", {auth, with_session}, tools_call(5, "hang"));
    });
    REQUIRE(loop.run_until([&] { return endpoint.messages == 2; }));
    loop.run_for(std::chrono::milliseconds(50));
    CHECK(waiting.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);
    http->reset();
    CHECK(endpoint.closed_peers == 1);
    REQUIRE(loop.run_until([&] { return waiting.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }));
    CHECK(waiting.get().status != 200);
    CHECK(connect_tcp(port) == -1);
    CHECK(errno == ECONNREFUSED);
}

TEST_CASE("HTTP: the endpoint may close the carrier from inside a call") {
    const HttpPolling polling = each_polling();
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto http = HttpCarrier::start(loop.get(), endpoint, Logger(), polling);
    REQUIRE(http.ok());
    endpoint.on_close = [&] { http->reset(); };
    const int port = port_of((*http)->url());
    const std::string auth = "Authorization: Bearer " + (*http)->bearer_token();
    auto init = off_loop(loop, [&] { return http_request(port, "POST", {auth}, kInitialize); });
    const std::string with_session = "Mcp-Session-Id: " + init.header("Mcp-Session-Id");
    auto closed = off_loop(loop, [&] {
        return http_request(port, "POST", {auth, with_session}, tools_call(7, "close"));
    });
    CHECK(closed.status == 503);
    CHECK(endpoint.closed_peers == 1);
    CHECK(connect_tcp(port) == -1);
}

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
        for (const auto& [name, value] : (*bridge)->env())
            flags.push_back(std::string("--env=").append(name).append("=").append(value));
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
