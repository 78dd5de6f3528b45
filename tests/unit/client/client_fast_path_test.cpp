// SPDX-License-Identifier: Apache-2.0
// The receive path's fast path for text chunks (client/chunk_line.hpp) builds exactly
// the model the typed path builds: the same agent lines go to a client without an
// on_session_update handler (text chunks read in place) and to one with a handler (every
// update decoded), and the two models' canonical dumps must be equal. The lines mix the
// plain chunks the fast path takes with every near miss it must leave to the decoder.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "client/chunk_line.hpp"
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
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"chunk _meta"},"_meta":{"a":1}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"annotated","annotations":{"priority":1}}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"extra","foo":1}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"image","data":"AAAA","mimeType":"image/png"}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"text":"no type","type":"text"}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":5,"content":{"type":"text","text":"numeric id"}})"),
        in_session(s, R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":5}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a","text":"b"}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","messageId":"m9","content":{"type":"text","text":"dup id"}})"),
        in_session(
            s,
            R"({"sessionUpdate":"agent_message","messageId":"m1","content":{"type":"text","text":"upsert, not chunk"}})"),
        in_session(
            s,
            R"({"sessionUpdate":"compaction_summary_chunk","compactionId":"c1","content":{"type":"text","text":"summary"}})"),
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

namespace {

// What scan_chunk_line makes of a line: "text:session|kind|id|decoded text",
// "terminal:session|id|data" or "decode" (declined). A declined line must be untouched.
std::string scan(std::string text) {
    const std::string before = text;
    std::optional<acp::detail::ChunkLine> chunk = acp::detail::scan_chunk_line(text.data(), text.size());
    if (!chunk) {
        CHECK(text == before);
        return "decode";
    }
    const std::string head = std::string(chunk->session_id) + "|";
    if (chunk->terminal) return "terminal:" + head + std::string(chunk->item_id) + "|" + std::string(chunk->data());
    const std::string id(chunk->item_id);
    return "text:" + head + std::string(acp::item_kind_name(chunk->kind)) + "|" + id + "|" +
           std::string(acp::detail::decode_text(*chunk));
}

std::string scan_params(const std::string& params) { return scan(line(params)); }

}  // namespace

TEST_CASE("fast path: scan_chunk_line takes exactly the plain text chunk shape") {
    CHECK(
        scan_params(
            R"({"update":{"content":{"text":"hi","type":"text"},"messageId":"m","sessionUpdate":"agent_thought_chunk"},"sessionId":"s"})") ==
        "text:s|agent_thought|m|hi");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"user_message_chunk","messageId":"m","content":{"type":"text","text":""}}})") ==
        "text:s|user_message|m|");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"Text","text":"x"}}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"tool_call_content_chunk","messageId":"m","content":{"type":"text","text":"x"}}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":null,"content":{"type":"text","text":"x"}}})") ==
        "decode");
    CHECK(scan_params(
              R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":"x"}})") ==
          "decode");
    CHECK(scan_params(R"({"sessionId":"s","update":[1,2,3]})") == "decode");
    CHECK(scan_params(R"([1,2])") == "decode");
    CHECK(scan_params(R"({"sessionId":"s","update":{}})") == "decode");
    CHECK(scan_params(R"({})") == "decode");
}

TEST_CASE("fast path: scan_chunk_line reads the JSON-RPC envelope exactly") {
    const std::string chunk =
        R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"x"}}})";
    CHECK(scan(line(chunk)) == "text:s|agent_message|m|x");
    // Any member order, JSON whitespace anywhere (a pretty-printing agent).
    CHECK(scan(" \t{ \"params\" :\r\n" + chunk + " , \"method\":\"session/update\",\"jsonrpc\" : \"2.0\" }  \r") ==
          "text:s|agent_message|m|x");
    // A request (an id), a wrong version or method, a missing or repeated member.
    CHECK(scan(R"({"jsonrpc":"2.0","id":1,"method":"session/update","params":)" + chunk + "}") == "decode");
    CHECK(scan(R"({"jsonrpc":"2.0","method":"session/update","params":)" + chunk + R"(,"id":null})") == "decode");
    CHECK(scan(R"({"jsonrpc":"2.1","method":"session/update","params":)" + chunk + "}") == "decode");
    CHECK(scan(R"({"jsonrpc":"2.0","method":"session/updates","params":)" + chunk + "}") == "decode");
    CHECK(scan(R"({"method":"session/update","params":)" + chunk + "}") == "decode");
    CHECK(scan(R"({"jsonrpc":"2.0","method":"session/update"})") == "decode");
    CHECK(scan(R"({"jsonrpc":"2.0","jsonrpc":"2.0","method":"session/update","params":)" + chunk + "}") == "decode");
    // Not one JSON value: trailing bytes, a cut line, a missing comma or colon, a NUL.
    CHECK(scan(line(chunk) + "x") == "decode");
    CHECK(scan(line(chunk) + "{}") == "decode");
    CHECK(scan(line(chunk).substr(0, line(chunk).size() - 1)) == "decode");
    CHECK(scan(R"({"jsonrpc":"2.0" "method":"session/update","params":)" + chunk + "}") == "decode");
    CHECK(scan(R"({"jsonrpc" "2.0","method":"session/update","params":)" + chunk + "}") == "decode");
    CHECK(scan(R"({"jsonrpc":"2.0","method":"session/update","params":)" + chunk + ",}") == "decode");
    CHECK(scan(std::string(R"({"jsonrpc":"2.0")") + '\0' + R"(,"method":"session/update","params":)" + chunk + "}") ==
          "decode");
    CHECK(scan("") == "decode");
    CHECK(scan("{") == "decode");
}

TEST_CASE("fast path: scan_chunk_line decodes text escapes and declines what the full path must judge") {
    auto text = [](const std::string& json_text) {
        return scan(in_session("s", text_chunk("agent_message_chunk", "m", json_text)));
    };
    CHECK(text(R"(a\nb\t\"q\" \\ \/ \b\f\r)") == "text:s|agent_message|m|a\nb\t\"q\" \\ / \b\f\r");
    CHECK(text(R"(\u00e9\u20AC\u0041\u007f)") ==
          "text:s|agent_message|m|\xC3\xA9\xE2\x82\xAC"
          "A\x7F");
    CHECK(text(R"(nul:\u0000.)") == std::string("text:s|agent_message|m|nul:") + '\0' + ".");
    CHECK(text("caf\xC3\xA9 \xF0\x9F\x98\x80") == "text:s|agent_message|m|caf\xC3\xA9 \xF0\x9F\x98\x80");
    // Surrogate escapes, joined or replaced on the full path; broken escapes; raw control
    // characters; invalid UTF-8 (a lone continuation byte, an encoded surrogate, overlong).
    CHECK(text(R"(\ud83d\ude00)") == "decode");
    CHECK(text(R"(\udc00)") == "decode");
    CHECK(text(R"(\u12)") == "decode");
    CHECK(text(R"(\u12g4)") == "decode");
    CHECK(text(R"(\x)") == "decode");
    CHECK(text(R"(\)") == "decode");
    CHECK(text("tab\there") == "decode");
    CHECK(text("bell\x07") == "decode");
    CHECK(text("\x80") == "decode");
    CHECK(text("\xED\xA0\x80") == "decode");
    CHECK(text("\xC0\xAF") == "decode");
    // Escapes and invalid UTF-8 in names and ids: left to the parser.
    CHECK(scan_params(R"({"session\u0049d":"s","update":)" + text_chunk("agent_message_chunk", "m", "x") + "}") ==
          "decode");
    CHECK(scan_params(R"({"sessionId":"s\u0031","update":)" + text_chunk("agent_message_chunk", "m", "x") + "}") ==
          "decode");
    CHECK(scan(in_session("s", text_chunk("agent_message_chunk", "m\\n", "x"))) == "decode");
    CHECK(scan(in_session("s\xFF", text_chunk("agent_message_chunk", "m", "x"))) == "decode");
    CHECK(scan(in_session("s", text_chunk("agent_message_chunk", "\xC3", "x"))) == "decode");
    CHECK(scan(in_session("s\xC3\xA9", text_chunk("agent_message_chunk", "m", "x"))) ==
          "text:s\xC3\xA9|agent_message|m|x");
}

TEST_CASE("fast path: scan_chunk_line reads either shape and declines hybrids") {
    CHECK(
        scan_params(
            R"({"update":{"data":"eA==","terminalId":"t","sessionUpdate":"terminal_output_chunk"},"sessionId":"s"})") ==
        "terminal:s|t|eA==");
    // A terminal tag with a message's members, a message tag with a terminal's, a mix of both.
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","messageId":"m","content":{"type":"text","text":"x"}}})") ==
        "decode");
    CHECK(scan_params(
              R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","terminalId":"t","data":"eA=="}})") ==
          "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","content":"eA=="}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","messageId":"m","data":"eA=="}})") ==
        "decode");
    // Keys that share a length or a prefix with the ones looked for.
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalID":"t","data":"eA=="}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","dat":"eA=="}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunkX","terminalId":"t","data":"eA=="}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionID":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"eA=="}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"eA==","x":1}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","terminalId":"u"}})") ==
        "decode");
    CHECK(
        scan_params(
            R"({"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"e\u0041=="}})") ==
        "decode");
}
