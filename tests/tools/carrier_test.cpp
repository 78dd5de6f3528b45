// SPDX-License-Identifier: Apache-2.0
// The loopback Streamable HTTP carrier of the tools a host offers (tools/http_carrier.hpp).
// Driven by the official MCP TypeScript SDK's client (tests/peers/ts-agent/mcp-client.mjs)
// against a small test server (support/mcp_test_endpoint.hpp), and by hostile callers: no
// or wrong tokens, a foreign Origin, oversized messages. Whatever happens, nothing is left
// listening once a carrier is gone. The stdio bridge's: bridge_carrier_test.cpp.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/logger.hpp"
#include "support/loop_child.hpp"
#include "support/mcp_test_endpoint.hpp"
#include "support/test_loop.hpp"
#include "tools/carrier_support.hpp"
#include "tools/http_carrier.hpp"

using acp::detail::Logger;
using acp::detail::tools::HttpCarrier;
using acp::detail::tools::HttpPolling;
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

TEST_CASE("HTTP: a session ended by DELETE answers the call still waiting in it at once") {
    const HttpPolling polling = each_polling();
    TestLoop loop;
    McpTestEndpoint endpoint(loop.get());
    auto http = HttpCarrier::start(loop.get(), endpoint, Logger(), polling);
    REQUIRE(http.ok());
    const int port = port_of((*http)->url());
    const std::string auth = "Authorization: Bearer " + (*http)->bearer_token();
    auto init = off_loop(loop, [&] { return http_request(port, "POST", {auth}, kInitialize); });
    const std::string with_session = "Mcp-Session-Id: " + init.header("Mcp-Session-Id");
    auto waiting = std::async(std::launch::async, [&] {
        return http_request(port, "POST", {auth, with_session}, tools_call(5, "hang"));
    });
    REQUIRE(loop.run_until([&] { return endpoint.messages == 2; }));
    // The DELETE resumes the waiting request from inside the daemon's run: that run must
    // not leave it for the next unrelated event (the idle timeout is a minute).
    CHECK(off_loop(loop, [&] { return http_request(port, "DELETE", {auth, with_session}); }).status == 200);
    REQUIRE(loop.run_until([&] { return waiting.wait_for(std::chrono::seconds(0)) == std::future_status::ready; },
                           std::chrono::milliseconds(20000)));
    CHECK(waiting.get().status == 404);
}

TEST_CASE("HTTP: the server starts and answers in a host holding more descriptors than an fd_set") {
    // IDEs hold thousands: with epoll, nothing may depend on FD_SETSIZE.
    rlimit limit{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
    const rlimit saved = limit;
    if (limit.rlim_cur < FD_SETSIZE + 200) {
        REQUIRE_MESSAGE(limit.rlim_max >= FD_SETSIZE + 200, "raise the hard limit of open files (ulimit -Hn)");
        limit.rlim_cur = FD_SETSIZE + 200;
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
    }
    std::vector<int> held;
    held.reserve(FD_SETSIZE + 50);
    for (int i = 0; i < FD_SETSIZE + 50; ++i) held.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    CHECK(held.back() >= FD_SETSIZE);
    {
        TestLoop loop;
        McpTestEndpoint endpoint(loop.get());
        auto http = HttpCarrier::start(loop.get(), endpoint, Logger(), HttpPolling::best);
        REQUIRE_MESSAGE(http.ok(), http.status().to_string());
        const std::string auth = "Authorization: Bearer " + (*http)->bearer_token();
        auto init = off_loop(loop, [&] { return http_request(port_of((*http)->url()), "POST", {auth}, kInitialize); });
        CHECK(init.status == 200);
    }
    for (int fd : held) ::close(fd);
    ::setrlimit(RLIMIT_NOFILE, &saved);
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
