// SPDX-License-Identifier: Apache-2.0
// What the client writes is exactly what the protocol allows, whatever the host hands it
// and whatever the agent does (issue 27): checked on the wire, against an agent scripted
// byte by byte.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/session.hpp"
#include "acp/turn.hpp"
#include "protocol/v2/codec.hpp"
#include "unit/client/scripted_client.hpp"
#include "unit/protocol/codec_test_util.hpp"

using acp::Errc;
using acp::Result;
namespace v2 = acp::v2;

using acp::test::Scripted;

namespace {

constexpr const char* kAllSessionFeatures =
    R"({"protocolVersion":2,"info":{"name":"scripted","version":"1"},"capabilities":{"session":{)"
    R"("prompt":{},"mcp":{"stdio":{},"http":{}},"additionalDirectories":{}}}})";

// Runs a call whose callback gets a Result<T>; returns it once it ran.
template <class T, class Start>
Result<T> run_call(Scripted& s, Start&& start) {
    std::optional<Result<T>> done;
    start([&done](Result<T> r) { done.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    return std::move(*done);
}

// Whether the client wrote any line containing fragment.
bool sent(const Scripted& s, const std::string& fragment) {
    for (const auto& line : s.agent->lines) {
        if (line.find(fragment) != std::string::npos) return true;
    }
    return false;
}

v2::PromptRequest text_prompt(const std::string& session, const std::string& text) {
    v2::PromptRequest prompt;
    prompt.sessionId = session;
    v2::TextContent block;
    block.text = text;
    prompt.prompt.push_back(v2::ContentBlock::make_text(block));
    return prompt;
}

v2::McpServer stdio_server(const std::string& name) {
    v2::McpServerStdio stdio;
    stdio.name = name;
    stdio.command = "/bin/" + name;
    return v2::McpServer::make_stdio(stdio);
}

}  // namespace

// --- host extra_fields ---------------------------------------------------------------------

TEST_CASE("exactness: extra_fields cannot carry a member the request defines or the gate checks") {
    Scripted s;
    s.initialize(kAllSessionFeatures);
    const std::size_t before = s.agent->lines.size();
    // A member the typed request has: it would be sent twice (and skip the gate).
    v2::NewSessionRequest twice;
    twice.cwd = "/work";
    twice.mcpServers = std::vector<v2::McpServer>{stdio_server("db")};
    twice.extra_fields.emplace_back("mcpServers", acp::RawJson{R"([{"name":"x","type":"sse","url":"http://x"}])"});
    auto refused = run_call<v2::NewSessionResponse>(s, [&](auto done) { s.client->new_session(twice, done); });
    CHECK(refused.status().code() == Errc::invalid_argument);
    CHECK(refused.status().message().find("'mcpServers'") != std::string::npos);
    // One the typed request leaves out: it would reach the agent unchecked.
    v2::NewSessionRequest unchecked;
    unchecked.cwd = "/work";
    unchecked.extra_fields.emplace_back("additionalDirectories", acp::RawJson{R"(["relative"])"});
    refused = run_call<v2::NewSessionResponse>(s, [&](auto done) { s.client->new_session(unchecked, done); });
    CHECK(refused.status().message().find("'additionalDirectories'") != std::string::npos);
    // One only the unstable schema defines, gated on a capability (session.systemPrompt).
    v2::ResumeSessionRequest resume;
    resume.sessionId = "s-1";
    resume.cwd = "/work";
    resume.extra_fields.emplace_back("systemPrompt",
                                     acp::RawJson{R"({"mode":"override","content":[{"type":"text","text":"x"}]})"});
    auto resumed = run_call<v2::ResumeSessionResponse>(s, [&](auto done) { s.client->resume_session(resume, done); });
    CHECK(resumed.status().message().find("'systemPrompt'") != std::string::npos);
    // _meta has its own field.
    v2::PromptRequest meta = text_prompt("s-1", "hi");
    meta.extra_fields.emplace_back("_meta", acp::RawJson{"{}"});
    auto prompted = run_call<v2::PromptResponse>(s, [&](auto done) { s.client->prompt(meta, done); });
    CHECK(prompted.status().message().find("'_meta'") != std::string::npos);
    // Inside the request too: a content block naming its own member again.
    v2::PromptRequest nested = text_prompt("s-1", "hi");
    v2::TextContent text;
    text.text = "shown";
    text.extra_fields.emplace_back("text", acp::RawJson{R"("hidden")"});
    nested.prompt = {v2::ContentBlock::make_text(text)};
    prompted = run_call<v2::PromptResponse>(s, [&](auto done) { s.client->prompt(nested, done); });
    CHECK(prompted.status().code() == Errc::invalid_argument);
    CHECK(prompted.status().message().find("'prompt[0].text'") != std::string::npos);
    CHECK(s.agent->lines.size() == before);  // nothing was sent
    // Members nobody defines still go out, once.
    v2::NewSessionRequest custom;
    custom.cwd = "/work";
    custom.extra_fields.emplace_back("_acme", acp::RawJson{"1"});
    std::optional<Result<v2::NewSessionResponse>> created;
    s.client->new_session(custom, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    s.answer_next(R"({"sessionId":"s-2"})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    CHECK(created->ok());
    CHECK(sent(s, R"("cwd":"/work","_acme":1})"));
}

// --- strings that are not UTF-8 -----------------------------------------------------------

TEST_CASE("exactness: host strings that are not valid UTF-8 are refused before sending") {
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    const std::size_t before = s.agent->lines.size();
    v2::NewSessionRequest latin1;
    latin1.cwd = "/home/caf\xe9";  // Latin-1 é
    auto refused = run_call<v2::NewSessionResponse>(s, [&](auto done) { s.client->new_session(latin1, done); });
    CHECK(refused.status().code() == Errc::invalid_argument);
    CHECK(refused.status().message().find("UTF-8") != std::string::npos);
    CHECK(refused.status().message().find("cwd") != std::string::npos);
    auto prompted = run_call<v2::PromptResponse>(
        s, [&](auto done) { s.client->prompt(text_prompt("s-1", "ok \xc3\x28 no"), done); });
    CHECK(prompted.status().code() == Errc::invalid_argument);
    CHECK(prompted.status().message().find("UTF-8") != std::string::npos);
    // A lone surrogate encoded as UTF-8 (CESU) is not UTF-8 either.
    prompted =
        run_call<v2::PromptResponse>(s, [&](auto done) { s.client->prompt(text_prompt("s-1", "\xed\xa0\x80"), done); });
    CHECK(prompted.status().code() == Errc::invalid_argument);
    s.client->cancel("s-1\xff");
    auto ext = s.client->ext_notification("_acme\xff", acp::RawJson{"{}"});
    CHECK(ext.code() == Errc::invalid_argument);
    s.loop.run_for(std::chrono::milliseconds(20));
    CHECK(s.agent->lines.size() == before);
    // Valid multi-byte text goes out as it is.
    std::optional<Result<v2::PromptResponse>> accepted;
    s.client->prompt(text_prompt("s-1", "caf\xc3\xa9 \xf0\x9f\x98\x80"),
                     [&](Result<v2::PromptResponse> r) { accepted.emplace(std::move(r)); });
    s.answer_next(R"({"messageId":"u1"})");
    REQUIRE(s.loop.run_until([&] { return accepted.has_value(); }));
    CHECK(accepted->ok());
}

TEST_CASE("exactness: a client info that is not valid UTF-8 fails initialize without sending it") {
    acp::ClientOptions options;
    options.info.name = "ide\xe9";
    options.info.version = "1";
    Scripted s(options);
    auto init = run_call<v2::InitializeResponse>(s, [&](auto done) { s.client->initialize(done); });
    CHECK(init.status().code() == Errc::invalid_argument);
    CHECK(init.status().message().find("UTF-8") != std::string::npos);
    CHECK(s.agent->lines.empty());
}

// --- per-entity capabilities ---------------------------------------------------------------

TEST_CASE("exactness: a malformed per-entity capabilities value means no controls") {
    // CLIENT-MUST-36; CLIENT-GUIDE 3: "a malformed per-entity capabilities value counts as
    // no controls".
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1",
             R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"t","capabilities":{"cancel":{}}})");
    s.update("s-1", R"({"sessionUpdate":"terminal_update","terminalId":"t1","capabilities":{"cancel":{}}})");
    s.update("s-1", R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","capabilities":"cancel"})");
    s.update("s-1", R"({"sessionUpdate":"terminal_update","terminalId":"t1","capabilities":[{"cancel":{}}]})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 4; }));
    const std::size_t before = s.agent->lines.size();
    auto tool =
        run_call<v2::CancelToolCallResponse>(s, [&](auto done) { s.client->cancel_tool_call("s-1", "c1", done); });
    CHECK(tool.status().message().find("CLIENT-MUST-36") != std::string::npos);
    auto terminal =
        run_call<v2::CancelTerminalResponse>(s, [&](auto done) { s.client->cancel_terminal("s-1", "t1", done); });
    CHECK(terminal.status().message().find("CLIENT-MUST-36") != std::string::npos);
    CHECK(s.agent->lines.size() == before);
}

TEST_CASE("exactness: a permission subject with malformed capabilities takes the tool call's controls away") {
    Scripted s;
    std::optional<acp::PermissionResponder> held;
    s.client->on_permission_request([&](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { held = r; });
    s.initialize();
    s.open_session("s-1");
    s.update("s-1",
             R"({"sessionUpdate":"tool_call_update","toolCallId":"c1","title":"t","capabilities":{"cancel":{}}})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s-1","title":"ok?",)"
        R"("subject":{"type":"tool_call","toolCall":{"toolCallId":"c1","capabilities":7}},)"
        R"("options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}})");
    REQUIRE(s.loop.run_until([&] { return held.has_value(); }));
    auto tool =
        run_call<v2::CancelToolCallResponse>(s, [&](auto done) { s.client->cancel_tool_call("s-1", "c1", done); });
    CHECK(tool.status().message().find("CLIENT-MUST-36") != std::string::npos);
    held->cancel();
}

// --- initialize ----------------------------------------------------------------------------

TEST_CASE("exactness: a v1 initialize carries only v1 members") {
    // CLIENT-GUIDE 1.5: custom fields never at the root of a spec-defined object.
    acp::ClientOptions options;
    options.protocol_version = 1;
    options.info.name = "ide";
    options.info.title = "The IDE";
    options.info.version = "2";
    Scripted s(options);
    s.client->initialize([](Result<v2::InitializeResponse>) {});
    REQUIRE(s.loop.run_until([&] { return !s.agent->lines.empty(); }));
    auto request = s.agent->parsed(0);
    const auto& params = request["params"];
    for (auto member = params.MemberBegin(); member != params.MemberEnd(); ++member) {
        const std::string name = member->name.GetString();
        INFO(name);
        CHECK((name == "protocolVersion" || name == "clientCapabilities" || name == "clientInfo" || name == "_meta"));
    }
    CHECK(params["clientInfo"]["title"] == "The IDE");
}

TEST_CASE("exactness: a second initialize while one is in flight is refused, not sent") {
    // CLIENT-GUIDE 2.1: initialize may be repeated, but not pipelined.
    Scripted s;
    std::optional<Result<v2::InitializeResponse>> first;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { first.emplace(std::move(r)); });
    auto second = run_call<v2::InitializeResponse>(s, [&](auto done) { s.client->initialize(done); });
    CHECK(second.status().code() == Errc::invalid_argument);
    CHECK(second.status().message().find("in flight") != std::string::npos);
    CHECK(s.agent->lines.size() == 1);
    s.agent->send_line(R"({"jsonrpc":"2.0","id":0,"result":)" + std::string(acp::test::kInitializeResult) + "}");
    REQUIRE(s.loop.run_until([&] { return first.has_value(); }));
    CHECK(first->ok());
    CHECK(s.agent->lines.size() == 1);
}

// --- the client's own requests ------------------------------------------------------------

TEST_CASE("exactness: a withdrawn prompt reports the agent's real answer") {
    // CLIENT-GUIDE 4.12: after $/cancel_request expect -32800, or the normal result.
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    std::optional<Result<v2::PromptResponse>> inserted;
    acp::RequestHandle handle = s.client->prompt(text_prompt("s-1", "one"),
                                                 [&](Result<v2::PromptResponse> r) { inserted.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() == 3; }));
    CHECK(s.client->cancel_request(handle));
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() == 4; }));
    CHECK(s.agent->lines[3] ==
          R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":)" + std::to_string(handle.id) + "}}");
    s.loop.run_for(std::chrono::milliseconds(20));
    CHECK_FALSE(inserted.has_value());              // the agent has not answered yet
    CHECK_FALSE(s.client->cancel_request(handle));  // withdrawn once
    // The agent had already inserted the message: the prompt succeeded after all.
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(handle.id) + R"(,"result":{"messageId":"u1"}})");
    REQUIRE(s.loop.run_until([&] { return inserted.has_value(); }));
    REQUIRE(inserted->ok());
    CHECK(inserted->value().messageId == "u1");

    std::optional<Result<v2::PromptResponse>> withdrawn;
    handle = s.client->prompt(text_prompt("s-1", "two"),
                              [&](Result<v2::PromptResponse> r) { withdrawn.emplace(std::move(r)); });
    REQUIRE(s.client->cancel_request(handle));
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() == 6; }));
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(handle.id) +
                       R"(,"error":{"code":-32800,"message":"Request cancelled"}})");
    REQUIRE(s.loop.run_until([&] { return withdrawn.has_value(); }));
    CHECK(withdrawn->status().code() == Errc::cancelled);
    CHECK(withdrawn->status().rpc_code() == -32800);
}

TEST_CASE("exactness: a prompt turn withdrawn too late follows the turn the agent ran") {
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    std::optional<Result<acp::TurnEnd>> end;
    acp::RequestHandle handle =
        acp::prompt_turn(*s.client, "s-1", "hi", nullptr, [&](Result<acp::TurnEnd> r) { end.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() == 3; }));
    REQUIRE(s.client->cancel_request(handle));
    s.update("s-1", R"({"sessionUpdate":"state_update","state":"running"})");
    s.update("s-1", R"({"sessionUpdate":"user_message","messageId":"u1","content":[{"type":"text","text":"hi"}]})");
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(handle.id) + R"(,"result":{"messageId":"u1"}})");
    s.update("s-1", R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})");
    REQUIRE(s.loop.run_until([&] { return end.has_value(); }));
    REQUIRE_MESSAGE(end->ok(), end->status().to_string());
    CHECK(end->value().user_message_id == "u1");
    CHECK(end->value().ended_normally());
}

// --- the agent's requests ------------------------------------------------------------------

TEST_CASE("exactness: an agent request reusing a pending id never gets two responses for that id") {
    Scripted s;
    std::vector<acp::PermissionResponder> held;
    s.client->on_permission_request(
        [&](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { held.push_back(r); });
    s.initialize();
    s.open_session("s-1");
    const std::string request =
        R"({"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s-1","title":"ok?",)"
        R"("options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}})";
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(request);
    REQUIRE(s.loop.run_until([&] { return held.size() == 1; }));
    s.agent->send_line(request);  // the same id while the first is unanswered
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() == before + 1; }));
    held[0].select("y");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() == before + 2; }));
    s.loop.run_for(std::chrono::milliseconds(20));
    int for_p1 = 0;
    for (std::size_t i = before; i < s.agent->lines.size(); ++i) {
        auto line = s.agent->parsed(i);
        if (line["id"].IsString() && line["id"] == "p1") ++for_p1;
        if (line.HasMember("error")) {
            CHECK(line["id"].IsNull());
            CHECK(line["error"]["code"].GetInt() == -32600);
        }
    }
    CHECK(for_p1 == 1);
    CHECK(held.size() == 1);
}

// --- what the agent advertised -------------------------------------------------------------

TEST_CASE("exactness: a '_' replay cursor is sent only when the agent advertises it") {
    // CLIENT-MUST-47: an extension cursor is advertised as a key of session._meta.
    Scripted plain;
    plain.initialize();
    v2::ResumeSessionRequest request;
    request.sessionId = "s-1";
    request.cwd = "/work";
    REQUIRE(
        v2::codec::decode(codec_test::parse(R"({"type":"_after","entry":"m1"})"), request.replayFrom.emplace()).ok());
    const std::size_t before = plain.agent->lines.size();
    auto refused =
        run_call<v2::ResumeSessionResponse>(plain, [&](auto done) { plain.client->resume_session(request, done); });
    CHECK(refused.status().message().find("CLIENT-MUST-47") != std::string::npos);
    CHECK(plain.agent->lines.size() == before);

    Scripted advertised;
    advertised.initialize(R"({"protocolVersion":2,"info":{"name":"scripted","version":"1"},)"
                          R"("capabilities":{"session":{"_meta":{"_after":{}}}}})");
    std::optional<Result<v2::ResumeSessionResponse>> resumed;
    advertised.client->resume_session(request,
                                      [&](Result<v2::ResumeSessionResponse> r) { resumed.emplace(std::move(r)); });
    advertised.answer_next("{}");
    REQUIRE(advertised.loop.run_until([&] { return resumed.has_value(); }));
    CHECK(resumed->ok());
    CHECK(sent(advertised, R"("replayFrom":{"type":"_after","entry":"m1"})"));
}

TEST_CASE("exactness: elicitation modes are judged by what initialize advertised") {
    // CLIENT-MUST-26, -72: a handler installed after initialize was never advertised.
    Scripted s;
    s.initialize();
    int asked = 0;
    s.client->on_elicitation(true, true, [&](const v2::CreateElicitationRequest&, acp::ElicitationResponder r) {
        ++asked;
        r.decline();
    });
    s.open_session("s-1");
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"form","sessionId":"s-1","message":"m","requestedSchema":{"type":"object","properties":{}}}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
    auto answer = s.agent->parsed(before);
    CHECK(answer["id"] == "e1");
    CHECK(answer["error"]["code"].GetInt() == -32602);
    CHECK(asked == 0);
}
