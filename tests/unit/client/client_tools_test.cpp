// SPDX-License-Identifier: Apache-2.0
// The host's tool servers on a session's setup (acp/tools.hpp): the transport the gate
// picks from the agent's capabilities, the pre-send check, and how long they are served.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "scripted_client.hpp"

using acp::Errc;
using acp::test::Scripted;
namespace v2 = acp::v2;

namespace {

constexpr const char* kMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

std::shared_ptr<acp::ToolServer> editor(int& calls) {
    auto server = acp::ToolServer::create("editor").value();
    acp::Tool tool;
    tool.name = "current_selection";
    tool.handler = [&calls](const acp::ToolCall&, acp::ToolResponder answer) {
        ++calls;
        answer.text("selected text");
    };
    REQUIRE(server->add_tool(std::move(tool)).ok());
    return server;
}

void initialize(Scripted& s, const std::string& mcp) {
    std::optional<acp::Result<v2::InitializeResponse>> done;
    s.client->initialize([&](acp::Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(R"({"protocolVersion":2,"info":{"name":"scripted","version":"1"},"capabilities":{"session":{"mcp":)" +
                  mcp + "}}}");
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE(done->ok());
}

// The answer to the agent's request `id`.
rapidjson::Document answer_to(Scripted& s, int id) {
    rapidjson::Document found;
    REQUIRE(s.loop.run_until([&] {
        for (std::size_t i = 0; i < s.agent->lines.size(); ++i) {
            auto doc = s.agent->parsed(i);
            if (doc.HasMember("id") && doc["id"].IsInt() && doc["id"].GetInt() == id && !doc.HasMember("method")) {
                found.CopyFrom(doc, found.GetAllocator());
                return true;
            }
        }
        return false;
    }));
    return found;
}

}  // namespace

TEST_CASE("client tools: with no MCP transport advertised the setup fails before anything is sent") {
    // CLIENT-MUST-33: no entry the agent cannot take.
    Scripted s;
    initialize(s, R"({"_acme_pipe":null})");
    int calls = 0;
    std::optional<acp::Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    const std::size_t sent = s.agent->lines.size();
    s.client->new_session(request, {editor(calls)},
                          [&](acp::Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    REQUIRE_FALSE(created->ok());
    CHECK(created->status().code() == Errc::unsupported);
    CHECK(created->status().message().find("CLIENT-MUST-33") != std::string::npos);
    CHECK(created->status().message().find("no MCP transport at all") != std::string::npos);
    s.loop.run_for(std::chrono::milliseconds(20));
    CHECK(s.agent->lines.size() == sent);
}

TEST_CASE("client tools: MCP over ACP first and the agent's calls reach the tool until the session closes") {
    Scripted s;
    initialize(s, R"({"stdio":{},"http":{},"acp":{}})");
    int calls = 0;
    std::optional<acp::Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    const std::size_t index = s.agent->lines.size();
    s.client->new_session(request, {editor(calls)},
                          [&](acp::Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    auto sent = s.agent->parsed(index);
    REQUIRE(sent["params"]["mcpServers"].Size() == 1);
    const auto& entry = sent["params"]["mcpServers"][0];
    CHECK(std::string(entry["type"].GetString()) == "acp");
    CHECK(std::string(entry["name"].GetString()) == "editor");
    const std::string server_id = entry["serverId"].GetString();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(sent["id"].GetInt()) +
                       R"(,"result":{"sessionId":"s1"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    REQUIRE(created->ok());
    CHECK(s.logged("session s1: tool servers 'editor' offered over MCP over ACP"));

    const std::string call = R"({"serverId":")" + server_id +
                             R"(","requestId":"r1","method":"tools/call","params":{"name":"current_selection",)" +
                             kMeta + "}}";
    s.agent->send_line(R"({"jsonrpc":"2.0","id":900,"method":"mcp/message","params":)" + call + "}");
    auto answer = answer_to(s, 900);
    REQUIRE(answer.HasMember("result"));
    CHECK(std::string(answer["result"]["result"]["content"][0]["text"].GetString()) == "selected text");
    CHECK(calls == 1);

    std::optional<acp::Result<v2::CloseSessionResponse>> closed;
    s.client->close_session("s1", [&](acp::Result<v2::CloseSessionResponse> r) { closed.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return closed.has_value(); }));
    s.agent->send_line(R"({"jsonrpc":"2.0","id":901,"method":"mcp/message","params":)" + call + "}");
    answer = answer_to(s, 901);
    CHECK(answer["error"]["code"].GetInt() == -33001);
    CHECK(calls == 1);
}

TEST_CASE("client tools: a resume without the tools drops them and a refused setup serves nothing") {
    Scripted s;
    initialize(s, R"({"acp":{}})");
    int calls = 0;
    auto server = editor(calls);
    std::optional<acp::Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    const std::size_t index = s.agent->lines.size();
    s.client->new_session(request, {server},
                          [&](acp::Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    auto sent = s.agent->parsed(index);
    const std::string server_id = sent["params"]["mcpServers"][0]["serverId"].GetString();
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(sent["id"].GetInt()) +
                       R"(,"result":{"sessionId":"s1"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));

    std::optional<acp::Result<v2::ResumeSessionResponse>> resumed;
    v2::ResumeSessionRequest resume;
    resume.sessionId = "s1";
    resume.cwd = "/work";
    s.client->resume_session(resume, [&](acp::Result<v2::ResumeSessionResponse> r) { resumed.emplace(std::move(r)); });
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return resumed.has_value(); }));
    s.agent->send_line(R"({"jsonrpc":"2.0","id":902,"method":"mcp/message","params":{"serverId":")" + server_id +
                       R"(","requestId":"r","method":"tools/list","params":{)" + kMeta + "}}}");
    CHECK(answer_to(s, 902)["error"]["code"].GetInt() == -33001);

    // Two servers named alike (CLIENT-MUST-42a): refused before sending.
    std::optional<acp::Result<v2::NewSessionResponse>> twice;
    const std::size_t before = s.agent->lines.size();
    s.client->new_session(request, {server, server},
                          [&](acp::Result<v2::NewSessionResponse> r) { twice.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return twice.has_value(); }));
    CHECK_FALSE(twice->ok());
    CHECK(twice->status().message().find("CLIENT-MUST-42a") != std::string::npos);
    CHECK(s.agent->lines.size() == before);
}

TEST_CASE("client tools: ClientOptions::tool_transports restricts the choice to what the host allows") {
    // An agent offering all three, a host allowing stdio only: the bridge, not MCP over ACP.
    acp::ClientOptions stdio_only;
    stdio_only.tool_transports = {false, false, true};
    Scripted s(stdio_only);
    initialize(s, R"({"stdio":{},"http":{},"acp":{}})");
    int calls = 0;
    std::optional<acp::Result<v2::NewSessionResponse>> created;
    v2::NewSessionRequest request;
    request.cwd = "/work";
    const std::size_t index = s.agent->lines.size();
    s.client->new_session(request, {editor(calls)},
                          [&](acp::Result<v2::NewSessionResponse> r) { created.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return s.agent->lines.size() > index; }));
    auto sent = s.agent->parsed(index);
    REQUIRE(sent["params"]["mcpServers"].Size() == 1);
    const auto& entry = sent["params"]["mcpServers"][0];
    CHECK(std::string(entry["type"].GetString()) == "stdio");
    CHECK(std::string(entry["name"].GetString()) == "editor");
    CHECK(entry.HasMember("command"));
    s.agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(sent["id"].GetInt()) +
                       R"(,"result":{"sessionId":"s1"}})");
    REQUIRE(s.loop.run_until([&] { return created.has_value(); }));
    REQUIRE(created->ok());
    CHECK(s.logged("session s1: tool servers 'editor' offered over the stdio bridge"));

    // An agent offering only what the host does not allow: refused before sending, the
    // message naming both sides (CLIENT-MUST-33).
    acp::ClientOptions http_only;
    http_only.tool_transports = {false, true, false};
    Scripted t(http_only);
    initialize(t, R"({"acp":{}})");
    std::optional<acp::Result<v2::NewSessionResponse>> refused;
    const std::size_t before = t.agent->lines.size();
    t.client->new_session(request, {editor(calls)},
                          [&](acp::Result<v2::NewSessionResponse> r) { refused.emplace(std::move(r)); });
    REQUIRE(t.loop.run_until([&] { return refused.has_value(); }));
    REQUIRE_FALSE(refused->ok());
    CHECK(refused->status().code() == Errc::unsupported);
    CHECK(refused->status().message().find("tool_transports: http") != std::string::npos);
    CHECK(refused->status().message().find("only: acp") != std::string::npos);
    t.loop.run_for(std::chrono::milliseconds(20));
    CHECK(t.agent->lines.size() == before);
    CHECK(calls == 0);
}
