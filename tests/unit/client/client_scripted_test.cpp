// SPDX-License-Identifier: Apache-2.0
// The Client against an agent scripted byte by byte (over a socket pair), for the
// orderings and malformed input a well-behaved peer never produces.
#include <doctest/doctest.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/session.hpp"
#include "protocol/v2/codec.hpp"
#include "unit/client/scripted_client.hpp"
#include "unit/protocol/codec_test_util.hpp"

using acp::Errc;
using acp::Result;
namespace v2 = acp::v2;

using acp::test::Scripted;

TEST_CASE("client: updates that precede the session/new answer are held, then delivered before its callback") {
    // AGENT-MUST-07 (updates may come first), CLIENT-MUST-48 (in order), CLIENT-MUST-59.
    Scripted s;
    s.initialize();
    std::size_t updates_at_callback = 99;
    std::string state_at_callback;
    std::optional<Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) {
        updates_at_callback = s.updates.size();
        const acp::SessionState* state = s.client->sessions().find("s-9");
        state_at_callback = state != nullptr ? state->foreground().state : "(no session)";
        created.emplace(std::move(r));
    });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    s.update("s-9", R"({"sessionUpdate":"state_update","state":"running"})");
    s.update("s-9",
             R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}})");
    s.loop.run_for(std::chrono::milliseconds(30));
    CHECK(s.updates.empty());  // held: the session is not known yet
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"sessionId":"s-9"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    REQUIRE(created->ok());
    CHECK(updates_at_callback == 2);
    // CLIENT-MUST-59: the answer did not overwrite the state the held updates reported,
    // neither when the host's callback runs nor after it.
    CHECK(state_at_callback == "running");
    CHECK(s.client->sessions().find("s-9")->foreground().state == "running");
    REQUIRE(s.updates.size() == 2);
    CHECK(s.updates[0].update.tag() == "state_update");
    CHECK(s.updates[1].update.tag() == "agent_message_chunk");
    // Afterwards updates flow straight through.
    s.update("s-9", R"({"sessionUpdate":"state_update","state":"idle"})");
    CHECK(s.loop.run_until([&] { return s.updates.size() == 3; }));
}

TEST_CASE("client: a prompt answered {} (older drafts) is accepted") {
    Scripted s;
    s.initialize();
    std::optional<Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    s.answer_next(R"({"sessionId":"s-1"})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    std::optional<Result<v2::PromptResponse>> answered;
    v2::PromptRequest prompt;
    prompt.sessionId = "s-1";
    v2::TextContent text;
    text.text = "hi";
    prompt.prompt.push_back(v2::ContentBlock::make_text(text));
    s.client->prompt(prompt, [&](Result<v2::PromptResponse> r) { answered.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return answered.has_value(); }));
    REQUIRE(answered->ok());
    CHECK(answered->value().messageId.empty());
    // But an answer of the wrong shape is a protocol error with its path.
    answered.reset();
    s.client->prompt(prompt, [&](Result<v2::PromptResponse> r) { answered.emplace(std::move(r)); });
    s.answer_next(R"({"messageId":42})");
    REQUIRE(s.loop.run_until([&] { return answered.has_value(); }));
    CHECK(answered->status().code() == Errc::protocol_error);
    CHECK(answered->status().message().find("messageId") != std::string::npos);
}

TEST_CASE("client: an invalid session/update is reported with its path, later ones still arrive") {
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":7}})");
    // CLIENT-MUST-17: an unknown variant is kept, not dropped.
    s.update("s-1", R"({"sessionUpdate":"_acme_progress","percent":40})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    CHECK(s.logged("invalid session/update ignored"));
    CHECK(s.logged("text"));
    CHECK(s.updates[0].update.kind() == v2::SessionUpdate::Kind::unknown);
    CHECK(s.updates[0].update.tag() == "_acme_progress");
}

TEST_CASE("client: elicitation in a mode not advertised is refused -32602 and unknown completions are ignored") {
    // CLIENT-MUST-72, -78
    Scripted s;
    int completions = 0;
    int asked = 0;
    s.client->on_elicitation(true, false, [&](const v2::CreateElicitationRequest&, acp::ElicitationResponder r) {
        ++asked;
        r.decline();
    });
    s.client->on_elicitation_complete([&](const v2::CompleteElicitationNotification&) { ++completions; });
    s.initialize();
    s.open_session("s-1");
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"url","sessionId":"s-1","message":"m","elicitationId":"x","url":"https://x"}})");
    s.agent->send_line(R"({"jsonrpc":"2.0","method":"elicitation/complete","params":{"elicitationId":"x"}})");
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":"e2","method":"elicitation/create","params":{"mode":"form","sessionId":"s-1","message":"m","requestedSchema":{"type":"object","properties":{}}}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() >= before + 2; }));
    auto refused = s.agent->parsed(before);
    CHECK(refused["id"] == "e1");
    CHECK(refused["error"]["code"].GetInt() == -32602);
    auto declined = s.agent->parsed(before + 1);
    CHECK(declined["id"] == "e2");
    CHECK(declined["result"]["action"] == "decline");
    CHECK(asked == 1);
    CHECK(completions == 0);
}

TEST_CASE("client: terminal/cancel follows the terminal's latest capabilities") {
    // CLIENT-MUST-36
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    std::optional<Result<v2::CancelTerminalResponse>> refused;
    s.client->cancel_terminal("s-1", "t1",
                              [&](Result<v2::CancelTerminalResponse> r) { refused.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return refused.has_value(); }));
    CHECK(refused->status().message().find("CLIENT-MUST-36") != std::string::npos);
    s.update("s-1", R"({"sessionUpdate":"terminal_update","terminalId":"t1","capabilities":{"cancel":{}}})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    std::optional<Result<v2::CancelTerminalResponse>> accepted;
    s.client->cancel_terminal("s-1", "t1",
                              [&](Result<v2::CancelTerminalResponse> r) { accepted.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return accepted.has_value(); }));
    CHECK(accepted->ok());
    s.update(
        "s-1",
        R"({"sessionUpdate":"terminal_update","terminalId":"t1","exitStatus":{"exitCode":0},"capabilities":null})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 2; }));
    std::optional<Result<v2::CancelTerminalResponse>> late;
    s.client->cancel_terminal("s-1", "t1", [&](Result<v2::CancelTerminalResponse> r) { late.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return late.has_value(); }));
    CHECK(late->status().message().find("CLIENT-MUST-36") != std::string::npos);
}

TEST_CASE("client: unknown notifications reach the host with their params, never answered") {
    // CLIENT-MUST-07, -09
    Scripted s;
    std::vector<std::pair<std::string, std::string>> seen;
    s.client->on_unknown_notification([&](std::string_view method, const acp::RawJson& params) {
        seen.emplace_back(std::string(method), params.text);
    });
    s.initialize();
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(R"({"jsonrpc":"2.0","method":"_acme/status","params":{"busy":true}})");
    REQUIRE(s.loop.run_until([&] { return seen.size() == 1; }));
    CHECK(seen[0] == std::make_pair(std::string("_acme/status"), std::string(R"({"busy":true})")));
    s.loop.run_for(std::chrono::milliseconds(20));
    CHECK(s.agent->lines.size() == before);
}

TEST_CASE("client: the host may destroy the client inside its callbacks") {
    SUBCASE("inside a session update, with more updates in the same read") {
        Scripted s;
        s.initialize();
        s.open_session("s");
        int calls = 0;
        s.client->on_session_update([&](const v2::UpdateSessionNotification&) {
            ++calls;
            s.client.reset();
        });
        const std::string update =
            R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle"}}})";
        s.agent->send(update + "\n" + update + "\n");
        REQUIRE(s.loop.run_until([&] { return s.client == nullptr; }));
        s.loop.run_for(std::chrono::milliseconds(20));
        CHECK(calls == 1);
    }
    SUBCASE("inside a completion, with other requests pending") {
        Scripted s;
        s.initialize();
        int completions = 0;
        for (int i = 0; i < 2; ++i) {
            s.client->ext_request("_x/y", acp::RawJson{"{}"}, [&](Result<acp::RawJson>) {
                ++completions;
                s.client.reset();
            });
        }
        s.agent->close();
        REQUIRE(s.loop.run_until([&] { return s.client == nullptr; }));
        s.loop.run_for(std::chrono::milliseconds(20));
        CHECK(completions == 1);
    }
    SUBCASE("inside a refused call's callback") {
        Scripted s;
        bool called = false;
        s.client->logout([&](Result<v2::LogoutAuthResponse> r) {
            CHECK(r.status().code() == Errc::invalid_argument);
            called = true;
            s.client.reset();
        });
        CHECK(s.loop.run_until([&] { return called; }));
    }
}

TEST_CASE("client: updates held for a session/new that fails are dropped, and said so") {
    Scripted s;
    s.initialize();
    std::optional<Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    s.update("s-lost", R"({"sessionUpdate":"state_update","state":"running"})");
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"error":{"code":-32602,"message":"bad cwd"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    CHECK(created->status().rpc_code() == -32602);
    s.loop.run_for(std::chrono::milliseconds(20));
    CHECK(s.updates.empty());
    CHECK(s.logged(R"(dropped a session/update (state_update) for session "s-lost", which this client did not open)"));
}

TEST_CASE("client: closing a session the agent does not know is success, and the client forgets it") {
    // CLIENT-MUST-46
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", R"({"sessionUpdate":"terminal_update","terminalId":"t1","capabilities":{"cancel":{}}})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    std::optional<Result<v2::CloseSessionResponse>> closed;
    s.client->close_session("s-1", [&](Result<v2::CloseSessionResponse> r) { closed.emplace(std::move(r)); });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"error":{"code":-32002,"message":"Resource not found","data":{"sessionId":"s-1"}}})");
    REQUIRE(s.loop.run_until([&] { return closed.has_value(); }));
    CHECK(closed->ok());
    std::optional<Result<v2::CancelTerminalResponse>> late;
    s.client->cancel_terminal("s-1", "t1", [&](Result<v2::CancelTerminalResponse> r) { late.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return late.has_value(); }));
    CHECK(late->status().code() == Errc::invalid_argument);
}

TEST_CASE("client: an elicitation the agent withdraws is answered cancel and the host is told") {
    Scripted s;
    std::optional<acp::ElicitationResponder> held;
    bool withdrawn = false;
    s.client->on_elicitation(true, false, [&](const v2::CreateElicitationRequest&, acp::ElicitationResponder r) {
        r.on_withdrawn([&] { withdrawn = true; });
        held = r;
    });
    s.initialize();
    s.open_session("s-1");
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"mode":"form","sessionId":"s-1","message":"m","requestedSchema":{"type":"object","properties":{}}}})");
    REQUIRE(s.loop.run_until([&] { return held.has_value(); }));
    s.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"e1"}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
    CHECK(withdrawn);
    CHECK(s.agent->parsed(before)["result"]["action"] == "cancel");
    CHECK(held->answered());
}

TEST_CASE("client: an extension request the agent withdraws is answered -32800 and the host is told") {
    // CLIENT-GUIDE 4.12: a withdrawn request is still owed an answer: -32800 or its result.
    Scripted s;
    std::vector<acp::ExtResponder> held;
    int withdrawals = 0;
    s.client->on_ext_request("_acme/slow", [&](const acp::RawJson&, acp::ExtResponder r) {
        r.on_withdrawn([&] { ++withdrawals; });
        held.push_back(r);
    });
    s.initialize();
    std::size_t before = s.agent->lines.size();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":"x1","method":"_acme/slow","params":{}})");
    REQUIRE(s.loop.run_until([&] { return held.size() == 1; }));
    s.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"x1"}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
    CHECK(withdrawals == 1);
    CHECK(s.agent->parsed(before)["id"] == "x1");
    CHECK(s.agent->parsed(before)["error"]["code"] == -32800);
    CHECK(held[0].answered());
    held[0].respond(acp::RawJson{"{}"});  // too late: goes nowhere
    // A host that answers when told keeps its own answer.
    s.agent->send_line(R"({"jsonrpc":"2.0","id":"x2","method":"_acme/slow","params":{}})");
    REQUIRE(s.loop.run_until([&] { return held.size() == 2; }));
    held[1].on_withdrawn([&] { held[1].respond(acp::RawJson{R"({"partial":true})"}); });
    before = s.agent->lines.size();
    s.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"x2"}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
    s.loop.run_for(std::chrono::milliseconds(50));
    REQUIRE(s.agent->lines.size() == before + 1);
    CHECK(s.agent->parsed(before)["result"]["partial"] == true);
}

TEST_CASE("client: extension handlers are only for '_' methods") {
    // CLIENT-MUST-16: a spec method cannot be taken over through the extension API.
    Scripted s;
    int ext_calls = 0;
    s.client->on_ext_notification("session/update", [&](const acp::RawJson&) { ++ext_calls; });
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", R"({"sessionUpdate":"state_update","state":"idle"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    CHECK(ext_calls == 0);
    CHECK(s.logged("ignored: no '_'"));
}

TEST_CASE("client: a v2 agent calling a v1 client method gets -32601 even with a handler installed") {
    // CLIENT-MUST-08: v2 has no fs/* or terminal/* client methods.
    Scripted s;
    bool called = false;
    s.client->on_read_text_file(
        [&](const acp::v1::ReadTextFileRequest&, acp::ClientMethodResponder) { called = true; });
    s.initialize();
    CHECK(s.client->negotiated_version() == 2);
    const std::size_t index = s.agent->lines.size();
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/etc/passwd"}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    auto answer = s.agent->parsed(index);
    REQUIRE(answer.HasMember("error"));
    CHECK(answer["error"]["code"].GetInt() == -32601);
    CHECK_FALSE(called);
}

namespace {

// Resumes session s-1 with the given replayFrom JSON and answers with `answer` (a
// "result":... or "error":... member), sending `replayed` updates first.
Result<v2::ResumeSessionResponse> resume(Scripted& s, const std::string& replay_from,
                                         const std::vector<std::string>& replayed, const std::string& answer) {
    v2::ResumeSessionRequest request;
    request.sessionId = "s-1";
    request.cwd = "/work";
    if (!replay_from.empty()) {
        REQUIRE(acp::v2::codec::decode(codec_test::parse(replay_from), request.replayFrom.emplace()).ok());
    }
    std::optional<Result<v2::ResumeSessionResponse>> done;
    s.client->resume_session(request, [&](Result<v2::ResumeSessionResponse> r) { done.emplace(std::move(r)); });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    for (const auto& update : replayed) s.update("s-1", update);
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + "," + answer + "}");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    return std::move(*done);
}

// The text of item `index` of a dump (its first content block).
std::string select_text(const std::string& dump, std::size_t index) {
    rapidjson::Document document = codec_test::parse(dump);
    return document["items"][static_cast<rapidjson::SizeType>(index)]["content"][0]["text"].GetString();
}

constexpr const char* kChunkA =
    R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"a"}})";
constexpr const char* kIdle = R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})";

}  // namespace

TEST_CASE("client: a resume with replay that the agent refuses leaves the session's model as it was") {
    // CLIENT-GUIDE 7.6: an unsupported cursor is -32602, answered before any replay.
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", kChunkA);
    s.update("s-1", kIdle);
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 2; }));
    const std::string before = acp::to_json(*s.client->sessions().find("s-1"));
    std::vector<acp::SessionEvent::Type> events;
    auto subscription = s.client->sessions().subscribe([&](const acp::SessionEvent& e) { events.push_back(e.type); });
    auto refused = resume(s, R"({"type":"start"})", {}, R"("error":{"code":-32602,"message":"no history"})");
    CHECK(refused.status().rpc_code() == -32602);
    CHECK(acp::to_json(*s.client->sessions().find("s-1")) == before);
    CHECK(std::find(events.begin(), events.end(), acp::SessionEvent::Type::session_reset) == events.end());
    // The session still takes its updates afterwards.
    s.update("s-1", R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"b"}})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 3; }));
    CHECK(acp::to_json(*s.client->sessions().find("s-1")).find(R"("text":"ab")") != std::string::npos);
}

TEST_CASE("client: a full replay rebuilds the session, a replay from a later cursor continues it") {
    Scripted s;
    s.initialize(R"({"protocolVersion":2,"info":{"name":"scripted","version":"1"},)"
                 R"("capabilities":{"session":{"_meta":{"_after":{}}}}})");
    s.open_session("s-1");
    s.update("s-1", kChunkA);
    s.update("s-1", kIdle);
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 2; }));
    const std::string live = acp::to_json(*s.client->sessions().find("s-1"));
    // From the start: the same updates again give the same model, no doubled text.
    REQUIRE(resume(s, R"({"type":"start"})", {kChunkA, kIdle}, R"("result":{})").ok());
    CHECK(acp::to_json(*s.client->sessions().find("s-1")) == live);
    // From an (extension) cursor past what the client holds: appended, nothing reset.
    REQUIRE(resume(s, R"({"type":"_after","entry":"m1"})",
                   {R"({"sessionUpdate":"agent_message_chunk","messageId":"m2","content":{"type":"text","text":"c"}})",
                    kIdle},
                   R"("result":{})")
                .ok());
    const acp::SessionState* state = s.client->sessions().find("s-1");
    REQUIRE(state->items().size() == 2);
    CHECK(state->items()[0].id() == "m1");
    CHECK(state->items()[1].id() == "m2");
}

TEST_CASE("client: updates after a session's close answer are ignored, and said so") {
    // CLIENT-GUIDE 7.7: drop stragglers after the close response.
    Scripted s;
    s.initialize();
    s.open_session("s-1");
    s.update("s-1", kChunkA);
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    std::optional<Result<v2::CloseSessionResponse>> closed;
    s.client->close_session("s-1", [&](Result<v2::CloseSessionResponse> r) { closed.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return closed.has_value(); }));
    REQUIRE(closed->ok());
    const std::string at_close = acp::to_json(*s.client->sessions().find("s-1"));
    s.update("s-1",
             R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"late"}})");
    REQUIRE(s.loop.run_until([&] {
        return s.logged(
            R"(dropped a session/update (agent_message_chunk) for session "s-1", which this client closed)");
    }));
    CHECK(s.updates.size() == 1);
    CHECK(acp::to_json(*s.client->sessions().find("s-1")) == at_close);
}

TEST_CASE("client v1: an update kind v1 does not define is kept in the model as for a v2 agent") {
    // Agents send their own notifications (CLIENT-GUIDE 1.7): kept verbatim, never dropped.
    Scripted s;
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");  // to the v2 initialize
    s.answer_next(R"({"protocolVersion":1,"agentInfo":{"name":"v1","version":"1"},"agentCapabilities":{}})");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE(done->ok());
    REQUIRE(s.client->negotiated_version() == 1);
    s.open_session("s-1");
    s.update("s-1", R"({"sessionUpdate":"_vendor_status","phase":"indexing"})");
    // A kind only v2 defines is no v2 update from a v1 agent: kept as unknown too.
    s.update("s-1", R"({"sessionUpdate":"state_update","state":"idle"})");
    s.update("s-1", R"({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}})");
    // A kind v1 does define is still checked against the v1 schema.
    s.update("s-1", R"({"sessionUpdate":"plan","entries":"not a list"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 3; }));
    CHECK(s.updates[0].update.tag() == "_vendor_status");
    CHECK(s.updates[1].update.kind() == v2::SessionUpdate::Kind::unknown);
    const acp::SessionState* state = s.client->sessions().find("s-1");
    REQUIRE(state != nullptr);
    REQUIRE(state->items().size() == 3);
    CHECK(state->items()[0].kind() == acp::ItemKind::unknown);
    CHECK(state->items()[1].kind() == acp::ItemKind::unknown);
    CHECK(state->foreground().state == "idle");  // untouched: nothing was running
    CHECK(acp::to_json(*state).find(R"("phase":"indexing")") != std::string::npos);
    REQUIRE(s.loop.run_until([&] { return s.logged("invalid v1 session/update ignored"); }));
}

TEST_CASE("client v1: a v1 diff's path and texts are kept in the model and in the permission's tool call") {
    // v2 has no member for them: they stay beside the lifted changes, so a host can show
    // the edit for review (docs/v1.md).
    Scripted s;
    std::optional<v2::RequestPermissionRequest> asked;
    std::optional<acp::PermissionResponder> held;
    s.client->on_permission_request([&](const v2::RequestPermissionRequest& request, acp::PermissionResponder r) {
        asked = request;
        held = r;
    });
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");
    s.answer_next(R"({"protocolVersion":1,"agentInfo":{"name":"v1","version":"1"},"agentCapabilities":{}})");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE(s.client->negotiated_version() == 1);
    s.open_session("s-1");
    s.update(
        "s-1",
        R"({"sessionUpdate":"tool_call","toolCallId":"c1","title":"Edit a.md","kind":"edit",)"
        R"("status":"pending","content":[{"type":"diff","path":"/w/a.md","oldText":"- one\n","newText":"- two\n"}]})");
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s-1",)"
        R"("toolCall":{"toolCallId":"c2","title":"Write b.md","content":[{"type":"diff","path":"/w/b.md","oldText":null,)"
        R"("newText":"new file"}]},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}})");
    REQUIRE(s.loop.run_until([&] { return held.has_value(); }));
    const acp::SessionState* state = s.client->sessions().find("s-1");
    REQUIRE(state != nullptr);
    REQUIRE(state->items().size() == 2);
    // What the C API hands out as the items' JSON.
    const std::string edit = acp::to_json(state->items()[0]);
    CHECK(edit.find(R"("changes":[{"fileType":"text","operation":"modify","path":"/w/a.md"}],"path":"/w/a.md",)"
                    R"("oldText":"- one\n","newText":"- two\n")") != std::string::npos);
    const std::string write = acp::to_json(state->items()[1]);
    CHECK(write.find(R"("operation":"add","path":"/w/b.md"}],"path":"/w/b.md","newText":"new file")") !=
          std::string::npos);
    CHECK(write.find("oldText") == std::string::npos);
    // The request's own tool call has them too.
    REQUIRE(asked.has_value());
    REQUIRE(asked->subject.has_value());
    const auto* subject = asked->subject->tool_call();
    REQUIRE(subject != nullptr);
    REQUIRE(subject->toolCall.content.has_value());
    const auto& content = *subject->toolCall.content;
    REQUIRE(content.size() == 1);
    REQUIRE(content[0].diff() != nullptr);
    std::vector<std::string> kept;
    for (const auto& [key, raw] : content[0].diff()->extra_fields) kept.push_back(key + "=" + raw.text);
    CHECK(kept == std::vector<std::string>{R"(path="/w/b.md")", R"(newText="new file")"});
    held->cancel();
}

TEST_CASE("client: a replay that goes on after the resume answer is complete when the callback runs") {
    // Real agents' quirk; the replay ends once the session has been quiet for replay_settle.
    Scripted s;
    s.initialize();
    std::vector<acp::SessionEvent::Type> events;
    auto subscription = s.client->sessions().subscribe([&](const acp::SessionEvent& e) { events.push_back(e.type); });
    v2::ResumeSessionRequest request;
    request.sessionId = "s-1";
    request.cwd = "/work";
    request.replayFrom = v2::ReplayFrom::make_start({});
    std::optional<Result<v2::ResumeSessionResponse>> done;
    std::size_t items_at_callback = 0;
    s.client->resume_session(request, [&](Result<v2::ResumeSessionResponse> r) {
        items_at_callback = s.client->sessions().find("s-1")->items().size();
        done.emplace(std::move(r));
    });
    // A second resume of the same session while this one runs is refused.
    std::optional<Result<v2::ResumeSessionResponse>> second;
    s.client->resume_session(request, [&](Result<v2::ResumeSessionResponse> r) { second.emplace(std::move(r)); });
    s.answer_next("{}");                                                       // answered first ...
    s.update("s-1", R"({"sessionUpdate":"state_update","state":"running"})");  // ... replayed after
    s.update("s-1", kChunkA);
    s.update("s-1", kIdle);
    REQUIRE(s.loop.run_until([&] { return done.has_value() && second.has_value(); }));
    REQUIRE(done->ok());
    CHECK(items_at_callback == 1);
    // CLIENT-MUST-58: the late idle snapshot is still replay, no completion.
    CHECK(std::find(events.begin(), events.end(), acp::SessionEvent::Type::turn_ended) == events.end());
    CHECK(events.back() == acp::SessionEvent::Type::replay_ended);
    CHECK(second->status().code() == Errc::invalid_argument);
    // Done settling: the session can be resumed again.
    std::optional<Result<v2::ResumeSessionResponse>> third;
    s.client->resume_session(request, [&](Result<v2::ResumeSessionResponse> r) { third.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return third.has_value(); }));
    CHECK(third->ok());
}

TEST_CASE("client: a replay still settling when the agent goes away ends with its callback") {
    Scripted s;
    s.initialize();
    v2::ResumeSessionRequest request;
    request.sessionId = "s-1";
    request.cwd = "/work";
    request.replayFrom = v2::ReplayFrom::make_start({});
    std::optional<Result<v2::ResumeSessionResponse>> done;
    s.client->resume_session(request, [&](Result<v2::ResumeSessionResponse> r) { done.emplace(std::move(r)); });
    s.answer_next("{}");
    s.update("s-1", kChunkA);
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    CHECK_FALSE(done.has_value());  // still settling
    s.agent.reset();                // the agent's end of the socket closes
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    CHECK(done->ok());
    CHECK(s.client->sessions().find("s-1")->items().size() == 1);
}

TEST_CASE("client v1: a refused session/load leaves the synthetic ids where they were") {
    Scripted s;
    std::optional<Result<v2::InitializeResponse>> init;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { init.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{"loadSession":true}})");
    REQUIRE(s.loop.run_until([&] { return init.has_value(); }));
    REQUIRE(init->ok());
    s.open_session("s-1");
    s.update("s-1", R"({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}})");
    s.update("s-1", R"({"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"t"}})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 2; }));
    v2::ResumeSessionRequest request;
    request.sessionId = "s-1";
    request.cwd = "/work";
    request.replayFrom = v2::ReplayFrom::make_start({});
    std::optional<Result<v2::ResumeSessionResponse>> refused;
    s.client->resume_session(request, [&](Result<v2::ResumeSessionResponse> r) { refused.emplace(std::move(r)); });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                       R"(,"error":{"code":-32002,"message":"Resource not found"}})");
    REQUIRE(s.loop.run_until([&] { return refused.has_value(); }));
    CHECK_FALSE(refused->ok());
    // The next id-less agent chunk starts a new message; it does not reuse the kept one's id.
    s.update("s-1", R"({"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"b"}})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 3; }));
    const acp::SessionState* state = s.client->sessions().find("s-1");
    REQUIRE(state->items().size() == 3);
    CHECK(select_text(acp::to_json(*state), 0) == "a");
    CHECK(state->items()[2].id() != state->items()[0].id());
}
