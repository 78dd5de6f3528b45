// SPDX-License-Identifier: Apache-2.0
// Decoding rules: error paths, known tags with bad bodies, patch fields, schema annotations.
#include <doctest/doctest.h>

#include <string>

#include "protocol/v2/codec.hpp"
#include "unit/protocol/codec_test_util.hpp"

using namespace acp::v2;
using codec_test::decode_error;
using codec_test::decode_ok;

TEST_CASE("codec decode: an error names the JSON path of the first problem") {
    CHECK(
        decode_error<PromptRequest>(
            R"({"sessionId":"s","prompt":[{"type":"text","text":"a"},{"type":"text","text":"b"},{"type":7,"text":"c"}]})") ==
        "$.prompt[2].type: expected string");
    CHECK(
        decode_error<UpdateSessionNotification>(
            R"({"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":5}}})") ==
        "$.update.content.text: expected string");
    CHECK(decode_error<UpdateSessionNotification>(R"({"update":{"sessionUpdate":"usage_update","used":1,"size":2}})") ==
          "$.sessionId: required member missing");
    CHECK(decode_error<UpdateSessionNotification>(
              R"({"sessionId":"s","update":{"sessionUpdate":"usage_update","used":-1,"size":2}})") ==
          "$.update.used: expected unsigned integer");
    CHECK(decode_error<InitializeRequest>(R"({"protocolVersion":70000,"info":{"name":"a","version":"1"}})") ==
          "$.protocolVersion: out of range [0, 65535]");
    CHECK(decode_error<RequestPermissionRequest>(R"({"sessionId":"s","title":"t","options":[]})") ==
          "$.options: expected at least 1 item(s)");
    CHECK(decode_error<CancelRequestNotification>(R"({"requestId":true})") == "$.requestId: expected integer | string");
    CHECK(decode_error<UpdateSessionNotification>("[]") == "$: expected object");
}

TEST_CASE("codec decode: a known tag with a malformed body is an error, not an unknown variant") {
    // CLIENT-MUST-18
    CHECK(decode_error<SessionUpdate>(R"({"sessionUpdate":"agent_message_chunk","messageId":"m"})") ==
          "$.content: required member missing");
    CHECK(decode_error<ContentBlock>(R"({"type":"text"})") == "$.text: required member missing");
    CHECK(decode_error<McpServer>(R"({"type":"stdio","name":"x","command":3})") == "$.command: expected string");
    CHECK(decode_error<DiffChange>(R"({"operation":"move","path":"/a"})") == "$.oldPath: required member missing");
    CHECK(decode_error<RequestPermissionOutcome>(R"({"outcome":"selected"})") == "$.optionId: required member missing");
    CHECK(decode_error<SessionUpdate>(R"({"sessionUpdate":"state_update","state":"running","background":[]})").empty());
    CHECK(decode_error<SessionUpdate>(R"({"sessionUpdate":"state_update"})") == "$.state: required member missing");
}

TEST_CASE("codec decode: an unknown variant must still carry the members its catch-all requires") {
    CHECK(decode_error<AuthMethod>(R"({"type":"_acme","methodId":"m"})") == "$.name: required member missing");
    CHECK(decode_error<PlanUpdateContent>(R"({"type":"_acme_tree","planId":4})") == "$.planId: expected string");
    CHECK(decode_error<CreateElicitationRequest>(R"({"message":"m","mode":"_acme"})") ==
          "$: expected ElicitationSessionScope | ElicitationRequestScope ($.sessionId: required member missing)");
}

TEST_CASE("codec decode: a discriminator that is missing or not a string is an error") {
    CHECK(decode_error<ContentBlock>(R"({"text":"x"})") == "$.type: required member missing");
    CHECK(decode_error<ContentBlock>(R"({"type":null,"text":"x"})") == "$.type: expected string");
}

TEST_CASE("codec decode: a closed enum rejects values it does not list") {
    CHECK(decode_error<ElicitationSchema>(R"({"type":"array","properties":{}})") == "$.type: unknown value \"array\"");
    CHECK(decode_ok<ElicitationSchema>(R"({"type":"object","properties":{}})").type == ElicitationSchemaType::object);
}

TEST_CASE("codec decode: absent, null and a value stay distinct for a patch field") {
    // CLIENT-MUST-49
    const auto absent = decode_ok<ToolCallUpdate>(R"({"toolCallId":"c"})");
    const auto null = decode_ok<ToolCallUpdate>(R"({"toolCallId":"c","title":null})");
    const auto value = decode_ok<ToolCallUpdate>(R"({"toolCallId":"c","title":"Read"})");
    CHECK(absent.title.is_absent());
    CHECK(null.title.is_null());
    REQUIRE(value.title.has_value());
    CHECK(*value.title == "Read");
    CHECK(absent.title != null.title);

    CHECK(codec_test::encode(absent) == R"({"toolCallId":"c"})");
    CHECK(codec_test::encode(null) == R"({"toolCallId":"c","title":null})");
    CHECK(codec_test::encode(value) == R"({"toolCallId":"c","title":"Read"})");

    const auto meta_null = decode_ok<ToolCallUpdate>(R"({"toolCallId":"c","_meta":null,"rawInput":null})");
    CHECK(meta_null._meta.is_null());
    CHECK(meta_null.rawInput.is_null());
}

TEST_CASE("codec decode: an optional stop reason is absent, null, known or kept when unknown") {
    CHECK(decode_ok<IdleStateUpdate>(R"({})").stopReason.is_absent());
    CHECK(decode_ok<IdleStateUpdate>(R"({"stopReason":null})").stopReason.is_null());
    const auto error = decode_ok<IdleStateUpdate>(R"({"stopReason":"error","error":{"code":-32603,"message":"x"}})");
    REQUIRE(error.stopReason.has_value());
    REQUIRE(error.stopReason->error() != nullptr);
    CHECK(error.stopReason->error()->error->code == ErrorCode::internal_error);
    const auto future = decode_ok<IdleStateUpdate>(R"({"stopReason":"max_budget"})");
    CHECK(future.stopReason->kind() == IdleStateUpdateStopReason::Kind::unknown);
    CHECK(future.stopReason->tag() == "max_budget");
}

TEST_CASE("codec decode: default-on-error makes a malformed optional member absent") {
    const auto update = decode_ok<ToolCallUpdate>(
        R"({"toolCallId":"c","title":5,"kind":["x"],"locations":"nowhere","capabilities":3,"_meta":"not an object"})");
    CHECK(update.title.is_absent());
    CHECK(update.kind.is_absent());
    CHECK(update.locations.is_absent());
    CHECK(update.capabilities.is_absent());
    CHECK(update._meta.is_absent());
    CHECK(update.extra_fields.empty());
    CHECK(codec_test::encode(update) == R"({"toolCallId":"c"})");

    // a required member gets no such leniency, unless it carries the annotation too
    CHECK(decode_error<ToolCallUpdate>(R"({"toolCallId":5})") == "$.toolCallId: expected string");
    CHECK(decode_ok<ListSessionsResponse>(R"({"sessions":"broken"})").sessions.empty());
    CHECK(decode_error<ListSessionsResponse>(R"({})") == "$.sessions: required member missing");
    // nor does an optional member without the annotation
    CHECK(decode_error<ListSessionsRequest>(R"({"cwd":5})") == "$.cwd: expected string");
}

TEST_CASE("codec decode: skip-invalid-items drops bad elements and keeps the rest") {
    const auto update = decode_ok<ToolCallUpdate>(
        R"({"toolCallId":"c","content":[{"type":"content","content":{"type":"text","text":"a"}},{"type":"diff"},7,)"
        R"({"type":"terminal","terminalId":"t"}],"locations":[{"path":"/a"},{"line":2},{"path":"/b","line":0}]})");
    REQUIRE(update.content.has_value());
    REQUIRE(update.content->size() == 2);
    CHECK((*update.content)[0].kind() == ToolCallContent::Kind::content);
    CHECK((*update.content)[1].kind() == ToolCallContent::Kind::terminal);
    REQUIRE(update.locations->size() == 2);
    CHECK((*update.locations)[1].path == "/b");
    CHECK((*update.locations)[1].line.is_absent());  // below its minimum of 1: default-on-error

    const auto commands = decode_ok<AvailableCommandsUpdate>(
        R"({"availableCommands":[{"type":"command","name":"a","description":"d"},{"type":"command"},{"type":"_acme","name":"b","description":"d"}]})");
    REQUIRE(commands.availableCommands.size() == 2);
    CHECK(commands.availableCommands[1].tag() == "_acme");
}

TEST_CASE("codec decode: default-on-null reads a null array as empty") {
    const auto server = decode_ok<McpServerStdio>(R"({"name":"fs","command":"/bin/fs","args":null,"env":null})");
    REQUIRE(server.args.has_value());
    CHECK(server.args->empty());
    REQUIRE(server.env.has_value());
    CHECK(server.env->empty());
}

TEST_CASE("codec decode: a request id keeps its JSON type") {
    const auto by_number = decode_ok<CancelRequestNotification>(R"({"requestId":7})");
    const auto by_string = decode_ok<CancelRequestNotification>(R"({"requestId":"7"})");
    REQUIRE(by_number.requestId.integer() != nullptr);
    CHECK(*by_number.requestId.integer() == 7);
    REQUIRE(by_string.requestId.string() != nullptr);
    CHECK(*by_string.requestId.string() == "7");
    CHECK(by_number.requestId != by_string.requestId);
}

TEST_CASE("codec decode: decoding into a used value starts from scratch") {
    auto update = decode_ok<ToolCallUpdate>(R"({"toolCallId":"c","title":"x","zz":1})");
    REQUIRE(codec_test::decode(R"({"toolCallId":"d"})", update).ok());
    CHECK(update.toolCallId == "d");
    CHECK(update.title.is_absent());
    CHECK(update.extra_fields.empty());
}
