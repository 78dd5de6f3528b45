// SPDX-License-Identifier: Apache-2.0
// The canonical JSON dump: every member, fixed order, deterministic.
#include <doctest/doctest.h>

#include <string>

#include "unit/session/session_test_util.hpp"

using session_test::apply_all;
using session_test::dump;

TEST_CASE("session json: an empty session dumps every member with null for not reported") {
    acp::SessionStore store;
    store.begin_replay("s1");
    CHECK(
        dump(store) ==
        R"({"sessionId":"s1","foreground":{"state":"idle","stopReason":null,"error":null,"raw":null,"background":null,"usage":null},)"
        R"("items":[],"configOptions":null,"availableCommands":null,)"
        R"("info":{"title":null,"updatedAt":null,"cwd":null,"additionalDirectories":null,"_meta":{}},"usage":null,"notices":[]})");
}

TEST_CASE("session json: a whole session dumps in a fixed member order") {
    acp::SessionStore store;
    apply_all(
        store,
        {
            R"({"sessionUpdate":"state_update","state":"running"})",
            R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"Fix it"}]})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"Run tests","kind":"execute","rawInput":{"command":"make"},"content":[{"type":"terminal","terminalId":"t1"}]})",
            R"({"sessionUpdate":"terminal_update","terminalId":"t1","command":"make","output":{"data":"b2sK"},"exitStatus":{"exitCode":0},"_meta":{"z":1,"a":2}})",
            R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"})",
            R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed"})",
            R"({"sessionUpdate":"_acme_banner","text":"hi"})",
            R"({"sessionUpdate":"available_commands_update","availableCommands":[{"type":"command","name":"plan","description":"Plan"}]})",
            R"({"sessionUpdate":"session_info_update","title":"Flaky test"})",
            R"({"sessionUpdate":"usage_update","used":1200,"size":200000})",
            R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})",
        });
    CHECK(
        dump(store) ==
        R"({"sessionId":"s1","foreground":{"state":"idle","stopReason":"end_turn","error":null,"raw":null,"background":null,"usage":null},"items":[)"
        R"({"kind":"user_message","id":"u1","content":[{"type":"text","text":"Fix it"}],"_meta":{}},)"
        R"({"kind":"tool_call","id":"c1","name":null,"title":"Run tests","toolKind":"execute","status":"completed",)"
        R"("content":[{"type":"terminal","terminalId":"t1"}],"locations":[],"rawInput":{"command":"make"},"rawOutput":null,"capabilities":null,"_meta":{}},)"
        R"({"kind":"terminal","id":"t1","command":"make","cwd":null,"output":"ok\n","outputBytes":3,"exitStatus":{"exitCode":0},)"
        R"("size":null,"capabilities":null,"_meta":{"a":2,"z":1}},)"
        R"({"kind":"compaction","id":"k1","status":"completed","summary":[],"error":null,"_meta":{}},)"
        R"({"kind":"unknown","sessionUpdate":"_acme_banner","update":{"sessionUpdate":"_acme_banner","text":"hi"}}],)"
        R"("configOptions":null,"availableCommands":[{"type":"command","name":"plan","description":"Plan"}],)"
        R"("info":{"title":"Flaky test","updatedAt":null,"cwd":null,"additionalDirectories":null,"_meta":{}},)"
        R"("usage":{"used":1200,"size":200000,"cost":null},"notices":[]})");
}
