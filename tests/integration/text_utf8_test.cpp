// SPDX-License-Identifier: Apache-2.0
// Text is always valid UTF-8 (docs/untrusted-agent.md): a JavaScript agent (the peer on
// the official TypeScript SDK) that cuts strings between the halves of a surrogate pair.
// No message is lost; an emoji split across two chunks of one message shows as the emoji,
// as a JavaScript client would show it; every other lone half is U+FFFD; the model, its
// JSON dump and what on_session_update hands the host hold only valid UTF-8.
#include <doctest/doctest.h>

#include <rapidjson/stringbuffer.h>

#include <algorithm>

#include "jsonrpc/json.hpp"
#include "protocol/v2/codec.hpp"
#include "support/ts_peer.hpp"
#include "support/utf8_check.hpp"

using acp::ItemKind;
using acp::test::is_valid_utf8;
using acp::test::TsPeer;
namespace v2 = acp::v2;

namespace {

const std::string fffd = "\xEF\xBF\xBD";
const std::string smile = "\xF0\x9F\x98\x80";  // U+1F600

std::string message_text(const acp::SessionState& session, ItemKind kind, const std::string& id) {
    const acp::SessionItem* item = session.item(kind, id);
    REQUIRE_MESSAGE(item != nullptr, "no item " << id);
    REQUIRE(item->message() != nullptr);
    std::string text;
    for (const auto& block : item->message()->content) {
        if (block.text() != nullptr) text += block.text()->text;
    }
    return text;
}

}  // namespace

TEST_CASE("text: lone surrogates from a JavaScript agent never drop a message and never reach the host as bad UTF-8") {
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session_id = peer.new_session();
    REQUIRE(peer.prompt_turn(session_id, "split-surrogates").ok());
    CHECK(peer.last_stop_reason() == "end_turn");
    // The agent really wrote lone halves as escapes.
    const auto sent = peer.agent_sent();
    CHECK(std::any_of(sent.begin(), sent.end(),
                      [](const std::string& line) { return line.find("Smile \\ud83d") != std::string::npos; }));

    const acp::SessionState* session = peer.client->sessions().find(session_id);
    REQUIRE(session != nullptr);
    // The emoji split across two chunks of m1 is whole again.
    CHECK(message_text(*session, ItemKind::agent_message, "m1") == "Smile " + smile + " done");
    // Inside a string, a lone half of either kind is U+FFFD.
    CHECK(message_text(*session, ItemKind::agent_thought, "m2") == "a" + fffd + "b " + fffd + " c");
    // Ids and titles keep their place (the update is applied), with U+FFFD for the half.
    const acp::SessionItem* call = session->item(ItemKind::tool_call, "tc-" + fffd);
    REQUIRE(call != nullptr);
    CHECK(call->tool_call()->title == "T" + fffd);
    // A trailing high half whose message never continues becomes U+FFFD when the
    // session's next update is something else; a leading low half with nothing before it too.
    CHECK(message_text(*session, ItemKind::agent_message, "m3") == "cut " + fffd);
    CHECK(session->info().title == fffd + "title" + fffd);
    CHECK(message_text(*session, ItemKind::agent_message, "m4") == fffd + " orphan");

    const std::string dump = acp::to_json(*session);
    CHECK(is_valid_utf8(dump));
    CHECK(dump.find(smile) != std::string::npos);

    // What the host's update callback saw: valid UTF-8 everywhere, and m1's chunks
    // concatenate to the model's text (the high half travels with the chunk that completes it).
    for (const auto& n : peer.updates) {
        rapidjson::StringBuffer buffer;
        acp::detail::JsonWriter writer(buffer);
        acp::v2::codec::encode(writer, n);
        INFO(n.update.tag());
        CHECK(is_valid_utf8(std::string_view(buffer.GetString(), buffer.GetSize())));
    }
    CHECK(peer.agent_text("m1") == "Smile " + smile + " done");
    CHECK(peer.agent_text("m3") == "cut " + fffd);
}
