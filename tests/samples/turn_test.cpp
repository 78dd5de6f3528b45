// SPDX-License-Identifier: Apache-2.0
// acp::prompt_turn (include/acp/turn.hpp) against the demo agent: the reply streamed as
// text, the turn's own end with its stop reason, permission answered by the Client's
// handler, cancel from inside the text callback, held prompts, refusals and a connection
// that ends mid-turn.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "acp/turn.hpp"
#include "demo_peer.hpp"

namespace acp::test {
namespace {

// What one prompt_turn reported, in the order it was reported.
struct TurnRecord {
    std::vector<std::string> events;       // "text", "done"
    std::vector<std::string> message_ids;  // one per message that started
    std::string text;
    std::optional<Result<TurnEnd>> end;

    TurnTextHandler on_text() {
        return [this](const TurnText& t) {
            events.push_back("text");
            if (t.starts_message) message_ids.emplace_back(t.message_id);
            text += t.text;
        };
    }
    Callback<TurnEnd> on_done() {
        return [this](Result<TurnEnd> r) {
            events.push_back("done");
            end.emplace(std::move(r));
        };
    }
};

// The text of the session's agent messages from index `from` on, as the model holds it.
std::string agent_text(const SessionState& state, std::size_t from) {
    std::string text;
    for (std::size_t i = from; i < state.items().size(); ++i) {
        const SessionItem& item = state.items()[i];
        if (item.kind() != ItemKind::agent_message) continue;
        for (const auto& block : item.message()->content) {
            if (const v2::TextContent* t = block.text()) text += t->text;
        }
    }
    return text;
}

TEST_CASE("prompt_turn: the reply streams as text, then the turn ends with its stop reason") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    const std::string id = peer.new_session();
    TurnRecord turn;
    // Text comes in order with the other callbacks: the first message before the
    // permission request that follows it, the closing message after.
    std::vector<std::size_t> permissions_seen;
    auto record_text = turn.on_text();
    prompt_turn(
        *peer.client, id, "hello there",
        [&](const TurnText& t) {
            if (t.starts_message) permissions_seen.push_back(peer.permission_requests.size());
            record_text(t);
        },
        turn.on_done());
    REQUIRE(peer.loop.run_until([&] { return turn.end.has_value(); }));
    CHECK(permissions_seen == std::vector<std::size_t>{0, 1});
    REQUIRE_MESSAGE(turn.end->ok(), turn.end->status().to_string());
    const TurnEnd& end = turn.end->value();
    CHECK(end.stop_reason == std::optional<std::string>("end_turn"));
    CHECK(end.ended_normally());
    CHECK_FALSE(end.error.has_value());

    // The permission the turn asked was answered by the Client's handler.
    CHECK(peer.permission_requests.size() == 1);
    const SessionState& state = peer.session(id);
    CHECK(state.foreground().is_idle());
    // The end belongs to this prompt: its user message is the one the model holds.
    const auto user = state.find(ItemKind::user_message, end.user_message_id);
    REQUIRE(user.has_value());
    // Every text of the reply, exactly as the model holds it, and nothing else (no thought).
    CHECK(turn.text == agent_text(state, *user));
    CHECK(turn.text.find("You said: hello there") == 0);
    CHECK(turn.text.find("Done: NOTES.md has your line") != std::string::npos);
    CHECK(turn.message_ids == std::vector<std::string>{"m1", "m2"});
    // All text before the end.
    REQUIRE(!turn.events.empty());
    CHECK(turn.events.back() == "done");
    CHECK(std::count(turn.events.begin(), turn.events.end(), "done") == 1);
}

TEST_CASE("prompt_turn: a second turn reports only its own text and its own end") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    const std::string id = peer.new_session();
    TurnRecord first;
    prompt_turn(*peer.client, id, "one", first.on_text(), first.on_done());
    REQUIRE(peer.loop.run_until([&] { return first.end.has_value(); }));
    REQUIRE(first.end->ok());
    TurnRecord second;
    prompt_turn(*peer.client, id, "two", second.on_text(), second.on_done());
    REQUIRE(peer.loop.run_until([&] { return second.end.has_value(); }));
    REQUIRE(second.end->ok());
    CHECK(second.end->value().user_message_id != first.end->value().user_message_id);
    CHECK(second.text.find("You said: two") == 0);
    CHECK(second.text.find("You said: one") == std::string::npos);
    const SessionState& state = peer.session(id);
    const auto user = state.find(ItemKind::user_message, second.end->value().user_message_id);
    REQUIRE(user.has_value());
    CHECK(second.text == agent_text(state, *user));
}

TEST_CASE("prompt_turn: a prompt the agent holds ends with its own turn, not the running one") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    const std::string id = peer.new_session();
    TurnRecord first;
    TurnRecord second;
    std::vector<std::string> order;
    prompt_turn(*peer.client, id, "first", first.on_text(), [&](Result<TurnEnd> r) {
        order.push_back("first");
        first.end.emplace(std::move(r));
    });
    prompt_turn(*peer.client, id, "second", second.on_text(), [&](Result<TurnEnd> r) {
        order.push_back("second");
        second.end.emplace(std::move(r));
    });
    REQUIRE(peer.loop.run_until([&] { return second.end.has_value(); }));
    REQUIRE(first.end.has_value());
    REQUIRE(first.end->ok());
    REQUIRE(second.end->ok());
    CHECK(order == std::vector<std::string>{"first", "second"});
    // Two turns ran: the second ended at the second idle state, not at the first.
    CHECK(peer.idle_count() == 2);
    CHECK(peer.permission_requests.size() == 2);
    const SessionState& state = peer.session(id);
    const auto user1 = state.find(ItemKind::user_message, first.end->value().user_message_id);
    const auto user2 = state.find(ItemKind::user_message, second.end->value().user_message_id);
    REQUIRE(user1.has_value());
    REQUIRE(user2.has_value());
    CHECK(*user1 < *user2);
    CHECK(second.text.find("You said: second") != std::string::npos);
}

TEST_CASE("prompt_turn: cancel from inside the text callback ends the turn cancelled") {
    // CLIENT-MUST about cancellation: the turn ends with stopReason cancelled, not an error.
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer.clear();  // the permission stays pending until the cancel withdraws it
    peer.initialize();
    const std::string id = peer.new_session();
    TurnRecord turn;
    bool cancelled = false;
    prompt_turn(
        *peer.client, id, "stop soon",
        [&](const TurnText& t) {
            turn.text += t.text;
            if (!cancelled) {
                cancelled = true;
                peer.client->cancel(id);
            }
        },
        turn.on_done());
    REQUIRE(peer.loop.run_until([&] { return turn.end.has_value(); }));
    REQUIRE_MESSAGE(turn.end->ok(), turn.end->status().to_string());
    CHECK(cancelled);
    CHECK(turn.end->value().stop_reason == std::optional<std::string>("cancelled"));
    CHECK_FALSE(turn.end->value().ended_normally());
}

TEST_CASE("prompt_turn: a refused prompt completes with the reason, no text") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    TurnRecord turn;
    prompt_turn(*peer.client, "no-such-session", "hello", turn.on_text(), turn.on_done());
    REQUIRE(peer.loop.run_until([&] { return turn.end.has_value(); }));
    CHECK_FALSE(turn.end->ok());
    CHECK(turn.text.empty());
    CHECK(turn.events == std::vector<std::string>{"done"});

    TurnRecord empty;
    prompt_turn(*peer.client, "no-such-session", std::vector<v2::ContentBlock>{}, empty.on_text(), empty.on_done());
    REQUIRE(peer.loop.run_until([&] { return empty.end.has_value(); }));
    CHECK_FALSE(empty.end->ok());
}

TEST_CASE("prompt_turn: a connection that ends mid-turn completes the turn with the reason") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer.clear();  // the turn waits for a permission answer that never comes
    peer.initialize();
    const std::string id = peer.new_session();
    TurnRecord turn;
    prompt_turn(*peer.client, id, "hello", turn.on_text(), turn.on_done());
    REQUIRE(peer.loop.run_until([&] { return peer.pending_permission.has_value(); }));
    CHECK_FALSE(turn.end.has_value());
    peer.client->close();
    REQUIRE(peer.loop.run_until([&] { return turn.end.has_value(); }));
    REQUIRE_FALSE(turn.end->ok());
    CHECK(turn.end->status().code() == Errc::connection_closed);
    // The text that arrived before still came first.
    CHECK(turn.text.find("You said: hello") == 0);
    CHECK(turn.events.back() == "done");
}

TEST_CASE("prompt_turn: closing the session mid-turn completes the turn") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer.clear();
    peer.initialize();
    const std::string id = peer.new_session();
    TurnRecord turn;
    prompt_turn(*peer.client, id, "hello", turn.on_text(), turn.on_done());
    REQUIRE(peer.loop.run_until([&] { return peer.pending_permission.has_value(); }));
    std::optional<Result<v2::CloseSessionResponse>> closed;
    peer.client->close_session(id, [&](Result<v2::CloseSessionResponse> r) { closed.emplace(std::move(r)); });
    REQUIRE(peer.loop.run_until([&] { return turn.end.has_value() && closed.has_value(); }));
    // The agent stops the turn before it answers the close (CLIENT-GUIDE §4.6): cancelled.
    REQUIRE_MESSAGE(turn.end->ok(), turn.end->status().to_string());
    CHECK(turn.end->value().stop_reason == std::optional<std::string>("cancelled"));
}

}  // namespace
}  // namespace acp::test
