// SPDX-License-Identifier: Apache-2.0
// What the carrier tests (HTTP and the stdio bridge) share: a log recorder, a blocking
// client run off the loop, the MCP SDK client's command and the check of its report.
#pragma once

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "support/logger.hpp"
#include "support/loop_child.hpp"
#include "support/test_loop.hpp"

namespace acp::test {

// Every record the carriers log, to check what is logged once and that no secret is.
struct LogRecorder {
    std::vector<std::string> lines;
    detail::Logger logger() {
        return detail::Logger([this](const acp::LogRecord& record) { lines.emplace_back(record.message); });
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

inline bool send_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

// Reads until the peer closes; true when it did within the time.
inline bool closed_by_peer(int fd) {
    timeval timeout{20, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    char buffer[4096];
    while (true) {
        ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n == 0) return true;
        if (n < 0) return errno == ECONNRESET;
    }
}

inline std::string tools_call(int id, const std::string& tool) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"tools/call","params":{"name":")" + tool +
           R"(","arguments":{"text":"x"}}})";
}

inline std::vector<std::string> node_command(std::vector<std::string> flags) {
    std::vector<std::string> args = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/mcp-client.mjs"};
    for (auto& flag : flags) args.push_back(std::move(flag));
    return args;
}

// What the SDK client reported (mcp-client.mjs prints one JSON line). Over stdio the SDK
// may drop a progress notification that arrives in the same read as its response (it
// handles notifications a microtask late, after the response removed the handler), so
// there the bridge's relaying of progress is checked on its raw output instead.
inline void check_conversation(const LoopChild& client, bool sdk_sees_progress) {
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

}  // namespace acp::test
