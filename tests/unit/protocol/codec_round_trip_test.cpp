// SPDX-License-Identifier: Apache-2.0
// Round trips of representative ACP v2 messages: decode -> encode gives the same JSON.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "protocol/v2/codec.hpp"
#include "unit/protocol/codec_test_util.hpp"

using namespace acp::v2;
using codec_test::decode_ok;
using codec_test::round_trip;

namespace {

std::string notification(const std::string& update) { return R"({"sessionId":"sess-1","update":)" + update + "}"; }

}  // namespace

TEST_CASE("codec round trip: every SessionUpdate variant") {
    const std::vector<std::pair<SessionUpdate::Kind, std::string>> updates = {
        {SessionUpdate::Kind::user_message_chunk,
         R"({"sessionUpdate":"user_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}})"},
        {SessionUpdate::Kind::user_message,
         R"({"sessionUpdate":"user_message","messageId":"m1","content":[{"type":"text","text":"hello"}],"_meta":{"k":1}})"},
        {SessionUpdate::Kind::agent_message_chunk,
         R"({"sessionUpdate":"agent_message_chunk","messageId":"m2","content":{"type":"image","data":"aGk=","mimeType":"image/png"}})"},
        {SessionUpdate::Kind::agent_message,
         R"({"sessionUpdate":"agent_message","messageId":"m2","content":null,"_meta":null})"},
        {SessionUpdate::Kind::agent_thought_chunk,
         R"({"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"hmm"}})"},
        {SessionUpdate::Kind::agent_thought, R"({"sessionUpdate":"agent_thought","messageId":"t1","content":[]})"},
        {SessionUpdate::Kind::state_update,
         R"({"sessionUpdate":"state_update","state":"running","background":[{"type":"terminal","terminalId":"term-1"},{"type":"tool_call","toolCallId":"c1"}]})"},
        {SessionUpdate::Kind::state_update,
         R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})"},
        {SessionUpdate::Kind::state_update,
         R"({"sessionUpdate":"state_update","state":"idle","stopReason":"error","error":{"code":-32603,"message":"boom","data":{"detail":"x"}}})"},
        {SessionUpdate::Kind::state_update,
         R"({"sessionUpdate":"state_update","state":"requires_action","background":null})"},
        {SessionUpdate::Kind::tool_call_content_chunk,
         R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":"c1","content":{"type":"terminal","terminalId":"term-1"}})"},
        {SessionUpdate::Kind::tool_call_update,
         R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","name":"read_file","title":"Read a.txt","kind":"read","status":"in_progress","content":[{"type":"content","content":{"type":"text","text":"ok"}}],"locations":[{"path":"/w/a.txt","line":3}],"rawInput":{"path":"/w/a.txt"},"rawOutput":null,"capabilities":{"cancel":{}}})"},
        {SessionUpdate::Kind::terminal_update,
         R"({"sessionUpdate":"terminal_update","terminalId":"term-1","command":"ls -l","cwd":"/w","output":{"data":"aGk="},"exitStatus":{"exitCode":0,"signal":null},"size":{"cols":80,"rows":24},"capabilities":{"cancel":{}}})"},
        {SessionUpdate::Kind::terminal_output_chunk,
         R"({"sessionUpdate":"terminal_output_chunk","terminalId":"term-1","data":"aGk="})"},
        {SessionUpdate::Kind::plan_update,
         R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p1","entries":[{"content":"Write tests","priority":"high","status":"pending"},{"content":"Ship","priority":"low","status":"completed"}]}})"},
        {SessionUpdate::Kind::available_commands_update,
         R"({"sessionUpdate":"available_commands_update","availableCommands":[{"type":"command","name":"web","description":"Search the web","input":{"type":"text","hint":"query"}}]})"},
        {SessionUpdate::Kind::config_option_update,
         R"({"sessionUpdate":"config_option_update","configOptions":[{"configId":"mode","name":"Mode","type":"select","currentValue":"ask","options":[{"value":"ask","name":"Ask"},{"value":"code","name":"Code","description":"Writes code"}]}]})"},
        {SessionUpdate::Kind::session_info_update,
         R"({"sessionUpdate":"session_info_update","title":"Fix the build","updatedAt":"2026-08-01T10:00:00Z"})"},
        {SessionUpdate::Kind::usage_update,
         R"({"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.25,"currency":"USD"}})"},
        {SessionUpdate::Kind::notice,
         R"({"sessionUpdate":"notice","severity":"warning","title":"Rate limited","description":null})"},
        {SessionUpdate::Kind::compaction_update,
         R"({"sessionUpdate":"compaction_update","compactionId":"k1","status":"completed","summary":[{"type":"text","text":"so far"}],"error":null})"},
        {SessionUpdate::Kind::compaction_summary_chunk,
         R"({"sessionUpdate":"compaction_summary_chunk","compactionId":"k1","content":{"type":"text","text":"more"}})"},
    };
    for (const auto& [kind, update] : updates) {
        const std::string message = notification(update);
        CAPTURE(message);
        const auto decoded = decode_ok<UpdateSessionNotification>(message);
        CHECK(decoded.update.kind() == kind);
        CHECK_ROUND_TRIP(UpdateSessionNotification, message);
    }
}

TEST_CASE("codec round trip: ContentBlock variants") {
    CHECK_ROUND_TRIP(
        ContentBlock,
        R"({"type":"text","text":"hi","annotations":{"audience":["user","assistant"],"lastModified":"2026-01-01","priority":0.5}})");
    CHECK_ROUND_TRIP(ContentBlock, R"({"type":"image","data":"aGk=","mimeType":"image/png","uri":"file:///a.png"})");
    CHECK_ROUND_TRIP(ContentBlock, R"({"type":"audio","data":"aGk=","mimeType":"audio/wav"})");
    CHECK_ROUND_TRIP(
        ContentBlock,
        R"({"type":"resource_link","name":"a.txt","uri":"file:///a.txt","icons":[{"src":"https://x/i.png","sizes":["16x16"],"theme":"dark"}],"mimeType":"text/plain","size":12})");
    CHECK_ROUND_TRIP(ContentBlock,
                     R"({"type":"resource","resource":{"text":"body","uri":"file:///a.txt","mimeType":"text/plain"}})");
    CHECK_ROUND_TRIP(ContentBlock, R"({"type":"resource","resource":{"blob":"aGk=","uri":"file:///a.bin"}})");

    const auto text_resource = decode_ok<ContentBlock>(R"({"type":"resource","resource":{"text":"t","uri":"u"}})");
    REQUIRE(text_resource.resource() != nullptr);
    CHECK(text_resource.resource()->resource.kind() == EmbeddedResourceResource::Kind::text);
    const auto blob_resource = decode_ok<ContentBlock>(R"({"type":"resource","resource":{"blob":"b","uri":"u"}})");
    CHECK(blob_resource.resource()->resource.kind() == EmbeddedResourceResource::Kind::blob);
}

TEST_CASE("codec round trip: ToolCallContent with a structured diff") {
    const std::string diff =
        R"({"type":"diff","changes":[{"operation":"modify","path":"/w/a.txt","fileType":"text","mimeType":"text/plain"},)"
        R"({"operation":"move","oldPath":"/w/b.txt","path":"/w/c.txt"},{"operation":"add","path":"/w/d"}],)"
        R"("patch":{"format":"git_patch","text":"diff --git a/a.txt b/a.txt\n"}})";
    CHECK_ROUND_TRIP(ToolCallContent, diff);

    const auto decoded = decode_ok<ToolCallContent>(diff);
    const Diff* d = decoded.diff();
    REQUIRE(d != nullptr);
    REQUIRE(d->changes.size() == 3);
    CHECK(d->changes[0].operation.kind() == DiffChangeOperation::Kind::modify);
    CHECK(d->changes[0].operation.modify()->path == "/w/a.txt");
    CHECK(d->changes[0].fileType.value() == DiffFileType::text);
    CHECK(d->changes[1].operation.move()->oldPath == "/w/b.txt");
    CHECK(d->changes[1].extra_fields.empty());
    REQUIRE(d->patch.has_value());
    CHECK(d->patch->format == DiffPatchFormat::git_patch);
}

TEST_CASE("codec round trip: a diff whose patch is absent or null") {
    // CLIENT-MUST-63
    const auto absent = decode_ok<Diff>(R"({"changes":[{"operation":"delete","path":"/w/x"}]})");
    CHECK(absent.patch.is_absent());
    const auto null = decode_ok<Diff>(R"({"changes":[],"patch":null})");
    CHECK(null.patch.is_null());
    CHECK_ROUND_TRIP(Diff, R"({"changes":[{"operation":"delete","path":"/w/x"}]})");
    CHECK_ROUND_TRIP(Diff, R"({"changes":[],"patch":null})");
}

TEST_CASE("codec round trip: McpServer variants") {
    CHECK_ROUND_TRIP(
        McpServer,
        R"({"type":"http","name":"docs","url":"https://mcp.example/x","headers":[{"name":"Authorization","value":"Bearer t"}]})");
    CHECK_ROUND_TRIP(
        McpServer,
        R"({"type":"stdio","name":"fs","command":"/usr/bin/mcp-fs","args":["--root","/w"],"env":[{"name":"LOG","value":"1"}]})");
    CHECK_ROUND_TRIP(McpServer, R"({"type":"_acme_sse","name":"legacy","url":"https://x/sse"})");
    const auto stdio = decode_ok<McpServer>(R"({"type":"stdio","name":"fs","command":"/bin/fs"})");
    REQUIRE(stdio.stdio() != nullptr);
    CHECK_FALSE(stdio.stdio()->args.has_value());
}

TEST_CASE("codec round trip: initialize request and response with capabilities") {
    CHECK_ROUND_TRIP(
        InitializeRequest,
        R"({"protocolVersion":2,"info":{"name":"my-ide","title":"My IDE","version":"1.4.0"},)"
        R"("capabilities":{"auth":{"terminal":{}},"elicitation":{"form":{},"url":{}},"_meta":{"acme.dev/x":true}}})");
    const std::string response =
        R"({"protocolVersion":2,"info":{"name":"agent","version":"0.9"},)"
        R"("capabilities":{"session":{"prompt":{"image":{},"audio":null,"embeddedContext":{}},"mcp":{"stdio":{},"http":{}},)"
        R"("delete":{},"additionalDirectories":{}},"auth":{}},)"
        R"("authMethods":[{"type":"agent","methodId":"a","name":"Agent login"},)"
        R"({"type":"terminal","methodId":"t","name":"Terminal","description":"Runs login","args":["--login"],"env":[{"name":"X","value":"1"}]},)"
        R"({"type":"_acme_oauth","methodId":"o","name":"OAuth","url":"https://login"}]})";
    CHECK_ROUND_TRIP(InitializeResponse, response);

    const auto decoded = decode_ok<InitializeResponse>(response);
    REQUIRE(decoded.capabilities.has_value());
    REQUIRE(decoded.capabilities->session.has_value());
    CHECK(decoded.capabilities->session->prompt->audio.is_null());
    CHECK(decoded.capabilities->session->delete_.has_value());
    REQUIRE(decoded.authMethods.has_value());
    REQUIRE(decoded.authMethods->size() == 3);
    CHECK((*decoded.authMethods)[2].kind() == AuthMethod::Kind::unknown);
    CHECK((*decoded.authMethods)[2].tag() == "_acme_oauth");
}

TEST_CASE("codec round trip: permission request and response") {
    CHECK_ROUND_TRIP(
        RequestPermissionRequest,
        R"({"sessionId":"s1","title":"Run a command?","subject":{"type":"command","command":"rm -rf build","cwd":"/w","toolCallId":"c1"},)"
        R"("options":[{"optionId":"o1","name":"Allow once","kind":"allow_once"},{"optionId":"o2","name":"Reject","kind":"reject_once"}]})");
    CHECK_ROUND_TRIP(
        RequestPermissionRequest,
        R"({"sessionId":"s1","title":"Edit?","subject":{"type":"tool_call","toolCall":{"toolCallId":"c2","title":"Edit a.txt","kind":"edit"}},)"
        R"("options":[{"optionId":"o1","name":"Always","kind":"allow_always"}]})");
    CHECK_ROUND_TRIP(RequestPermissionResponse, R"({"outcome":{"outcome":"selected","optionId":"o1"}})");
    CHECK_ROUND_TRIP(RequestPermissionResponse, R"({"outcome":{"outcome":"cancelled"}})");

    const auto selected = decode_ok<RequestPermissionResponse>(R"({"outcome":{"outcome":"selected","optionId":"o1"}})");
    REQUIRE(selected.outcome.selected() != nullptr);
    CHECK(selected.outcome.selected()->optionId == "o1");
}

TEST_CASE("codec round trip: elicitation requests in form and url mode, and the response") {
    const std::string form =
        R"({"message":"Configure","mode":"form","sessionId":"s1","requestedSchema":{"type":"object","properties":{)"
        R"("name":{"type":"string","title":"Name","minLength":1,"format":"email"},)"
        R"("age":{"type":"integer","minimum":0,"default":30},)"
        R"("ratio":{"type":"number","maximum":1.5},)"
        R"("ok":{"type":"boolean","default":true},)"
        R"("color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"b","title":"Blue"}]},)"
        R"("tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1},)"
        R"("picks":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}},"required":["name"]}})";
    CHECK_ROUND_TRIP(CreateElicitationRequest, form);
    const auto decoded = decode_ok<CreateElicitationRequest>(form);
    const ElicitationFormMode* mode = decoded.mode.form();
    REQUIRE(mode != nullptr);
    REQUIRE(mode->scope.session() != nullptr);
    CHECK(mode->scope.session()->sessionId == "s1");
    CHECK(mode->requestedSchema.properties.size() == 7);
    CHECK(mode->requestedSchema.properties[6].second.array()->items.kind() ==
          MultiSelectItems::Kind::titled_multi_select_items);
    CHECK(decoded.extra_fields.empty());

    const std::string url =
        R"({"message":"Sign in","mode":"url","elicitationId":"e1","url":"https://login.example","requestId":7})";
    CHECK_ROUND_TRIP(CreateElicitationRequest, url);
    const auto url_decoded = decode_ok<CreateElicitationRequest>(url);
    REQUIRE(url_decoded.mode.url() != nullptr);
    REQUIRE(url_decoded.mode.url()->scope.request() != nullptr);
    CHECK(url_decoded.mode.url()->scope.request()->requestId.integer() != nullptr);

    CHECK_ROUND_TRIP(
        CreateElicitationResponse,
        R"({"action":"accept","content":{"name":"Bob","age":3,"ratio":0.5,"ok":true,"tags":["a"],"odd":{"x":1}}})");
    CHECK_ROUND_TRIP(CreateElicitationResponse, R"({"action":"decline"})");
    const auto accepted = decode_ok<CreateElicitationResponse>(
        R"({"action":"accept","content":{"n":"x","i":3,"d":0.5,"b":false,"s":["a"]}})");
    const auto& content = accepted.action.accept()->content;
    REQUIRE(content.has_value());
    CHECK(content->at(0).second.kind() == ElicitationContentValue::Kind::string);
    CHECK(content->at(1).second.kind() == ElicitationContentValue::Kind::integer);
    CHECK(content->at(2).second.kind() == ElicitationContentValue::Kind::number);
    CHECK(content->at(3).second.kind() == ElicitationContentValue::Kind::boolean);
    CHECK(content->at(4).second.kind() == ElicitationContentValue::Kind::strings);
}

TEST_CASE("codec round trip: session config options") {
    CHECK_ROUND_TRIP(
        SessionConfigOption,
        R"({"configId":"model","name":"Model","description":"Which model","category":"model","type":"select","currentValue":"fast",)"
        R"("options":[{"groupId":"g1","name":"Fast ones","options":[{"value":"fast","name":"Fast"}]}]})");
    CHECK_ROUND_TRIP(SessionConfigOption,
                     R"({"configId":"yolo","name":"Auto-approve","type":"boolean","currentValue":false})");
    CHECK_ROUND_TRIP(SessionConfigOption, R"({"configId":"x","name":"X","type":"_acme_slider","min":0,"max":10})");

    const auto grouped = decode_ok<SessionConfigOption>(
        R"({"configId":"m","name":"M","type":"select","currentValue":"a","options":[{"groupId":"g","name":"G","options":[{"value":"a","name":"A"}]}]})");
    REQUIRE(grouped.type.select() != nullptr);
    CHECK(grouped.type.select()->options.kind() == SessionConfigSelectOptions::Kind::groups);
    const auto unknown = decode_ok<SessionConfigOption>(R"({"configId":"x","name":"X","type":"_acme_slider","min":0})");
    CHECK(unknown.type.kind() == SessionConfigOptionType::Kind::unknown);
    CHECK(unknown.type.tag() == "_acme_slider");
    CHECK(unknown.type.unknown()->text == R"({"type":"_acme_slider","min":0})");
    CHECK(unknown.configId == "x");
    CHECK(unknown.extra_fields.empty());
}

TEST_CASE("codec round trip: requests the client sends") {
    CHECK_ROUND_TRIP(
        NewSessionRequest,
        R"({"cwd":"/w","additionalDirectories":["/lib"],"mcpServers":[{"type":"stdio","name":"fs","command":"/bin/fs","args":[],"env":[]}]})");
    CHECK_ROUND_TRIP(ResumeSessionRequest, R"({"sessionId":"s1","cwd":"/w","replayFrom":{"type":"start"}})");
    CHECK_ROUND_TRIP(
        PromptRequest,
        R"({"sessionId":"s1","prompt":[{"type":"text","text":"fix it"},{"type":"resource_link","name":"a","uri":"file:///a"}]})");
    CHECK_ROUND_TRIP(SetSessionConfigOptionRequest,
                     R"({"sessionId":"s1","configId":"mode","type":"id","value":"code"})");
    CHECK_ROUND_TRIP(SetSessionConfigOptionRequest,
                     R"({"sessionId":"s1","configId":"yolo","type":"boolean","value":true})");
    CHECK_ROUND_TRIP(CancelRequestNotification, R"({"requestId":"r-7"})");
    CHECK_ROUND_TRIP(CancelRequestNotification, R"({"requestId":7})");
}

TEST_CASE("codec round trip: unknown variants are kept intact") {
    // CLIENT-MUST-17
    const std::string extension = R"({"sessionUpdate":"_acme_x","payload":{"deep":[1,{"a":null}]},"n":1.5})";
    const auto ext = decode_ok<SessionUpdate>(extension);
    CHECK(ext.kind() == SessionUpdate::Kind::unknown);
    CHECK(ext.tag() == "_acme_x");
    REQUIRE(ext.unknown() != nullptr);
    CHECK(ext.unknown()->text == extension);
    CHECK(codec_test::encode(ext) == extension);

    const std::string future = R"({"sessionUpdate":"subagent_update","subagentId":"a1"})";
    CHECK(codec_test::encode(decode_ok<SessionUpdate>(future)) == future);
    CHECK_ROUND_TRIP(UpdateSessionNotification, notification(future));

    CHECK_ROUND_TRIP(ContentBlock, R"({"type":"_acme_video","frames":3})");
    CHECK_ROUND_TRIP(ToolCallContent, R"({"type":"_acme_chart","points":[[1,2]]})");
    CHECK_ROUND_TRIP(StateUpdate, R"({"state":"_acme_paused","until":"later"})");
    CHECK_ROUND_TRIP(UpdateSessionNotification,
                     notification(R"({"sessionUpdate":"state_update","state":"sleeping","background":[]})"));
    CHECK_ROUND_TRIP(DiffChange, R"({"operation":"_acme_chmod","path":"/w/x","mode":"755","fileType":"text"})");
    CHECK_ROUND_TRIP(CreateElicitationRequest, R"({"message":"m","mode":"_acme_voice","sessionId":"s1","voice":"x"})");
    CHECK_ROUND_TRIP(IdleStateUpdate, R"({"stopReason":"_acme_budget","budget":3})");
}

TEST_CASE("codec round trip: unknown enum values are kept") {
    // CLIENT-MUST-17
    const auto update = decode_ok<ToolCallUpdate>(R"({"toolCallId":"c","kind":"_acme_teleport","status":"queued"})");
    CHECK(update.kind->value == "_acme_teleport");
    CHECK_FALSE(update.kind->is_known());
    CHECK(update.status->value == "queued");
    CHECK_ROUND_TRIP(ToolCallUpdate, R"({"toolCallId":"c","kind":"_acme_teleport","status":"queued"})");
    CHECK_ROUND_TRIP(PlanEntry, R"({"content":"x","priority":"urgent","status":"blocked"})");
    CHECK_ROUND_TRIP(Error, R"({"code":-31999,"message":"custom"})");
}

TEST_CASE("codec round trip: unknown members and _meta survive") {
    const std::string text =
        R"({"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m",)"
        R"("content":{"type":"text","text":"hi","_meta":{"traceparent":"00-ab","nested":{"a":[1,2]}},"zz_future":[true]},)"
        R"("_meta":{"k":"v"},"futureField":{"x":1}},"_meta":null,"topLevelExtra":"e"})";
    CHECK_ROUND_TRIP(UpdateSessionNotification, text);

    const auto decoded = decode_ok<UpdateSessionNotification>(text);
    CHECK(decoded._meta.is_null());
    REQUIRE(decoded.extra_fields.size() == 1);
    CHECK(decoded.extra_fields[0].first == "topLevelExtra");
    CHECK(decoded.extra_fields[0].second.text == R"("e")");
    const ContentChunk* chunk = decoded.update.agent_message_chunk();
    REQUIRE(chunk != nullptr);
    CHECK(chunk->_meta.value().text == R"({"k":"v"})");
    REQUIRE(chunk->extra_fields.size() == 1);
    CHECK(chunk->extra_fields[0].first == "futureField");
    const TextContent* content = chunk->content.text();
    REQUIRE(content != nullptr);
    CHECK(content->_meta->text == R"({"traceparent":"00-ab","nested":{"a":[1,2]}})");
    CHECK(content->extra_fields[0].first == "zz_future");
}

TEST_CASE("codec round trip: known members in schema order come back byte for byte") {
    const std::string text =
        R"({"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":null,"status":"completed",)"
        R"("content":[{"type":"diff","changes":[{"fileType":"text","operation":"add","path":"/w/n.txt"}],"patch":null}],"rawOutput":{"ok":true}},"_meta":{"a":1}})";
    CHECK(round_trip<UpdateSessionNotification>(text) == text);
}
