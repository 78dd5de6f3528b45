// SPDX-License-Identifier: Apache-2.0
// The receive path's fast path for text chunks (client/text_chunk_view.hpp) builds exactly
// the model the typed path builds: the same agent lines go to a client without an
// on_session_update handler (text chunks read in place) and to one with a handler (every
// update decoded), and the two models' canonical dumps must be equal. The lines mix the
// plain chunks the fast path takes with every near miss it must leave to the decoder.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "client/text_chunk_view.hpp"
#include "jsonrpc/message_parser.hpp"
#include "unit/client/scripted_client.hpp"

using acp::ItemKind;
using acp::test::Scripted;

namespace {

std::string line(const std::string& params) {
    return R"({"jsonrpc":"2.0","method":"session/update","params":)" + params + "}";
}

std::string in_session(const std::string& session, const std::string& update) {
    return line(R"({"sessionId":")" + session + R"(","update":)" + update + "}");
}

std::string text_chunk(const char* kind, const char* id, const std::string& json_text) {
    return std::string(R"({"sessionUpdate":")") + kind + R"(","messageId":")" + id +
           R"(","content":{"type":"text","text":")" + json_text + R"("}})";
}

std::vector<std::string> agent_lines() {
    const std::string s = "s-1";
    return {
        in_session(s, text_chunk("agent_message_chunk", "m1", "Hello ")),
        in_session(s, text_chunk("agent_thought_chunk", "th1", "thinking")),
        in_session(s, text_chunk("user_message_chunk", "u1", "a question")),
        in_session(s, text_chunk("agent_message_chunk", "m1", R"(escapes: \n \"q\" \u00e9 \\ )")),
        in_session(s, text_chunk("agent_message_chunk", "m1", "")),
        // Near misses: each must take the decoder.
        line(R"({"sessionId":"s-1","update":)" + text_chunk("agent_message_chunk", "m1", "params _meta") +
             R"(,"_meta":{"k":1}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"chunk _meta"},"_meta":{"a":1}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"annotated","annotations":{"priority":1}}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"extra","foo":1}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"image","data":"AAAA","mimeType":"image/png"}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"text":"no type","type":"text"}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":5,"content":{"type":"text","text":"numeric id"}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":5}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a","text":"b"}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","messageId":"m9","content":{"type":"text","text":"dup id"}})"),
        in_session(s, R"({"sessionUpdate":"agent_message","messageId":"m1","content":{"type":"text","text":"upsert, not chunk"}})"),
        in_session(s, R"({"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"summary"}})"),
        line(R"({"sessionId":"s-1","other":{}})"),
        line(R"({"sessionId":7,"update":)" + text_chunk("agent_message_chunk", "m1", "numeric session") + "}"),
        // A surrogate pair split across two chunks, then a chunk after the join.
        in_session(s, text_chunk("agent_message_chunk", "m2", R"(a \ud83d)")),
        in_session(s, text_chunk("agent_message_chunk", "m2", R"(\ude00 b)")),
        in_session(s, text_chunk("agent_message_chunk", "m2", " plain")),
        // A high half left waiting, then a plain chunk of another message: the half is settled first.
        in_session(s, text_chunk("agent_message_chunk", "m3", R"(x \ud83d)")),
        in_session(s, text_chunk("agent_message_chunk", "m1", " world")),
        // A session this client never opened: dropped on both paths.
        in_session("s-unknown", text_chunk("agent_message_chunk", "m1", "not mine")),
        in_session(s, R"({"sessionUpdate":"tool_call_update","toolCallId":"tc1","title":"Run","status":"pending"})"),
        // Terminal output: base64 chunks (a UTF-8 character split across two), bad base64, near misses.
        in_session(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":"YnVpbGQ6IOI="})"),
        in_session(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":"nJMgb2sNCg=="})"),
        in_session(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":"not base64!"})"),
        in_session(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":"eA==","_meta":{}})"),
        in_session(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":5})"),
        in_session(s, R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t2","data":"eQ=="})"),
        in_session(s, text_chunk("agent_message_chunk", "m1", " again")),
        in_session(s, R"({"sessionUpdate":"usage_update","used":42,"size":1000})"),
    };
}

// Feeds the lines and waits for the last one (the usage update) to reach the model.
std::string model_after(Scripted& client) {
    client.initialize();
    client.open_session("s-1");
    for (const auto& text : agent_lines()) client.agent->send_line(text);
    REQUIRE(client.loop.run_until([&] {
        const acp::SessionState* state = client.client->sessions().find("s-1");
        return state != nullptr && state->usage().has_value() && state->usage()->used == 42;
    }));
    return acp::to_json(*client.client->sessions().find("s-1"));
}

}  // namespace

TEST_CASE("fast path: text chunks read in place build the model the typed decode builds") {
    Scripted typed;  // on_session_update installed: every update decoded
    Scripted fast;
    fast.client->on_session_update(nullptr);
    const std::string expected = model_after(typed);
    CHECK(model_after(fast) == expected);
    // The lines did reach the model (not two equally empty ones).
    CHECK(expected.find("Hello escapes: \\n \\\"q\\\" \xC3\xA9 \\\\ ") != std::string::npos);
    CHECK(expected.find(" world again") != std::string::npos);
    CHECK(expected.find("\xF0\x9F\x98\x80 b plain") != std::string::npos);
    CHECK(expected.find("build: \xE2\x9C\x93 ok") != std::string::npos);
    CHECK(typed.logged("chunk is not base64"));
    CHECK(fast.logged("chunk is not base64"));
    CHECK(typed.logged("invalid session/update ignored"));
    CHECK(fast.logged("invalid session/update ignored"));
}

TEST_CASE("fast path: read_text_chunk takes exactly the plain shape") {
    auto read = [](std::string params) {
        acp::detail::MessageParser parser;
        const acp::detail::JsonValue* value = parser.parse(params.data(), params.size());
        REQUIRE(value != nullptr);
        auto chunk = acp::detail::read_text_chunk(*value);
        return chunk ? std::string(chunk->session_id) + "|" + std::string(acp::item_kind_name(chunk->kind)) + "|" +
                           std::string(chunk->message_id) + "|" + std::string(chunk->text_view())
                     : std::string("decode");
    };
    CHECK(read(R"({"update":{"content":{"text":"hi","type":"text"},"messageId":"m","sessionUpdate":"agent_thought_chunk"},"sessionId":"s"})") ==
          "s|agent_thought|m|hi");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","messageId":"m","content":{"type":"text","text":""}}})") ==
          "s|user_message|m|");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"Text","text":"x"}}})") ==
          "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"tool_call_content_chunk","messageId":"m","content":{"type":"text","text":"x"}}})") ==
          "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":null,"content":{"type":"text","text":"x"}}})") ==
          "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":"x"}})") == "decode");
    CHECK(read(R"({"sessionId":"s","update":[1,2,3]})") == "decode");
    CHECK(read(R"([1,2])") == "decode");
}

TEST_CASE("fast path: read_streamed_chunk reads either shape in one pass and declines hybrids") {
    auto read = [](std::string params) {
        acp::detail::MessageParser parser;
        const acp::detail::JsonValue* value = parser.parse(params.data(), params.size());
        REQUIRE(value != nullptr);
        const acp::detail::StreamedChunk chunk = acp::detail::read_streamed_chunk(*value);
        CHECK(!(chunk.text && chunk.terminal));
        if (chunk.text) return "text:" + std::string(chunk.text->message_id) + "|" + std::string(chunk.text->text_view());
        if (chunk.terminal) {
            return "terminal:" + std::string(chunk.terminal->session_id) + "|" + std::string(chunk.terminal->terminal_id) +
                   "|" + std::string(chunk.terminal->data);
        }
        return std::string("decode");
    };
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"hi"}}})") ==
          "text:m|hi");
    CHECK(read(R"({"update":{"data":"eA==","terminalId":"t","sessionUpdate":"terminal_output_chunk"},"sessionId":"s"})") ==
          "terminal:s|t|eA==");
    // A terminal tag with a message's members, a message tag with a terminal's, a mix of both.
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","messageId":"m","content":{"type":"text","text":"x"}}})") ==
          "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","terminalId":"t","data":"eA=="}})") == "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","content":"eA=="}})") ==
          "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","messageId":"m","data":"eA=="}})") == "decode");
    // Keys that share a length or a prefix with the ones looked for.
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalID":"t","data":"eA=="}})") == "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","dat":"eA=="}})") == "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunkX","terminalId":"t","data":"eA=="}})") == "decode");
    CHECK(read(R"({"sessionID":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"eA=="}})") == "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"eA==","x":1}})") ==
          "decode");
    CHECK(read(R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","terminalId":"u"}})") ==
          "decode");
}
