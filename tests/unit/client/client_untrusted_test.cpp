// SPDX-License-Identifier: Apache-2.0
// The client against a scripted agent that misbehaves (docs/untrusted-agent.md): what the
// client writes is always one JSON value per line, held updates are bounded, traffic for
// sessions the client never opened stays out of the model, a login that never ends times
// out, and the agent bugs the guide says to tolerate are tolerated.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <optional>
#include <string>

#include "unit/client/scripted_client.hpp"

using acp::Errc;
using acp::Result;
using acp::test::Scripted;
namespace v2 = acp::v2;

namespace {

constexpr const char* kPretty = "{\n  \"traceparent\": \"00-abc-01\",\n  \"list\": [\n    1,\n    2\n  ]\n}";

// Every line parses as exactly one JSON object.
void check_one_value_per_line(const std::vector<std::string>& lines) {
    for (const auto& line : lines) {
        INFO(line);
        rapidjson::Document document;
        document.Parse(line.c_str(), line.size());
        CHECK_FALSE(document.HasParseError());
        CHECK(document.IsObject());
        CHECK(line.find('\n') == std::string::npos);
    }
}

}  // namespace

TEST_CASE("client untrusted: every message the client writes is one JSON value on one line") {
    // CLIENT-MUST-01, checked on what the client writes: requests, notifications and
    // answers that carry pretty-printed raw JSON from the host.
    Scripted s;
    s.client->on_ext_request("_acme/ask",
                             [](const acp::RawJson&, acp::ExtResponder r) { r.respond(acp::RawJson{kPretty}); });
    s.initialize();
    s.open_session("s-1");
    v2::NewSessionRequest request;
    request.cwd = "/work";
    request._meta = acp::RawJson{kPretty};
    std::optional<Result<v2::NewSessionResponse>> created;
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    s.answer_next(R"({"sessionId":"s-2"})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    std::optional<Result<acp::RawJson>> echoed;
    s.client->ext_request("_acme/echo", acp::RawJson{kPretty},
                          [&](Result<acp::RawJson> r) { echoed.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return echoed.has_value(); }));
    CHECK(s.client->ext_notification("_acme/note", acp::RawJson{kPretty}).ok());
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":"q1","method":"_acme/ask","params":{}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before + 1; }));
    check_one_value_per_line(s.agent->lines);
    // The values arrived whole, in compact form.
    std::size_t compact = 0;
    for (const auto& line : s.agent->lines) {
        compact += line.find(R"({"traceparent":"00-abc-01","list":[1,2]})") != std::string::npos ? 1 : 0;
    }
    CHECK(compact == 4);  // session/new _meta, the request, the notification, the answer
    CHECK(s.agent->lines.back() == R"({"jsonrpc":"2.0","id":"q1","result":{"traceparent":"00-abc-01","list":[1,2]}})");
}

TEST_CASE("client untrusted: a host's v1 answer with raw JSON that is not JSON fails the request") {
    Scripted s;
    s.client->on_read_text_file([](const acp::v1::ReadTextFileRequest&, acp::ClientMethodResponder r) {
        acp::v1::ReadTextFileResponse response;
        response.content = "text";
        response._meta = acp::RawJson{"{\"a\":"};
        r.respond(response);
    });
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");
    s.answer_next(R"({"protocolVersion":1,"agentCapabilities":{}})");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE(done->ok());
    s.open_session("s-1");
    const std::size_t before = s.agent->lines.size();
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":5,"method":"fs/read_text_file","params":{"sessionId":"s-1","path":"/w/a"}})");
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
    auto answer = s.agent->parsed(before);
    REQUIRE(answer.HasMember("error"));
    CHECK(answer["error"]["code"].GetInt() == -32603);
}

TEST_CASE("client untrusted: updates for a session the client never opened do not reach the model") {
    Scripted s;
    s.initialize();
    s.open_session("mine");
    s.update("theirs",
             R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"x"}})");
    s.update("theirs",
             R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"y"}})");
    s.update("mine", R"({"sessionUpdate":"state_update","state":"running"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    CHECK(s.updates[0].sessionId == "mine");
    CHECK(s.client->sessions().find("theirs") == nullptr);
    // Reported once for the id, not once per update.
    std::size_t lines = 0;
    for (const auto& line : s.log) lines += line.find(R"(for session "theirs")") != std::string::npos ? 1 : 0;
    CHECK(lines == 1);
    // A permission request for it is answered -32002 and never reaches the host.
    s.agent->send_line(
        R"({"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"theirs","title":"t","options":[{"optionId":"a","name":"A","kind":"allow_once"}]}})");
    const std::size_t before = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > before; }));
    auto answer = s.agent->parsed(before);
    CHECK(answer["error"]["code"].GetInt() == -32002);
    CHECK(answer["error"]["data"]["sessionId"] == "theirs");
}

TEST_CASE("client untrusted: a session/list answer makes its sessions the client's") {
    Scripted s;
    s.initialize();
    std::optional<Result<v2::ListSessionsResponse>> listed;
    s.client->list_sessions({}, [&](Result<v2::ListSessionsResponse> r) { listed.emplace(std::move(r)); });
    s.answer_next(R"({"sessions":[{"sessionId":"old-1","cwd":"/w"}]})");
    REQUIRE(s.loop.run_until([&] { return listed.has_value(); }));
    s.update("old-1", R"({"sessionUpdate":"session_info_update","title":"Old"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    CHECK(s.client->sessions().find("old-1") != nullptr);
}

TEST_CASE("client untrusted: updates held for a pending session/new are bounded in count") {
    acp::ClientOptions options;
    options.max_held_updates = 3;
    Scripted s(options);
    s.initialize();
    std::optional<Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    for (int i = 0; i < 5; ++i) {
        s.update("s-9", R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":")" +
                            std::to_string(i) + R"("}})");
    }
    REQUIRE(s.loop.run_until([&] { return s.logged("reached their bound (3 updates"); }));
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"sessionId":"s-9"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    // The first three went in; the excess was dropped, and said so.
    REQUIRE(s.updates.size() == 3);
    CHECK(s.updates[2].update.agent_message_chunk()->content.text()->text == "2");
    CHECK(s.logged("2 updates that arrived before a session/new answer were dropped at the bound"));
    // Afterwards updates flow straight through again.
    s.update("s-9", R"({"sessionUpdate":"state_update","state":"idle"})");
    CHECK(s.loop.run_until([&] { return s.updates.size() == 4; }));
}

TEST_CASE("client untrusted: updates held for a pending session/new are bounded in bytes") {
    acp::ClientOptions options;
    options.max_held_update_bytes = 4096;
    Scripted s(options);
    s.initialize();
    std::optional<Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    const std::size_t index = s.agent->lines.size();
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    const std::string kilobyte(1000, 'k');
    for (int i = 0; i < 6; ++i) {
        s.update("s-9", R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":")" +
                            kilobyte + R"("}})");
    }
    REQUIRE(s.loop.run_until([&] { return s.logged("reached their bound"); }));
    const auto id = s.agent->parsed(index)["id"].GetInt64();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":{"sessionId":"s-9"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    CHECK(s.updates.size() == 3);  // three of ~1.1 KiB each fit in 4 KiB
}

TEST_CASE("client untrusted: a login that is never answered times out, naming the step") {
    acp::ClientOptions options;
    options.login_timeout = std::chrono::milliseconds(100);
    Scripted s(options);
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(
        R"({"protocolVersion":2,"info":{"name":"a","version":"1"},"capabilities":{},"authMethods":[{"type":"agent","methodId":"browser","name":"Browser"}]})");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    std::optional<Result<v2::LoginAuthResponse>> login;
    s.client->login("browser", [&](Result<v2::LoginAuthResponse> r) { login.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return login.has_value(); }));
    CHECK(login->status().code() == Errc::timed_out);
    CHECK(login->status().message() ==
          "auth/login: the adopted agent did not answer within 100 ms (ClientOptions::login_timeout)");
}

TEST_CASE("client untrusted: an initialize answer without info is accepted as 'unknown'") {
    // AGENT-MUST-02 (defend: substitute "unknown") instead of closing the connection.
    Scripted s;
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":2,"capabilities":{"session":{}}})");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE_MESSAGE(done->ok(), done->status().to_string());
    CHECK(s.client->agent()->info.name == "unknown");
    CHECK_FALSE(s.client->is_closed());
    CHECK(s.logged("AGENT-MUST-02"));
    s.open_session("s-1");  // and the connection works
}

TEST_CASE("client untrusted: commands without a type are taken as commands") {
    // Appendix B 9: older drafts sent AvailableCommand entries without `type`.
    Scripted s;
    s.initialize();
    std::optional<Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    s.client->new_session(request, [&](Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    s.answer_next(R"({"sessionId":"s-1","availableCommands":[{"name":"web","description":"Search"}]})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    REQUIRE_MESSAGE(created->ok(), created->status().to_string());
    REQUIRE(created->value().availableCommands.has_value());
    CHECK(created->value().availableCommands->at(0).command()->name == "web");
    s.update(
        "s-1",
        R"({"sessionUpdate":"available_commands_update","availableCommands":[{"name":"clear","description":"Clear"},{"type":"command","name":"web","description":"Search"}]})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 1; }));
    const auto& commands = *s.client->sessions().find("s-1")->available_commands();
    REQUIRE(commands.size() == 2);
    CHECK(commands[0].command()->name == "clear");
    CHECK(commands[1].command()->name == "web");
}

TEST_CASE("client untrusted: the subagent sessions an agent announces become known up to a bound") {
    acp::ClientOptions options;
    options.max_subagent_sessions = 2;
    Scripted s(options);
    s.initialize();
    s.open_session("parent");
    for (const char* child : {"child-1", "child-2", "child-3", "child-4"}) {
        s.update("parent", std::string(R"({"sessionUpdate":"subagent_update","sessionId":")") + child +
                               R"(","title":"Explore","state":{"state":"running"}})");
    }
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 4; }));
    // A subagent's own traffic comes without a resume (CLIENT-GUIDE 6.7): the first two
    // are the client's, the rest are dropped as unknown, and the bound is said once.
    for (const char* child : {"child-1", "child-3", "child-2", "child-4"}) {
        s.update(child, R"({"sessionUpdate":"state_update","state":"running"})");
    }
    s.update("parent", R"({"sessionUpdate":"state_update","state":"running"})");
    REQUIRE(s.loop.run_until([&] { return s.updates.size() == 7; }));
    CHECK(s.updates[4].sessionId == "child-1");
    CHECK(s.updates[5].sessionId == "child-2");
    CHECK(s.updates[6].sessionId == "parent");
    CHECK(s.client->sessions().find("child-3") == nullptr);
    std::size_t said = 0;
    for (const auto& line : s.log) said += line.find("more than 2 subagent sessions") != std::string::npos ? 1 : 0;
    CHECK(said == 1);
}
