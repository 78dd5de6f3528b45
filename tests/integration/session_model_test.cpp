// SPDX-License-Identifier: Apache-2.0
// The session model end to end against the TypeScript-SDK peer: what a store assembles live
// during a prompt equals what a replay rebuilds, in a fresh store and in one that already
// holds the session.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "acp/session.hpp"
#include "support/ts_peer.hpp"

using acp::Result;
using acp::test::TsPeer;
namespace v2 = acp::v2;

TEST_CASE("session model: the state assembled live equals the state a full replay rebuilds") {
    // CLIENT-GUIDE 7.6, CLIENT-MUST-48
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "tool").ok());
    REQUIRE(peer.prompt_turn(session, "hello").ok());
    acp::SessionStore live;
    for (const auto& n : peer.updates) CHECK(live.apply(n).ok());
    REQUIRE(live.find(session) != nullptr);
    const std::string live_dump = acp::to_json(*live.find(session));
    CHECK(live.find(session)->items().size() >= 5);

    REQUIRE(peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(session, done); }).ok());
    peer.updates.clear();
    v2::ResumeSessionRequest request;
    request.sessionId = session;
    request.cwd = "/tmp";
    request.replayFrom = v2::ReplayFrom::make_start({});
    auto resumed = peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(request, done); });
    REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());

    acp::SessionStore fresh;
    fresh.begin_replay(session);
    for (const auto& n : peer.updates) CHECK(fresh.apply(n).ok());
    fresh.end_replay(session);
    CHECK(acp::to_json(*fresh.find(session)) == live_dump);

    live.begin_replay(session);
    for (const auto& n : peer.updates) CHECK(live.apply(n).ok());
    live.end_replay(session);
    CHECK(acp::to_json(*live.find(session)) == live_dump);
}

TEST_CASE("session model: a fresh client resuming a restarted agent rebuilds exactly the live model") {
    // The Client's own store: assembled live in one client and agent process, then rebuilt
    // by session/resume with replay in a new client talking to a new agent process that
    // kept its sessions on disk (--state-dir).
    char dir[] = "/tmp/acp-peer-state-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const std::string state_dir = std::string("--state-dir=") + dir;
    std::string session;
    std::string live_dump;
    {
        TsPeer first({state_dir});
        REQUIRE(first.initialize().ok());
        session = first.new_session();
        REQUIRE(first.prompt_turn(session, "tool").ok());
        REQUIRE(first.prompt_turn(session, "hello").ok());
        const acp::SessionState* state = first.client->sessions().find(session);
        REQUIRE(state != nullptr);
        CHECK(state->foreground().is_idle());
        CHECK(state->config_options().has_value());
        live_dump = acp::to_json(*state);
        CHECK(live_dump.find("\"tc1\"") != std::string::npos);           // the tool call is in it
        CHECK(live_dump.find("build: \u2713 ok") != std::string::npos);  // terminal text joined across chunks
    }
    {
        TsPeer second({state_dir});
        REQUIRE(second.initialize().ok());
        std::vector<acp::SessionEvent::Type> events;
        auto subscription =
            second.client->sessions().subscribe([&](const acp::SessionEvent& event) { events.push_back(event.type); });
        v2::ResumeSessionRequest request;
        request.sessionId = session;
        request.cwd = "/tmp";
        request.replayFrom = v2::ReplayFrom::make_start({});
        auto resumed =
            second.wait<v2::ResumeSessionResponse>([&](auto done) { second.client->resume_session(request, done); });
        REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
        const acp::SessionState* state = second.client->sessions().find(session);
        REQUIRE(state != nullptr);
        CHECK(acp::to_json(*state) == live_dump);
        // The replay is history, not new work: no turn ended during it (CLIENT-MUST-58).
        CHECK(std::count(events.begin(), events.end(), acp::SessionEvent::Type::turn_ended) == 0);
        CHECK(std::count(events.begin(), events.end(), acp::SessionEvent::Type::item_inserted) > 5);
    }
    std::system((std::string("rm -rf ") + dir).c_str());
}
