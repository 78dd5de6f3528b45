// SPDX-License-Identifier: Apache-2.0
// Every check before sending runs for a v1 agent too, on its v1 capabilities, through the
// same request gate as for v2 (docs/untrusted-agent.md). Each case asks the official
// TypeScript SDK's v1 peer (tests/peers/ts-agent/agent-v1.mjs) for something it did not
// advertise or that breaks a rule, and checks that nothing reached the wire.
#include <doctest/doctest.h>

#include <algorithm>

#include "support/ts_peer.hpp"

using acp::Errc;
using acp::Result;
using acp::Status;
using acp::test::TsPeer;
namespace v2 = acp::v2;

namespace {

bool sent_contains(const TsPeer& peer, const std::string& fragment) {
    return std::any_of(peer.sent.begin(), peer.sent.end(),
                       [&](const std::string& line) { return line.find(fragment) != std::string::npos; });
}

v2::McpServer stdio_server(const std::string& name, const std::string& command) {
    v2::McpServerStdio stdio;
    stdio.name = name;
    stdio.command = command;
    return v2::McpServer::make_stdio(std::move(stdio));
}

v2::McpServer http_server(const std::string& name) {
    v2::McpServerHttp http;
    http.name = name;
    http.url = "https://mcp.example.com";
    return v2::McpServer::make_http(std::move(http));
}

// v2 has no sse variant: a host names v1's sse transport as the raw server object.
v2::McpServer sse_server(const std::string& name) {
    return v2::McpServer::make_unknown("sse", acp::RawJson{R"({"type":"sse","name":")" + name +
                                                           R"(","url":"https://mcp.example.com/sse","headers":[]})"});
}

// The call is refused with `code` and a message containing `rule`, and nothing is sent.
template <class Response, class Start>
void check_refused(TsPeer& peer, Errc code, const std::string& rule, Start start) {
    const std::size_t sent_before = peer.sent.size();
    Result<Response> result = peer.wait<Response>(start);
    INFO(rule << ": " << result.status().to_string());
    CHECK(result.status().code() == code);
    CHECK(result.status().message().find(rule) != std::string::npos);
    CHECK(peer.sent.size() == sent_before);
}

v2::ResumeSessionRequest load_request(const std::string& session, const std::string& cwd) {
    v2::ResumeSessionRequest request;
    request.sessionId = session;
    request.cwd = cwd;
    request.replayFrom = v2::ReplayFrom::make_start({});
    return request;
}

}  // namespace

TEST_CASE("client v1 checks: MCP servers only over transports the v1 agent advertises") {
    // CLIENT-MUST-33
    TsPeer peer(TsPeer::v1, {"--caps=minimal"});  // mcpCapabilities: none (stdio is always taken)
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest http;
    http.cwd = "/tmp";
    http.mcpServers = std::vector<v2::McpServer>{http_server("web")};
    check_refused<v2::NewSessionResponse>(peer, Errc::invalid_argument, "CLIENT-MUST-33",
                                          [&](auto done) { peer.client->new_session(http, done); });
    v2::NewSessionRequest sse;
    sse.cwd = "/tmp";
    sse.mcpServers = std::vector<v2::McpServer>{sse_server("old")};
    check_refused<v2::NewSessionResponse>(peer, Errc::invalid_argument, "over sse",
                                          [&](auto done) { peer.client->new_session(sse, done); });
    // A `_` transport cannot be written in v1 at all (its McpServer union is closed).
    v2::NewSessionRequest custom;
    custom.cwd = "/tmp";
    custom.mcpServers = std::vector<v2::McpServer>{
        v2::McpServer::make_unknown("_acme_pipe", acp::RawJson{R"({"type":"_acme_pipe","name":"p"})"})};
    check_refused<v2::NewSessionResponse>(peer, Errc::invalid_argument, "_acme_pipe",
                                          [&](auto done) { peer.client->new_session(custom, done); });
    // stdio goes through.
    v2::NewSessionRequest stdio;
    stdio.cwd = "/tmp";
    stdio.mcpServers = std::vector<v2::McpServer>{stdio_server("db", "/bin/db")};
    auto created = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(stdio, done); });
    CHECK_MESSAGE(created.ok(), created.status().to_string());
}

TEST_CASE("client v1 checks: sse goes to a v1 agent that advertises it, lowered to v1's sse server") {
    // CLIENT-MUST-33: sse only when advertised (v1 mcpCapabilities.sse).
    TsPeer peer(TsPeer::v1, {"--mcp-sse"});
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    request.mcpServers = std::vector<v2::McpServer>{sse_server("events"), http_server("web")};
    auto created = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    REQUIRE_MESSAGE(created.ok(), created.status().to_string());
    CHECK(sent_contains(peer, R"({"type":"sse","name":"events","url":"https://mcp.example.com/sse","headers":[]})"));
}

TEST_CASE("client v1 checks: session/load and session/resume get the path, directory and MCP checks") {
    // CLIENT-MUST-35, -38, -33 on the two v1 forms of resume_session.
    TsPeer peer(TsPeer::v1, {"--caps=no-dirs"});  // loadSession, resume, list; no additionalDirectories
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    // session/load (replay from the start) with a relative cwd.
    check_refused<v2::ResumeSessionResponse>(
        peer, Errc::invalid_argument, "CLIENT-MUST-38: cwd must be an absolute path",
        [&](auto done) { peer.client->resume_session(load_request(session, "tmp"), done); });
    // session/load with additional directories the agent does not take.
    v2::ResumeSessionRequest load = load_request(session, "/tmp");
    load.additionalDirectories = std::vector<std::string>{"/var"};
    check_refused<v2::ResumeSessionResponse>(peer, Errc::invalid_argument, "CLIENT-MUST-35",
                                             [&](auto done) { peer.client->resume_session(load, done); });
    // session/resume (no replay) with a stdio server whose command is relative.
    v2::ResumeSessionRequest resume;
    resume.sessionId = session;
    resume.cwd = "/tmp";
    resume.mcpServers = std::vector<v2::McpServer>{stdio_server("db", "bin/db")};
    check_refused<v2::ResumeSessionResponse>(peer, Errc::invalid_argument, "CLIENT-MUST-38: the command of MCP server",
                                             [&](auto done) { peer.client->resume_session(resume, done); });
    resume.mcpServers = std::vector<v2::McpServer>{sse_server("old")};
    check_refused<v2::ResumeSessionResponse>(peer, Errc::invalid_argument, "CLIENT-MUST-33",
                                             [&](auto done) { peer.client->resume_session(resume, done); });
    // v1 replays from the start only (CLIENT-MUST-47).
    v2::ResumeSessionRequest cursor = load_request(session, "/tmp");
    cursor.replayFrom = v2::ReplayFrom::make_unknown("_after", acp::RawJson{R"({"type":"_after","id":"m1"})"});
    check_refused<v2::ResumeSessionResponse>(peer, Errc::invalid_argument, "CLIENT-MUST-47",
                                             [&](auto done) { peer.client->resume_session(cursor, done); });
    // What is right goes out, and the agent takes it.
    auto loaded = peer.wait<v2::ResumeSessionResponse>(
        [&](auto done) { peer.client->resume_session(load_request(session, "/tmp"), done); });
    CHECK_MESSAGE(loaded.ok(), loaded.status().to_string());
}

TEST_CASE("client v1 checks: the session/list cwd filter must be absolute") {
    // CLIENT-MUST-38
    TsPeer peer(TsPeer::v1);
    REQUIRE(peer.initialize().ok());
    v2::ListSessionsRequest relative;
    relative.cwd = "projects/app";
    check_refused<v2::ListSessionsResponse>(peer, Errc::invalid_argument, "CLIENT-MUST-38: the cwd filter",
                                            [&](auto done) { peer.client->list_sessions(relative, done); });
    v2::ListSessionsRequest absolute;
    absolute.cwd = "/tmp";
    CHECK(peer.wait<v2::ListSessionsResponse>([&](auto done) { peer.client->list_sessions(absolute, done); }).ok());
}

TEST_CASE("client v1 checks: raw JSON the host put in a request must be JSON") {
    // CLIENT-MUST-01: nothing that is not JSON reaches the wire, whatever the version.
    TsPeer peer(TsPeer::v1);
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    request._meta = acp::RawJson{"{\"traceparent\":"};
    check_refused<v2::NewSessionResponse>(peer, Errc::invalid_argument, "not one JSON value",
                                          [&](auto done) { peer.client->new_session(request, done); });
}
