// SPDX-License-Identifier: Apache-2.0
// The client joins a surrogate pair a JavaScript agent split across two chunks of one
// message, for v2 and v1 agents, and turns every other lone half into U+FFFD: in the model
// and in what on_session_update hands the host (docs/untrusted-agent.md).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "support/utf8_check.hpp"
#include "unit/client/scripted_client.hpp"

using acp::ItemKind;
using acp::Result;
using acp::test::is_valid_utf8;
using acp::test::Scripted;
namespace v2 = acp::v2;

namespace {

const std::string fffd = "\xEF\xBF\xBD";
const std::string smile = "\xF0\x9F\x98\x80";  // U+1F600, \uD83D\uDE00

std::string chunk(const char* kind, const char* message_id, const std::string& json_text) {
    return std::string(R"({"sessionUpdate":")") + kind + R"(",)" +
           (message_id != nullptr ? std::string(R"("messageId":")") + message_id + R"(",)" : std::string()) +
           R"("content":{"type":"text","text":")" + json_text + R"("}})";
}

std::string model_text(const Scripted& s, const std::string& session, ItemKind kind, const std::string& id) {
    const acp::SessionState* state = s.client->sessions().find(session);
    REQUIRE(state != nullptr);
    const acp::SessionItem* item = state->item(kind, id);
    REQUIRE_MESSAGE(item != nullptr, "no item " << id);
    std::string text;
    for (const auto& block : item->message()->content) text += block.text()->text;
    return text;
}

// The texts of the chunks the host was handed, in order.
std::string host_texts(const Scripted& s) {
    std::string all;
    for (const auto& n : s.updates) {
        for (const auto* c :
             {n.update.agent_message_chunk(), n.update.agent_thought_chunk(), n.update.user_message_chunk()}) {
            if (c != nullptr && c->content.text() != nullptr) all += "[" + c->content.text()->text + "]";
        }
    }
    return all;
}

}  // namespace

TEST_CASE("client surrogates: an emoji split across two chunks of a v2 message is one emoji") {
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", chunk("agent_message_chunk", "m1", R"(Smile \ud83d)"));
    s.update("s-1", chunk("agent_message_chunk", "m1", R"(\ude00 done)"));
    // Only the half: the chunk is empty until its partner comes.
    s.update("s-1", chunk("agent_thought_chunk", "t1", R"(\uD83D)"));
    s.update("s-1", chunk("agent_thought_chunk", "t1", R"(\uDE00)"));
    s.update("s-1", R"({"sessionUpdate":"state_update","state":"running"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 5; }));
    CHECK(model_text(s, "s-1", ItemKind::agent_message, "m1") == "Smile " + smile + " done");
    CHECK(model_text(s, "s-1", ItemKind::agent_thought, "t1") == smile);
    // The high half travels with the chunk that completes it.
    CHECK(host_texts(s) == "[Smile ][" + smile + " done][][" + smile + "]");
}

TEST_CASE("client surrogates: a half that finds no partner is U+FFFD, in the model and for the host") {
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", chunk("agent_message_chunk", "m1", R"(cut \ud83d)"));
    // Another message's chunk: m1's half is settled first, as a chunk of its own.
    s.update("s-1", chunk("agent_message_chunk", "m2", R"(\ude00 low)"));
    s.update("s-1", chunk("agent_message_chunk", "m2", R"(high \ud83d)"));
    // The same message, but no low half at the start.
    s.update("s-1", chunk("agent_message_chunk", "m2", R"(next)"));
    s.update("s-1", chunk("agent_message_chunk", "m2", R"(\ud83d\ud83d in \ude00 the \udbff middle)"));
    s.update("s-1", R"({"sessionUpdate":"tool_call_update","toolCallId":"\ud83d","title":"\ude00 t \ud83d"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 7; }));
    CHECK(model_text(s, "s-1", ItemKind::agent_message, "m1") == "cut " + fffd);
    CHECK(model_text(s, "s-1", ItemKind::agent_message, "m2") ==
          fffd + " low" + "high " + fffd + "next" + fffd + fffd + " in " + fffd + " the " + fffd + " middle");
    const acp::SessionState* state = s.client->sessions().find("s-1");
    const acp::SessionItem* call = state->item(ItemKind::tool_call, fffd);
    REQUIRE(call != nullptr);
    CHECK(call->tool_call()->title == fffd + " t " + fffd);
    CHECK(is_valid_utf8(acp::to_json(*state)));
    CHECK(host_texts(s) == "[cut ][" + fffd + "][" + fffd + " low][high ][" + fffd + "next][" + fffd + fffd + " in " +
                               fffd + " the " + fffd + " middle]");
}

TEST_CASE("client surrogates: halves in different sessions do not meet") {
    Scripted s;
    s.initialize();
    s.open_session("a");
    s.open_session("b");
    s.update("a", chunk("agent_message_chunk", "m1", R"(x\ud83d)"));
    s.update("b", chunk("agent_message_chunk", "m1", R"(\ude00y)"));
    s.update("a", chunk("agent_message_chunk", "m1", R"(\ude00z)"));
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 3; }));
    CHECK(model_text(s, "a", ItemKind::agent_message, "m1") == "x" + smile + "z");
    CHECK(model_text(s, "b", ItemKind::agent_message, "m1") == fffd + "y");
}

TEST_CASE("client surrogates: an emoji split across two chunks of a v1 message is one emoji") {
    Scripted s;
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE(done->ok());
    s.open_session("s-1");
    // v1 chunks carry no message id: consecutive chunks of one kind are one message.
    s.update("s-1", chunk("agent_message_chunk", nullptr, R"(Smile \ud83d)"));
    s.update("s-1", chunk("agent_message_chunk", nullptr, R"(\ude00 done \udc00)"));
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 2; }));
    REQUIRE(s.updates[0].update.agent_message_chunk() != nullptr);
    const std::string id = s.updates[0].update.agent_message_chunk()->messageId;
    CHECK(model_text(s, "s-1", ItemKind::agent_message, id) == "Smile " + smile + " done " + fffd);
    CHECK(host_texts(s) == "[Smile ][" + smile + " done " + fffd + "]");
}
