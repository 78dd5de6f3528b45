// SPDX-License-Identifier: Apache-2.0
// The adopted-descriptor transport, over socket pairs and pipes the test opens itself.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "jsonrpc/connection.hpp"
#include "support/test_loop.hpp"
#include "transport/fd_transport.hpp"

using namespace acp::detail;

TEST_CASE("fd transport: a JSON-RPC exchange over descriptors the host opened") {
    acp::test::TestLoop loop;
    int to_agent[2];
    int from_agent[2];
    int agent_stderr[2];
    REQUIRE(pipe(to_agent) == 0);
    REQUIRE(pipe(from_agent) == 0);
    REQUIRE(pipe(agent_stderr) == 0);
    fcntl(to_agent[0], F_SETFL, O_NONBLOCK);
    std::vector<std::string> log;
    Logger logger([&](const acp::LogRecord& r) { log.emplace_back(r.message); });
    acp::AdoptedFds fds;
    fds.read_fd = from_agent[0];
    fds.write_fd = to_agent[1];
    fds.stderr_fd = agent_stderr[0];
    auto transport = FdTransport::adopt(loop.get(), fds, logger);
    REQUIRE(transport.ok());
    Connection rpc(loop.get(), std::move(transport.value()), logger);
    std::optional<acp::Status> closed;
    rpc.on_closed([&](const acp::Status& why) { closed = why; });
    rpc.start();

    std::string result;
    rpc.send_request("echo", nullptr, [&](const Reply& r) {
        if (r.status.ok()) result = to_json_text(*r.result);
    });
    // Play the agent by hand on the other ends of the pipes.
    std::string received;
    REQUIRE(loop.run_until([&] {
        char buf[256];
        ssize_t n = read(to_agent[0], buf, sizeof buf);
        if (n > 0) received.append(buf, static_cast<std::size_t>(n));
        return received.find('\n') != std::string::npos;
    }));
    CHECK(received == "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"echo\",\"params\":{}}\n");
    const std::string answer = "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"ok\":true}}\n";
    const std::string note = "agent says hi\n";
    REQUIRE(write(from_agent[1], answer.data(), answer.size()) == static_cast<ssize_t>(answer.size()));
    REQUIRE(write(agent_stderr[1], note.data(), note.size()) == static_cast<ssize_t>(note.size()));
    REQUIRE(loop.run_until([&] { return !result.empty(); }));
    CHECK(result == "{\"ok\":true}");

    // The agent closing its output ends the connection.
    close(from_agent[1]);
    close(agent_stderr[1]);
    REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    CHECK(closed->code() == acp::Errc::connection_closed);
    CHECK(std::find(log.begin(), log.end(), "agent says hi") != log.end());
    close(to_agent[0]);
}

TEST_CASE("fd transport: one socket for both directions - close() ends the connection later") {
    acp::test::TestLoop loop;
    int pair[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    acp::AdoptedFds fds;
    fds.read_fd = fds.write_fd = pair[0];
    auto transport = FdTransport::adopt(loop.get(), fds, Logger());
    REQUIRE(transport.ok());
    Connection rpc(loop.get(), std::move(transport.value()), Logger());
    std::optional<acp::Status> closed;
    rpc.on_closed([&](const acp::Status& why) { closed = why; });
    rpc.start();
    rpc.send_notification("hello", nullptr);
    std::string received;
    REQUIRE(loop.run_until([&] {
        char buf[256];
        ssize_t n = recv(pair[1], buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) received.append(buf, static_cast<std::size_t>(n));
        return received.find('\n') != std::string::npos;
    }));
    CHECK(received == "{\"jsonrpc\":\"2.0\",\"method\":\"hello\",\"params\":{}}\n");
    rpc.close();
    CHECK_FALSE(closed.has_value());
    REQUIRE(loop.run_until([&] { return closed.has_value(); }));
    close(pair[1]);
}

TEST_CASE("fd transport: refuses missing descriptors with a clear error") {
    acp::test::TestLoop loop;
    acp::AdoptedFds fds;
    auto transport = FdTransport::adopt(loop.get(), fds, Logger());
    REQUIRE_FALSE(transport.ok());
    CHECK(transport.status().code() == acp::Errc::invalid_argument);
}

TEST_CASE("fd transport: writing to a reader that died is an error, never SIGPIPE for the host") {
    acp::test::TestLoop loop;
    int to_agent[2];
    int from_agent[2];
    REQUIRE(pipe(to_agent) == 0);
    REQUIRE(pipe(from_agent) == 0);
    close(to_agent[0]);  // the agent is gone
    std::vector<std::string> log;
    acp::AdoptedFds fds;
    fds.read_fd = from_agent[0];
    fds.write_fd = to_agent[1];
    auto transport =
        FdTransport::adopt(loop.get(), fds, Logger([&](const acp::LogRecord& r) { log.emplace_back(r.message); }));
    REQUIRE(transport.ok());
    Connection rpc(loop.get(), std::move(transport.value()), Logger());
    rpc.start();
    rpc.send_notification("anyone there", nullptr);
    struct sigaction current {};
    sigaction(SIGPIPE, nullptr, &current);
    const bool ignored = current.sa_handler == SIG_IGN;
    CHECK(ignored);
    CHECK(loop.run_until([&] { return !log.empty(); }));
    CHECK(log[0].find("writing to the agent failed") != std::string::npos);
    close(from_agent[1]);
}

TEST_CASE("fd transport: only what the agent caused counts against the write limits") {
    acp::test::TestLoop loop;
    int to_agent[2];
    int from_agent[2];
    REQUIRE(pipe(to_agent) == 0);
    REQUIRE(pipe(from_agent) == 0);
    fcntl(to_agent[0], F_SETFL, O_NONBLOCK);
    acp::AdoptedFds fds;
    fds.read_fd = from_agent[0];
    fds.write_fd = to_agent[1];
    auto adopted = FdTransport::adopt(loop.get(), fds, Logger());
    REQUIRE(adopted.ok());
    std::unique_ptr<FdTransport> transport = std::move(adopted.value());
    std::vector<std::pair<bool, std::size_t>> pauses;
    transport->set_write_limits(WriteLimits{
        64 * 1024, 16 * 1024, [&](bool paused, std::size_t agent_bytes) { pauses.emplace_back(paused, agent_bytes); }});
    struct Ignore final : TransportEvents {
        void on_transport_data(char*, std::size_t) override {}
        void on_transport_closed(const acp::Status&) override {}
    } events;
    transport->start(&events);

    // The host's own message, 16 times the bound, to an agent that is not reading yet.
    transport->write(std::string(1024 * 1024, 'h') + "\n", WriteCause::host);
    loop.run_for(std::chrono::milliseconds(50));
    CHECK(transport->queued_bytes() > 64 * 1024);
    CHECK(pauses.empty());

    // Answers the agent asked for, past the bound: reading pauses, with their count.
    transport->write(std::string(100 * 1024, 'a') + "\n", WriteCause::agent);
    REQUIRE(pauses.size() == 1);
    CHECK(pauses[0].first);
    CHECK(pauses[0].second == 100 * 1024 + 1);

    // The agent reads everything: reading resumes.
    std::size_t drained = 0;
    REQUIRE(loop.run_until([&] {
        char buf[65536];
        for (ssize_t n; (n = read(to_agent[0], buf, sizeof buf)) > 0;) drained += static_cast<std::size_t>(n);
        return pauses.size() == 2;
    }));
    CHECK_FALSE(pauses[1].first);
    CHECK(pauses[1].second == 0);
    CHECK(drained == 1024 * 1024 + 1 + 100 * 1024 + 1);
    transport->close();
    close(from_agent[1]);
    loop.run_for(std::chrono::milliseconds(20));
    close(to_agent[0]);
}
