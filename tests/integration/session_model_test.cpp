// The session model end to end against the TypeScript-SDK peer: what a store assembles live
// during a prompt equals what a replay rebuilds, in a fresh store and in one that already
// holds the session.
#include <doctest/doctest.h>

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
