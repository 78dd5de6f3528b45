// SPDX-License-Identifier: Apache-2.0
// A Client whose agent is scripted byte by byte by the test (over a socket pair), for the
// orderings and malformed input a well-behaved peer never produces.
#pragma once

#include <doctest/doctest.h>
#include <sys/socket.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "support/raw_peer.hpp"
#include "support/test_loop.hpp"
#include "transport/fd_transport.hpp"

namespace acp::test {

namespace v2 = acp::v2;
using acp::Result;

inline constexpr const char* kInitializeResult =
    R"({"protocolVersion":2,"info":{"name":"scripted","version":"1"},"capabilities":{"session":{"prompt":{}}}})";

struct Scripted {
    explicit Scripted(acp::ClientOptions options = {}) {
        int pair[2];
        REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
        options.log = [this](const acp::LogRecord& r) { log.emplace_back(r.message); };
        auto created = acp::Client::adopt(loop.get(), acp::AdoptedFds{pair[0], pair[0], -1}, options);
        REQUIRE(created.ok());
        client = std::move(created.value());
        client->on_session_update([this](const v2::UpdateSessionNotification& n) { updates.push_back(n); });
        auto far =
            acp::detail::FdTransport::adopt(loop.get(), acp::AdoptedFds{pair[1], pair[1], -1}, acp::detail::Logger());
        REQUIRE(far.ok());
        agent.emplace(std::move(far.value()));
    }

    acp::test::TestLoop loop;
    std::unique_ptr<acp::Client> client;
    std::optional<acp::test::RawPeer> agent;
    std::vector<v2::UpdateSessionNotification> updates;
    std::vector<std::string> log;

    // Waits for the client's next line and answers it with result (the same id).
    void answer_next(const std::string& result) {
        const std::size_t index = agent->lines.size();
        REQUIRE(loop.run_until([&] { return agent->lines.size() > index; }));
        auto request = agent->parsed(index);
        REQUIRE(request.HasMember("id"));
        agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(request["id"].GetInt64()) + R"(,"result":)" +
                         result + "}");
    }

    void initialize(const std::string& result = kInitializeResult) {
        std::optional<Result<v2::InitializeResponse>> done;
        client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
        answer_next(result);
        REQUIRE(loop.run_until([&] { return done.has_value(); }));
        REQUIRE(done->ok());
    }

    // Opens `id` as a host does: session/new, answered with that id (the client takes
    // session traffic only for sessions it opened).
    void open_session(const std::string& id) {
        std::optional<Result<v2::NewSessionResponse>> created;
        v2::NewSessionRequest request;
        request.cwd = "/work";
        client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
        answer_next(R"({"sessionId":")" + id + R"("})");
        REQUIRE(loop.run_until([&] { return created.has_value(); }));
        REQUIRE(created->ok());
    }

    void update(const std::string& session, const std::string& body) {
        agent->send_line(R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":")" + session +
                         R"(","update":)" + body + "}}");
    }

    bool logged(const std::string& fragment) const {
        for (const auto& line : log) {
            if (line.find(fragment) != std::string::npos) return true;
        }
        return false;
    }
};

}  // namespace acp::test
