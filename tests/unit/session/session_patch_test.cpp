// SPDX-License-Identifier: Apache-2.0
// Patch semantics of every session/update variant (CLIENT-GUIDE 6), table-driven: each row
// applies a sequence of updates to a fresh store and checks one part of the dump.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "unit/session/session_test_util.hpp"

using session_test::apply_all;
using session_test::dump;
using session_test::select;

namespace {

struct PatchCase {
    const char* name;  // with the CLIENT-MUST rule it checks
    std::vector<std::string> updates;
    const char* path;
    const char* expected;
};

void run(const std::vector<PatchCase>& cases) {
    for (const auto& c : cases) {
        const std::string name = c.name;
        CAPTURE(name);
        acp::SessionStore store;
        for (const auto& update : c.updates) {
            const acp::Status status = store.apply(session_test::notification(update));
            CHECK_MESSAGE(status.ok(), status.to_string());
        }
        const std::string actual = select(dump(store), c.path);
        if (std::string(c.expected) == "<missing>") {
            CHECK(actual == "<missing>");
        } else {
            CHECK_MESSAGE(codec_test::same_json(actual, c.expected), "actual: " << actual);
        }
    }
}

std::string text(const char* t) { return std::string(R"({"type":"text","text":")") + t + R"("})"; }
std::string agent_chunk(const char* id, const std::string& block) {
    return std::string(R"({"sessionUpdate":"agent_message_chunk","messageId":")") + id + R"(","content":)" + block +
           "}";
}
std::string agent_message(const char* id, const std::string& rest) {
    return std::string(R"({"sessionUpdate":"agent_message","messageId":")") + id + "\"" + rest + "}";
}
std::string tool(const std::string& rest) {
    return R"({"sessionUpdate":"tool_call_update","toolCallId":"c1")" + rest + "}";
}
std::string terminal_chunk(const char* data) {
    return std::string(R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t1","data":")") + data + "\"}";
}
std::string terminal(const std::string& rest) {
    return R"({"sessionUpdate":"terminal_update","terminalId":"t1")" + rest + "}";
}
const char* image = R"({"type":"image","data":"aGk=","mimeType":"image/png"})";

}  // namespace

TEST_CASE("session patch: message content follows the ordering table of section 6.2") {
    // CLIENT-MUST-49, CLIENT-MUST-51
    run({
        {"51 full update then chunk appends",
         {agent_message("m1", ",\"content\":[" + text("A") + "]"), agent_chunk("m1", text("B"))},
         "items[0].content",
         R"([{"type":"text","text":"AB"}])"},
        {"51 full update after chunks replaces them",
         {agent_chunk("m1", text("A")), agent_chunk("m1", text("B")),
          agent_message("m1", ",\"content\":[" + text("C") + "]")},
         "items[0].content",
         R"([{"type":"text","text":"C"}])"},
        {"51 chunk after the replacement appends to it",
         {agent_chunk("m1", text("A")), agent_message("m1", ",\"content\":[" + text("C") + "]"),
          agent_chunk("m1", text("D"))},
         "items[0].content",
         R"([{"type":"text","text":"CD"}])"},
        {"51 absent content is unchanged",
         {agent_message("m1", ",\"content\":[" + text("C") + "]"), agent_message("m1", R"(,"_meta":{"x":1})")},
         "items[0].content",
         R"([{"type":"text","text":"C"}])"},
        {"51 null content clears",
         {agent_message("m1", ",\"content\":[" + text("C") + "]"), agent_message("m1", R"(,"content":null)")},
         "items[0].content",
         "[]"},
        {"51 empty content clears",
         {agent_message("m1", ",\"content\":[" + text("C") + "]"), agent_message("m1", R"(,"content":[])")},
         "items[0].content",
         "[]"},
        {"51 null content clears a user message",
         {R"({"sessionUpdate":"user_message_chunk","messageId":"u1","content":{"type":"text","text":"hi"}})",
          R"({"sessionUpdate":"user_message","messageId":"u1","content":null})"},
         "items[0]",
         R"({"kind":"user_message","id":"u1","content":[],"_meta":{}})"},
        {"51 null content clears a thought",
         {R"({"sessionUpdate":"agent_thought","messageId":"t1","content":[{"type":"text","text":"hmm"}]})",
          R"({"sessionUpdate":"agent_thought","messageId":"t1","content":null})"},
         "items[0]",
         R"({"kind":"agent_thought","id":"t1","content":[],"_meta":{}})"},
        {"non-text blocks stay separate blocks",
         {agent_chunk("m1", text("A")), agent_chunk("m1", image), agent_chunk("m1", text("B"))},
         "items[0].content",
         std::string("[" + text("A") + "," + image + "," + text("B") + "]").c_str()},
        {"annotated text is not merged with plain text",
         {agent_chunk("m1", text("A")),
          agent_chunk("m1", R"({"type":"text","text":"B","annotations":{"priority":1}})")},
         "items[0].content",
         R"([{"type":"text","text":"A"},{"type":"text","text":"B","annotations":{"priority":1}}])"},
        {"a full update of plain text blocks is stored merged",
         {agent_message("m1", ",\"content\":[" + text("A") + "," + text("B") + "]")},
         "items[0].content",
         R"([{"type":"text","text":"AB"}])"},
        {"chunk _meta is scoped to the chunk",
         {R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"A"},"_meta":{"k":1}})"},
         "items[0]._meta",
         "{}"},
        {"50 a content-less update creates the message empty",
         {agent_message("m1", "")},
         "items[0]",
         R"({"kind":"agent_message","id":"m1","content":[],"_meta":{}})"},
    });
}

TEST_CASE("session patch: messages are keyed by kind and id and placed at first sighting") {
    // CLIENT-MUST-52, CLIENT-MUST-50
    run({
        {"52 the same id in three kinds is three messages",
         {R"({"sessionUpdate":"user_message","messageId":"m1","content":[{"type":"text","text":"U"}]})",
          agent_chunk("m1", text("A")),
          R"({"sessionUpdate":"agent_thought_chunk","messageId":"m1","content":{"type":"text","text":"T"}})"},
         "items",
         R"([{"kind":"user_message","id":"m1","content":[{"type":"text","text":"U"}],"_meta":{}},
                      {"kind":"agent_message","id":"m1","content":[{"type":"text","text":"A"}],"_meta":{}},
                      {"kind":"agent_thought","id":"m1","content":[{"type":"text","text":"T"}],"_meta":{}}])"},
        {"interleaved chunks stay with their message at its first position",
         {agent_chunk("m1", text("A")), agent_chunk("m2", text("X")), agent_chunk("m1", text("B"))},
         "items[0].content",
         R"([{"type":"text","text":"AB"}])"},
        {"user_message_chunk creates a user message",
         {R"({"sessionUpdate":"user_message_chunk","messageId":"u1","content":{"type":"text","text":"hi"}})"},
         "items[0].kind",
         R"("user_message")"},
        {"agent_thought replaces a thought",
         {R"({"sessionUpdate":"agent_thought_chunk","messageId":"t","content":{"type":"text","text":"a"}})",
          R"({"sessionUpdate":"agent_thought","messageId":"t","content":[{"type":"text","text":"b"}]})"},
         "items[0].content",
         R"([{"type":"text","text":"b"}])"},
    });
}

TEST_CASE("session patch: _meta of an upsert merges by top-level key") {
    // CLIENT-MUST-49 (CLIENT-GUIDE 1.5)
    run({
        {"a null key deletes, other keys replace",
         {agent_message("m1", R"(,"_meta":{"a":1,"b":2})"), agent_message("m1", R"(,"_meta":{"b":null,"c":3})")},
         "items[0]._meta",
         R"({"a":1,"c":3})"},
        {"an empty object changes nothing",
         {agent_message("m1", R"(,"_meta":{"a":1})"), agent_message("m1", R"(,"_meta":{})")},
         "items[0]._meta",
         R"({"a":1})"},
        {"null drops all metadata",
         {agent_message("m1", R"(,"_meta":{"a":1})"), agent_message("m1", R"(,"_meta":null)")},
         "items[0]._meta",
         "{}"},
        {"no deep merge",
         {agent_message("m1", R"(,"_meta":{"a":{"x":1}})"), agent_message("m1", R"(,"_meta":{"a":{"y":2}})")},
         "items[0]._meta",
         R"({"a":{"y":2}})"},
        {"absent keeps", {tool(R"(,"_meta":{"a":1})"), tool(R"(,"title":"t")")}, "items[0]._meta", R"({"a":1})"},
        {"terminal _meta merges",
         {terminal(R"(,"_meta":{"a":1})"), terminal(R"(,"_meta":{"b":2})")},
         "items[0]._meta",
         R"({"a":1,"b":2})"},
    });
}

TEST_CASE("session patch: tool calls") {
    // CLIENT-MUST-49, CLIENT-MUST-50, CLIENT-MUST-53, CLIENT-MUST-61
    run({
        {"50 the first tool_call_update creates the call with protocol defaults",
         {tool("")},
         "items[0]",
         R"({"kind":"tool_call","id":"c1","name":null,"title":null,"toolKind":"other","status":"pending","content":[],
             "locations":[],"rawInput":null,"rawOutput":null,"capabilities":null,"_meta":{}})"},
        {"49 null resets status to pending",
         {tool(R"(,"status":"in_progress")"), tool(R"(,"status":null)")},
         "items[0].status",
         R"("pending")"},
        {"49 null resets kind to other",
         {tool(R"(,"kind":"read")"), tool(R"(,"kind":null)")},
         "items[0].toolKind",
         R"("other")"},
        {"49 absent keeps the title",
         {tool(R"(,"title":"Read a")"), tool(R"(,"status":"completed")")},
         "items[0].title",
         R"("Read a")"},
        {"49 null clears the title",
         {tool(R"(,"title":"Read a")"), tool(R"(,"title":null)")},
         "items[0].title",
         "null"},
        {"name is patched", {tool(R"(,"name":"read_file")")}, "items[0].name", R"("read_file")"},
        {"53 content is replaced wholesale",
         {tool(R"(,"content":[{"type":"content","content":{"type":"text","text":"x"}}])"),
          tool(R"(,"content":[{"type":"terminal","terminalId":"t9"}])")},
         "items[0].content",
         R"([{"type":"terminal","terminalId":"t9"}])"},
        {"53 a content chunk appends",
         {tool(R"(,"content":[{"type":"content","content":{"type":"text","text":"x"}}])"),
          R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":{"type":"content","content":{"type":"text","text":"y"}}})"},
         "items[0].content",
         R"([{"type":"content","content":{"type":"text","text":"x"}},{"type":"content","content":{"type":"text","text":"y"}}])"},
        {"53 an update with content after chunks replaces them",
         {R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":{"type":"terminal","terminalId":"t1"}})",
          tool(R"(,"content":[{"type":"terminal","terminalId":"t2"}])")},
         "items[0].content",
         R"([{"type":"terminal","terminalId":"t2"}])"},
        {"49 empty content clears",
         {tool(R"(,"content":[{"type":"terminal","terminalId":"t2"}])"), tool(R"(,"content":[])")},
         "items[0].content",
         "[]"},
        {"50 a content chunk for an unseen id creates the call",
         {R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":{"type":"terminal","terminalId":"t1"}})"},
         "items[0].status",
         R"("pending")"},
        {"61 an unknown status is kept as sent",
         {tool(R"(,"status":"_acme_waiting")")},
         "items[0].status",
         R"("_acme_waiting")"},
        {"an unknown kind is kept as sent", {tool(R"(,"kind":"_acme")")}, "items[0].toolKind", R"("_acme")"},
        {"locations are replaced",
         {tool(R"(,"locations":[{"path":"/a"}])"), tool(R"(,"locations":[{"path":"/b","line":3}])")},
         "items[0].locations",
         R"([{"path":"/b","line":3}])"},
        {"raw output is replaced and cleared",
         {tool(R"(,"rawOutput":{"a":1})"), tool(R"(,"rawOutput":null,"rawInput":[1])")},
         "items[0]",
         R"({"kind":"tool_call","id":"c1","name":null,"title":null,"toolKind":"other","status":"pending","content":[],
             "locations":[],"rawInput":[1],"rawOutput":null,"capabilities":null,"_meta":{}})"},
        {"capabilities are replaced as a whole object",
         {tool(R"(,"capabilities":{"cancel":{}})"), tool(R"(,"capabilities":{})")},
         "items[0].capabilities",
         "{}"},
        {"capabilities null clears",
         {tool(R"(,"capabilities":{"cancel":{}})"), tool(R"(,"capabilities":null)")},
         "items[0].capabilities",
         "null"},
        {"49 null locations clear",
         {tool(R"(,"locations":[{"path":"/a","line":1}])"), tool(R"(,"locations":null)")},
         "items[0].locations",
         "[]"},
        {"49 empty locations clear",
         {tool(R"(,"locations":[{"path":"/a"}])"), tool(R"(,"locations":[])")},
         "items[0].locations",
         "[]"},
        {"49 absent locations keep",
         {tool(R"(,"locations":[{"path":"/a"}])"), tool(R"(,"title":"t")")},
         "items[0].locations",
         R"([{"path":"/a"}])"},
        {"49 null raw input clears",
         {tool(R"(,"rawInput":{"path":"/a"},"rawOutput":"ok")"), tool(R"(,"rawInput":null)")},
         "items[0]",
         R"({"kind":"tool_call","id":"c1","name":null,"title":null,"toolKind":"other","status":"pending","content":[],
             "locations":[],"rawInput":null,"rawOutput":"ok","capabilities":null,"_meta":{}})"},
        {"49 null _meta drops all metadata",
         {tool(R"(,"_meta":{"a":1,"b":2})"), tool(R"(,"_meta":null,"title":"t")")},
         "items[0]",
         R"({"kind":"tool_call","id":"c1","name":null,"title":"t","toolKind":"other","status":"pending","content":[],
             "locations":[],"rawInput":null,"rawOutput":null,"capabilities":null,"_meta":{}})"},
    });
}

TEST_CASE("session patch: terminals") {
    // CLIENT-MUST-54, CLIENT-MUST-50
    run({
        {"50 a chunk for an unseen terminal creates it",
         {terminal_chunk("aGk=")},
         "items[0]",
         R"({"kind":"terminal","id":"t1","command":null,"cwd":null,"output":"hi","outputBytes":2,"exitStatus":null,"size":null,
             "capabilities":null,"_meta":{}})"},
        {"54 each chunk is decoded alone, never joined",
         {terminal_chunk("aGk="), terminal_chunk("IQ==")},
         "items[0].output",
         R"("hi!")"},
        {"54 a UTF-8 sequence split across chunks decodes whole",
         {terminal_chunk("ww=="), terminal_chunk("qQ==")},
         "items[0].output",
         "\"\xC3\xA9\""},
        {"54 a three-byte sequence split two ways",
         {terminal_chunk("eOKC"), terminal_chunk("rA==")},
         "items[0].output",
         "\"x\xE2\x82\xAC\""},
        {"54 a sequence still incomplete waits", {terminal_chunk("eOKC")}, "items[0].output", R"("x")"},
        {"invalid bytes become U+FFFD",
         {terminal_chunk("Yf9i")},
         "items[0].output",
         "\"a\xEF\xBF\xBD"
         "b\""},
        {"54 a snapshot replaces the bytes",
         {terminal_chunk("aGk="), terminal(R"(,"output":{"data":"b2s="})")},
         "items[0].output",
         R"("ok")"},
        {"54 chunks after a snapshot append",
         {terminal_chunk("aGk="), terminal(R"(,"output":{"data":"b2s="})"), terminal_chunk("IQ==")},
         "items[0].output",
         R"("ok!")"},
        {"54 a snapshot drops a waiting partial sequence",
         {terminal_chunk("ww=="), terminal(R"(,"output":{"data":"b2s="})"), terminal_chunk("qQ==")},
         "items[0].output",
         "\"ok\xEF\xBF\xBD\""},
        {"output null clears", {terminal_chunk("aGk="), terminal(R"(,"output":null)")}, "items[0].output", R"("")"},
        {"absent output keeps", {terminal_chunk("aGk="), terminal(R"(,"command":"ls")")}, "items[0].output", R"("hi")"},
        {"exit status presence means exited", {terminal(R"(,"exitStatus":{})")}, "items[0].exitStatus", "{}"},
        {"exit status null clears",
         {terminal(R"(,"exitStatus":{"exitCode":-1,"signal":"SIGTERM"})"), terminal(R"(,"exitStatus":null)")},
         "items[0].exitStatus",
         "null"},
        {"command, cwd and size are patched",
         {terminal(R"(,"command":"make","cwd":"/w","size":{"cols":80,"rows":24})"), terminal(R"(,"cwd":null)")},
         "items[0]",
         R"({"kind":"terminal","id":"t1","command":"make","cwd":null,"output":"","outputBytes":0,"exitStatus":null,
                         "size":{"cols":80,"rows":24},"capabilities":null,"_meta":{}})"},
        {"49 size null clears",
         {terminal(R"(,"size":{"cols":80,"rows":24},"command":"make")"), terminal(R"(,"size":null)")},
         "items[0]",
         R"({"kind":"terminal","id":"t1","command":"make","cwd":null,"output":"","outputBytes":0,"exitStatus":null,
             "size":null,"capabilities":null,"_meta":{}})"},
        {"a new size replaces the old one",
         {terminal(R"(,"size":{"cols":80,"rows":24})"), terminal(R"(,"size":{"cols":120,"rows":40})")},
         "items[0].size",
         R"({"cols":120,"rows":40})"},
        {"capabilities are replaced as a whole object",
         {terminal(R"(,"capabilities":{"cancel":{}})"), terminal(R"(,"capabilities":{})")},
         "items[0].capabilities",
         "{}"},
        {"absent capabilities keep",
         {terminal(R"(,"capabilities":{"cancel":{}})"), terminal(R"(,"command":"ls")")},
         "items[0].capabilities",
         R"({"cancel":{}})"},
        {"capabilities null clears",
         {terminal(R"(,"capabilities":{"cancel":{}})"), terminal(R"(,"capabilities":null)")},
         "items[0].capabilities",
         "null"},
    });
}

TEST_CASE("session patch: a diff whose patch is absent or null is kept in the tool call") {
    // CLIENT-MUST-63
    const char* absent = R"({"type":"diff","changes":[{"operation":"delete","path":"/w/x","fileType":"text"}]})";
    const char* null = R"({"type":"diff","changes":[{"operation":"add","path":"/w/y"}],"patch":null})";
    const char* with_patch =
        R"({"type":"diff","changes":[{"operation":"modify","path":"/w/z"}],"patch":{"format":"git_patch","text":"diff --git /w/z /w/z\n"}})";
    run({
        {"63 an absent patch stays absent",
         {tool(std::string(R"(,"content":[)") + absent + "]")},
         "items[0].content",
         std::string("[" + std::string(absent) + "]").c_str()},
        {"63 a null patch is kept", {tool(std::string(R"(,"content":[)") + null + "]")}, "items[0].content[0]", null},
        {"63 a patch-less diff chunk appends after one with a patch",
         {tool(std::string(R"(,"content":[)") + with_patch + "]"),
          std::string(R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":)") + absent + "}"},
         "items[0].content",
         (std::string("[") + with_patch + "," + absent + "]").c_str()},
    });
}

TEST_CASE("session patch: message ids are the agent's, kept verbatim and compared as strings") {
    // CLIENT-MUST-67: the model never makes up an id; the item's id is the agent's messageId
    run({
        {"67 ids that parse to the same number are different messages",
         {agent_chunk("1", text("A")), agent_chunk("01", text("B"))},
         "items",
         R"([{"kind":"agent_message","id":"1","content":[{"type":"text","text":"A"}],"_meta":{}},
                      {"kind":"agent_message","id":"01","content":[{"type":"text","text":"B"}],"_meta":{}}])"},
        {"67 an id is not trimmed or case-folded",
         {agent_chunk("M1", text("A")), agent_chunk("m1", text("B")), agent_chunk(" m1", text("C"))},
         "items[2].id",
         R"(" m1")"},
        {"67 a user message carries the id the agent inserted it with",
         {R"({"sessionUpdate":"user_message","messageId":"u14 \u00e9/x","content":[{"type":"text","text":"Fix"}]})"},
         "items[0].id",
         "\"u14 \xC3\xA9/x\""},
    });
}

TEST_CASE("session patch: plans are replaced per planId") {
    // CLIENT-MUST-55, CLIENT-MUST-64
    const std::string p1a =
        R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"a","priority":"high","status":"pending"},{"content":"b","priority":"low","status":"pending"}]}})";
    const std::string p2 =
        R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p2","entries":[{"content":"c","priority":"low","status":"pending"}]}})";
    const std::string p1b =
        R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"d","priority":"medium","status":"completed"}]},"_meta":{"x":1}})";
    const std::string markdown =
        R"({"sessionUpdate":"plan_update","plan":{"type":"markdown","planId":"p1","content":"# Plan"}})";
    run({
        {"55 a plan update replaces that plan's whole entry list",
         {p1a, p2, p1b},
         "items[0].plan.entries",
         R"([{"content":"d","priority":"medium","status":"completed"}])"},
        {"55 plans keep their first position", {p1a, p2, p1b}, "items[1].id", R"("p2")"},
        {"plan_update _meta is not stored",
         {p1b},
         "items[0]",
         R"({"kind":"plan","id":"p1","plan":{"type":"items","planId":"p1","entries":[{"content":"d","priority":"medium","status":"completed"}]},"removed":false})"},
        {"64 an unknown plan type replaces the same planId and is kept raw",
         {p1a, markdown},
         "items[0].plan",
         R"({"type":"markdown","planId":"p1","content":"# Plan"})"},
        {"64 an unknown plan type has one item", {p1a, markdown}, "items[1]", "<missing>"},
    });
}

TEST_CASE("session patch: compactions") {
    // CLIENT-MUST-49, CLIENT-MUST-50
    run({
        {"a summary chunk for an unseen id creates an in_progress compaction",
         {R"({"sessionUpdate":"compaction_summary_chunk","compactionId":"k1","content":{"type":"text","text":"s"}})"},
         "items[0]",
         R"({"kind":"compaction","id":"k1","status":"in_progress","summary":[{"type":"text","text":"s"}],"error":null,"_meta":{}})"},
        {"an update replaces status and summary",
         {R"({"sessionUpdate":"compaction_summary_chunk","compactionId":"k1","content":{"type":"text","text":"s"}})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed","summary":[{"type":"text","text":"S"}]})"},
         "items[0].summary",
         R"([{"type":"text","text":"S"}])"},
        {"absent summary keeps, error patched",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"in_progress","summary":[{"type":"text","text":"S"}]})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"failed","error":"disk full"})"},
         "items[0]",
         R"({"kind":"compaction","id":"k1","status":"failed","summary":[{"type":"text","text":"S"}],"error":"disk full","_meta":{}})"},
        {"null summary clears",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"in_progress","summary":[{"type":"text","text":"S"}]})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed","summary":null})"},
         "items[0].summary",
         "[]"},
        {"49 empty summary clears",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"in_progress","summary":[{"type":"text","text":"S"}]})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed","summary":[]})"},
         "items[0]",
         R"({"kind":"compaction","id":"k1","status":"completed","summary":[],"error":null,"_meta":{}})"},
        {"49 null error clears",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"failed","error":"disk full"})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"in_progress","error":null})"},
         "items[0]",
         R"({"kind":"compaction","id":"k1","status":"in_progress","summary":[],"error":null,"_meta":{}})"},
        {"absent error keeps",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"failed","error":"disk full"})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"failed"})"},
         "items[0].error",
         R"("disk full")"},
        {"_meta merges by top-level key",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"in_progress","_meta":{"a":1,"b":2}})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed","_meta":{"b":null,"c":{"x":1}}})"},
         "items[0]._meta",
         R"({"a":1,"c":{"x":1}})"},
        {"_meta null drops all metadata",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"in_progress","_meta":{"a":1}})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed","_meta":null})"},
         "items[0]._meta",
         "{}"},
        {"an unknown status is kept as sent",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"_acme_paused","summary":[{"type":"text","text":"S"}]})"},
         "items[0]",
         R"({"kind":"compaction","id":"k1","status":"_acme_paused","summary":[{"type":"text","text":"S"}],"error":null,"_meta":{}})"},
        {"a known status after an unknown one replaces it",
         {R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"_acme_paused"})",
          R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"cancelled"})"},
         "items[0].status",
         R"("cancelled")"},
    });
}

TEST_CASE("session patch: foreground state snapshots") {
    // CLIENT-MUST-57, CLIENT-MUST-62
    run({
        {"a new session is idle with nothing reported",
         {R"({"sessionUpdate":"usage_update","used":1,"size":2})"},
         "foreground",
         R"({"state":"idle","stopReason":null,"error":null,"raw":null,"background":null,"usage":null})"},
        {"running", {R"({"sessionUpdate":"state_update","state":"running"})"}, "foreground.state", R"("running")"},
        {"requires_action is a known state, not raw",
         {R"({"sessionUpdate":"state_update","state":"requires_action"})"},
         "foreground",
         R"({"state":"requires_action","stopReason":null,"error":null,"raw":null,"background":null,"usage":null})"},
        {"62 requires_action keeps its background snapshot",
         {R"({"sessionUpdate":"state_update","state":"requires_action","background":[{"type":"terminal","terminalId":"t1"}]})"},
         "foreground.background",
         R"([{"type":"terminal","terminalId":"t1"}])"},
        {"requires_action drops the previous stop reason",
         {R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})",
          R"({"sessionUpdate":"state_update","state":"requires_action"})"},
         "foreground",
         R"({"state":"requires_action","stopReason":null,"error":null,"raw":null,"background":null,"usage":null})"},
        {"idle with a stop reason",
         {R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})"},
         "foreground.stopReason",
         R"("end_turn")"},
        {"a custom stop reason is kept",
         {R"({"sessionUpdate":"state_update","state":"idle","stopReason":"_acme_pause"})"},
         "foreground.stopReason",
         R"("_acme_pause")"},
        {"idle with an error",
         {R"({"sessionUpdate":"state_update","state":"idle","stopReason":"error","error":{"code":-32603,"message":"boom"}})"},
         "foreground",
         R"({"state":"idle","stopReason":"error","error":{"code":-32603,"message":"boom"},"raw":null,"background":null,"usage":null})"},
        {"a running snapshot drops the previous stop reason",
         {R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})",
          R"({"sessionUpdate":"state_update","state":"running"})"},
         "foreground.stopReason",
         "null"},
        {"57 an unknown state is kept with its payload",
         {R"({"sessionUpdate":"state_update","state":"unknown","x":1})"},
         "foreground",
         R"({"state":"unknown","stopReason":null,"error":null,"raw":{"state":"unknown","x":1},"background":null,"usage":null})"},
        {"62 background absent is not reported",
         {R"({"sessionUpdate":"state_update","state":"running","background":[]})",
          R"({"sessionUpdate":"state_update","state":"running"})"},
         "foreground.background",
         "null"},
        {"62 background null is not reported",
         {R"({"sessionUpdate":"state_update","state":"idle","background":null})"},
         "foreground.background",
         "null"},
        {"62 background empty means nothing runs",
         {R"({"sessionUpdate":"state_update","state":"idle","background":[]})"},
         "foreground.background",
         "[]"},
        {"background work is kept",
         {R"({"sessionUpdate":"state_update","state":"idle","background":[{"type":"terminal","terminalId":"t1"},{"type":"_x","a":1}]})"},
         "foreground.background",
         R"([{"type":"terminal","terminalId":"t1"},{"type":"_x","a":1}])"},
    });
}

TEST_CASE("session patch: config options, commands, info, usage, notices and unknown variants") {
    // CLIENT-MUST-56, CLIENT-MUST-17, CLIENT-MUST-49
    const std::string options1 =
        R"({"sessionUpdate":"config_option_update","configOptions":[{"configId":"mode","name":"Mode","type":"select","currentValue":"ask","options":[{"value":"ask","name":"Ask"},{"value":"code","name":"Code"}]},{"configId":"fast","name":"Fast","type":"boolean","currentValue":true}]})";
    const std::string options2 =
        R"({"sessionUpdate":"config_option_update","configOptions":[{"configId":"fast","name":"Fast","type":"boolean","currentValue":false}]})";
    const std::string commands1 =
        R"({"sessionUpdate":"available_commands_update","availableCommands":[{"type":"command","name":"plan","description":"Plan"},{"type":"command","name":"web","description":"Search","input":{"type":"text","hint":"query"}}]})";
    const std::string commands2 = R"({"sessionUpdate":"available_commands_update","availableCommands":[]})";
    run({
        {"config options are unreported until sent",
         {R"({"sessionUpdate":"state_update","state":"idle"})"},
         "configOptions",
         "null"},
        {"56 config options are replaced wholesale",
         {options1, options2},
         "configOptions",
         R"([{"configId":"fast","name":"Fast","type":"boolean","currentValue":false}])"},
        {"56 commands are replaced wholesale", {commands1, commands2}, "availableCommands", "[]"},
        {"commands keep their entries", {commands1}, "availableCommands[1].input", R"({"type":"text","hint":"query"})"},
        {"info title is patched",
         {R"({"sessionUpdate":"session_info_update","title":"A","updatedAt":"2026-01-01T00:00:00Z"})",
          R"({"sessionUpdate":"session_info_update","title":null,"_meta":{"k":1}})"},
         "info",
         R"({"title":null,"updatedAt":"2026-01-01T00:00:00Z","cwd":null,"additionalDirectories":null,"_meta":{"k":1}})"},
        {"49 info updatedAt null clears, absent title keeps",
         {R"({"sessionUpdate":"session_info_update","title":"A","updatedAt":"2026-01-01T00:00:00Z"})",
          R"({"sessionUpdate":"session_info_update","updatedAt":null})"},
         "info",
         R"({"title":"A","updatedAt":null,"cwd":null,"additionalDirectories":null,"_meta":{}})"},
        {"49 info _meta null drops all metadata",
         {R"({"sessionUpdate":"session_info_update","title":"A","_meta":{"k":1,"j":2}})",
          R"({"sessionUpdate":"session_info_update","_meta":null})"},
         "info",
         R"({"title":"A","updatedAt":null,"cwd":null,"additionalDirectories":null,"_meta":{}})"},
        {"info _meta merges by top-level key",
         {R"({"sessionUpdate":"session_info_update","_meta":{"k":1,"j":2}})",
          R"({"sessionUpdate":"session_info_update","_meta":{"j":null,"m":3}})"},
         "info._meta",
         R"({"k":1,"m":3})"},
        {"usage replaces used and size, cost absent keeps",
         {R"({"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":0.5,"currency":"USD"}})",
          R"({"sessionUpdate":"usage_update","used":20,"size":100})"},
         "usage",
         R"({"used":20,"size":100,"cost":{"amount":0.5,"currency":"USD"}})"},
        {"usage cost null clears",
         {R"({"sessionUpdate":"usage_update","used":10,"size":100,"cost":{"amount":0.5,"currency":"USD"}})",
          R"({"sessionUpdate":"usage_update","used":20,"size":100,"cost":null})"},
         "usage.cost",
         "null"},
        {"notices are kept in arrival order, outside the history",
         {R"({"sessionUpdate":"notice","severity":"warning","title":"Slow"})",
          R"({"sessionUpdate":"notice","severity":"_x","title":"Y"})"},
         "notices",
         R"([{"severity":"warning","title":"Slow"},{"severity":"_x","title":"Y"}])"},
        {"17 an unknown variant is kept verbatim in the history",
         {R"({"sessionUpdate":"_acme_banner","text":"hi","n":[1,2]})", agent_chunk("m1", text("A"))},
         "items[0]",
         R"({"kind":"unknown","sessionUpdate":"_acme_banner","update":{"sessionUpdate":"_acme_banner","text":"hi","n":[1,2]}})"},
    });
}

TEST_CASE("session patch: an undecodable terminal chunk is reported and dropped") {
    acp::SessionStore store;
    apply_all(store, {terminal_chunk("aGk=")});
    const acp::Status status = store.apply(session_test::notification(terminal_chunk("a*b=")));
    CHECK_FALSE(status.ok());
    CHECK(select(dump(store), "items[0].output") == R"("hi")");
}

TEST_CASE("session patch: a _meta that is not an object is reported and leaves metadata unchanged") {
    acp::SessionStore store;
    apply_all(store, {agent_message("m1", R"(,"_meta":{"a":1})")});
    acp::v2::AgentMessage update;
    update.messageId = "m1";
    update._meta = acp::RawJson{"[1]"};
    update.content = std::vector<acp::v2::ContentBlock>{acp::v2::ContentBlock::make_text({"x", {}, {}, {}})};
    const acp::Status status = store.apply("s1", acp::v2::SessionUpdate::make_agent_message(update));
    CHECK_FALSE(status.ok());
    const std::string json = dump(store);
    CHECK(select(json, "items[0]._meta") == R"({"a":1})");
    CHECK(select(json, "items[0].content") == R"([{"type":"text","text":"x"}])");
}
