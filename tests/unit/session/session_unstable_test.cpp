// SPDX-License-Identifier: Apache-2.0
// The unstable schema's session updates (CLIENT-GUIDE 6.5-6.7) held by the model and its
// dump instead of unknown items.
#include <doctest/doctest.h>

#include <string>

#include "acp/session.hpp"
#include "unit/session/session_test_util.hpp"

using session_test::apply_all;
using session_test::dump;
using session_test::select;

TEST_CASE("session unstable: subagent_update creates and patches a subagent item") {
    acp::SessionStore store;
    apply_all(
        store,
        {
            R"({"sessionUpdate":"subagent_update","sessionId":"child-1","title":"Explore","state":{"state":"running"},"capabilities":{"cancel":{}}})",
            R"({"sessionUpdate":"subagent_update","sessionId":"child-1","description":"Reads the tree","title":null})",
        });
    const acp::SessionState& s = *store.find("s1");
    REQUIRE(s.items().size() == 1);
    const acp::SubagentItem* child = s.items()[0].subagent();
    REQUIRE(child != nullptr);
    CHECK(s.items()[0].kind() == acp::ItemKind::subagent);
    CHECK(child->id == "child-1");
    CHECK_FALSE(child->title.has_value());
    CHECK(child->description == "Reads the tree");
    REQUIRE(child->state.has_value());
    CHECK(child->state->kind() == acp::v2::StateUpdate::Kind::running);
    REQUIRE(child->capabilities.has_value());
    CHECK(child->capabilities->cancel.has_value());
    CHECK(select(dump(store), "items[0].kind") == R"("subagent")");
    CHECK(select(dump(store), "items[0].description") == R"("Reads the tree")");
}

TEST_CASE("session unstable: session_message and its chunks follow the message rules") {
    // CLIENT-MUST-51 applied to inter-session messages.
    acp::SessionStore store;
    apply_all(
        store,
        {
            R"({"sessionUpdate":"session_message_chunk","messageId":"m1","content":{"type":"text","text":"Hel"}})",
            R"({"sessionUpdate":"session_message_chunk","messageId":"m1","content":{"type":"text","text":"lo"}})",
            R"({"sessionUpdate":"session_message","messageId":"m1","senderSessionId":"child-1"})",
        });
    const acp::SessionState& s = *store.find("s1");
    REQUIRE(s.items().size() == 1);
    const acp::SessionMessageItem* message = s.items()[0].session_message();
    REQUIRE(message != nullptr);
    CHECK(message->sender_session_id == "child-1");
    REQUIRE(message->content.size() == 1);
    CHECK(message->content[0].text()->text == "Hello");
    apply_all(store, {R"({"sessionUpdate":"session_message","messageId":"m1","content":null})"});
    CHECK(s.items()[0].session_message()->content.empty());
    CHECK(select(dump(store), "items[0].senderSessionId") == R"("child-1")");
}

TEST_CASE("session unstable: markdown and file plans are plans, and plan_removed marks one removed in place") {
    acp::SessionStore store;
    apply_all(
        store,
        {
            R"({"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"p1","content":"# Steps"}})",
            R"({"sessionUpdate":"plan_update","plan":{"type":"file","planId":"p2","uri":"file:///work/PLAN.md"}})",
            R"({"sessionUpdate":"plan_removed","planId":"p1"})",
        });
    const acp::SessionState& s = *store.find("s1");
    REQUIRE(s.items().size() == 2);
    const acp::PlanItem* markdown = s.items()[0].plan();
    REQUIRE(markdown != nullptr);
    CHECK(markdown->removed);
    auto typed = markdown->unstable();
    REQUIRE(typed.has_value());
    REQUIRE(typed->markdown() != nullptr);
    CHECK(typed->markdown()->content == "# Steps");
    const acp::PlanItem* file = s.items()[1].plan();
    REQUIRE(file != nullptr);
    CHECK_FALSE(file->removed);
    REQUIRE(file->unstable().has_value());
    CHECK(file->unstable()->file()->uri == "file:///work/PLAN.md");
    CHECK(select(dump(store), "items[0].removed") == "true");
    // A later update with the id brings it back, in its place.
    apply_all(store, {R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[]}})"});
    CHECK_FALSE(s.items()[0].plan()->removed);
}

TEST_CASE("session unstable: Usage on idle is kept with the state, and state unknown is busy") {
    // CLIENT-MUST-57: an unrecognised state is never idle.
    acp::SessionStore store;
    apply_all(
        store,
        {
            R"({"sessionUpdate":"state_update","state":"running","background":[{"type":"subagent","sessionId":"child-1"}]})",
            R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn","usage":{"totalTokens":30,"inputTokens":20,"outputTokens":10}})",
        });
    const acp::SessionState& s = *store.find("s1");
    REQUIRE(s.foreground().usage.has_value());
    CHECK(s.foreground().usage->totalTokens == 30);
    CHECK(select(dump(store), "foreground.usage.outputTokens") == "10");
    apply_all(store, {R"({"sessionUpdate":"state_update","state":"unknown"})"});
    CHECK(s.foreground().state == "unknown");
    CHECK(s.foreground().is_busy());
    CHECK_FALSE(s.foreground().usage.has_value());
    CHECK(s.items().empty());
}
