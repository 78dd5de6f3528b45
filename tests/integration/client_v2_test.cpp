// SPDX-License-Identifier: Apache-2.0
// The v2 Client end to end against the peer agent built on the official TypeScript SDK.
// Each test's client traffic is validated against the pinned schema when the peer closes.
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

}  // namespace

TEST_CASE("client v2: initialize negotiates version 2 and reads the agent's capabilities") {
    TsPeer peer;
    auto agent = peer.initialize();
    REQUIRE_MESSAGE(agent.ok(), agent.status().to_string());
    CHECK(peer.client->negotiated_version() == 2);
    CHECK(agent->info.name == "libacp-ts-peer");
    REQUIRE(agent->capabilities);
    REQUIRE(agent->capabilities->session.has_value());
    CHECK(agent->capabilities->session->mcp->stdio.has_value());
    // CLIENT-MUST-20: protocolVersion 2 and a non-empty info.
    REQUIRE(!peer.sent.empty());
    CHECK(peer.sent[0].find(R"("method":"initialize","params":{"protocolVersion":2,"info":{"name":"libacp-tests")") !=
          std::string::npos);
    // CLIENT-MUST-26: no elicitation handler, no elicitation capability.
    CHECK(peer.sent[0].find("elicitation") == std::string::npos);
}

TEST_CASE("client v2: elicitation modes are advertised only for what the host handles") {
    // CLIENT-MUST-26
    TsPeer peer;
    peer.client->on_elicitation(true, false, [](const v2::CreateElicitationRequest&, acp::ElicitationResponder) {});
    REQUIRE(peer.initialize().ok());
    CHECK(peer.sent[0].find(R"("elicitation":{"form":{}})") != std::string::npos);
}

TEST_CASE("client v2: auth.terminal is advertised only when the host says it runs terminal logins") {
    {
        TsPeer peer;
        REQUIRE(peer.initialize().ok());
        CHECK(peer.sent[0].find(R"("auth")") == std::string::npos);
    }
    acp::ClientOptions options;
    options.auth_terminal = true;
    TsPeer peer({}, options);
    REQUIRE(peer.initialize().ok());
    CHECK(peer.sent[0].find(R"("auth":{"terminal":{}})") != std::string::npos);
}

TEST_CASE("client v2: an agent answering 1 is initialized again in v1 and served as v1") {
    // CLIENT-MUST-23: switch to v1 rules for 1 (docs/v1.md: the agent hears v1 fields then).
    TsPeer peer({"--protocol-version=1"});
    auto agent = peer.initialize();
    REQUIRE_MESSAGE(agent.ok(), agent.status().to_string());
    CHECK(peer.client->negotiated_version() == 1);
    CHECK(agent->info.name == "libacp-ts-peer");
    REQUIRE(peer.sent.size() == 2);
    CHECK(peer.sent[1].find(R"("protocolVersion":1,"clientCapabilities":)") != std::string::npos);
}

TEST_CASE("client v2: an unknown version closes with the versions involved - -32022 retries with 1") {
    // CLIENT-MUST-23, -24
    {
        TsPeer peer({"--protocol-version=3"});
        auto agent = peer.initialize();
        REQUIRE_FALSE(agent.ok());
        CHECK(agent.status().message().find("protocolVersion 3 to our 2") != std::string::npos);
        CHECK(peer.loop.run_until([&] { return peer.closed.has_value(); }));
    }
    {
        // The agent supports only 1: initialize again with 1 on the same connection.
        TsPeer peer({"--reject-version"});
        auto agent = peer.initialize();
        REQUIRE_MESSAGE(agent.ok(), agent.status().to_string());
        CHECK(peer.client->negotiated_version() == 1);
        CHECK(peer.sent.size() == 2);
    }
}

TEST_CASE("client v2: nothing but initialize before initialize, and no initialize after other requests") {
    TsPeer peer;
    // CLIENT-MUST-20
    auto early = peer.wait<v2::NewSessionResponse>([&](auto done) {
        v2::NewSessionRequest request;
        request.cwd = "/tmp";
        peer.client->new_session(request, done);
    });
    CHECK(early.status().code() == Errc::invalid_argument);
    CHECK(early.status().message().find("CLIENT-MUST-20") != std::string::npos);
    CHECK(peer.sent.empty());
    REQUIRE(peer.initialize().ok());
    peer.new_session();
    // CLIENT-MUST-21
    auto again = peer.initialize();
    CHECK(again.status().message().find("CLIENT-MUST-21") != std::string::npos);
}

TEST_CASE("client v2: session setup is validated before sending, nothing reaches the wire") {
    TsPeer peer({"--caps=stdio-only"});
    REQUIRE(peer.initialize().ok());
    auto refused = [&](v2::NewSessionRequest request, const char* rule) {
        const std::size_t sent_before = peer.sent.size();
        auto result = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
        INFO(rule);
        CHECK(result.status().code() == Errc::invalid_argument);
        CHECK(result.status().message().find(rule) != std::string::npos);
        CHECK(peer.sent.size() == sent_before);
    };
    v2::NewSessionRequest relative;
    relative.cwd = "project/src";
    refused(relative, "CLIENT-MUST-38");  // and the message names the value:

    v2::NewSessionRequest directories;
    directories.cwd = "/tmp";
    directories.additionalDirectories = std::vector<std::string>{};
    refused(directories, "CLIENT-MUST-35");  // not even []

    v2::NewSessionRequest http;
    http.cwd = "/tmp";
    http.mcpServers = std::vector<v2::McpServer>{http_server("web")};
    refused(http, "CLIENT-MUST-33");

    v2::NewSessionRequest relative_command;
    relative_command.cwd = "/tmp";
    relative_command.mcpServers = std::vector<v2::McpServer>{stdio_server("db", "bin/db")};
    refused(relative_command, "CLIENT-MUST-38");

    v2::NewSessionRequest duplicate;
    duplicate.cwd = "/tmp";
    duplicate.mcpServers = std::vector<v2::McpServer>{stdio_server("db", "/bin/db"), stdio_server("db", "/bin/db2")};
    refused(duplicate, "CLIENT-MUST-42a");

    v2::NewSessionRequest sse;
    sse.cwd = "/tmp";
    sse.mcpServers =
        std::vector<v2::McpServer>{v2::McpServer::make_unknown("sse", acp::RawJson{R"({"type":"sse","name":"old"})"})};
    refused(sse, "CLIENT-MUST-33");

    // What the agent does support goes through, and the agent accepts it.
    v2::NewSessionRequest good;
    good.cwd = "/tmp";
    good.mcpServers = std::vector<v2::McpServer>{stdio_server("db", "/bin/db")};
    auto ok = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(good, done); });
    CHECK_MESSAGE(ok.ok(), ok.status().to_string());
}

TEST_CASE("client v2: the messages name the offending value") {
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest relative;
    relative.cwd = "src";
    auto result = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(relative, done); });
    CHECK(result.status().message() == "CLIENT-MUST-38: cwd must be an absolute path: 'src'");
}

TEST_CASE("client v2: an agent without the session capability gets no session calls") {
    // CLIENT-MUST-31
    TsPeer peer({"--caps=none"});
    REQUIRE(peer.initialize().ok());
    auto result = peer.wait<v2::NewSessionResponse>([&](auto done) {
        v2::NewSessionRequest request;
        request.cwd = "/tmp";
        peer.client->new_session(request, done);
    });
    CHECK(result.status().message().find("CLIENT-MUST-31") != std::string::npos);
}

TEST_CASE("client v2: auth_required surfaces as a typed error - login with an advertised method, then retry") {
    TsPeer peer({"--auth-required"});
    auto agent = peer.initialize();
    REQUIRE(agent.ok());
    auto attempt = [&] {
        return peer.wait<v2::NewSessionResponse>([&](auto done) {
            v2::NewSessionRequest request;
            request.cwd = "/tmp";
            peer.client->new_session(request, done);
        });
    };
    auto first = attempt();
    CHECK(acp::is_auth_required(first.status()));
    // CLIENT-MUST-28: only advertised methods.
    auto bogus = peer.wait<v2::LoginAuthResponse>([&](auto done) { peer.client->login("bogus", done); });
    CHECK(bogus.status().message().find("CLIENT-MUST-28") != std::string::npos);
    auto login = peer.wait<v2::LoginAuthResponse>([&](auto done) { peer.client->login("test-login", done); });
    REQUIRE_MESSAGE(login.ok(), login.status().to_string());
    CHECK(attempt().ok());
    auto logout = peer.wait<v2::LogoutAuthResponse>([&](auto done) { peer.client->logout(done); });
    CHECK(logout.ok());
    CHECK(acp::is_auth_required(attempt().status()));  // CLIENT-MUST-30
}

TEST_CASE("client v2: no auth calls when the agent advertises no auth methods") {
    // CLIENT-MUST-27
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    auto login = peer.wait<v2::LoginAuthResponse>([&](auto done) { peer.client->login("x", done); });
    CHECK(login.status().message().find("CLIENT-MUST-27") != std::string::npos);
    auto logout = peer.wait<v2::LogoutAuthResponse>([&](auto done) { peer.client->logout(done); });
    CHECK(logout.status().message().find("CLIENT-MUST-27") != std::string::npos);
}

TEST_CASE("client v2: a prompt is acknowledged with the user message id - the turn ends with idle") {
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto response = peer.prompt_turn(session, "hello");
    REQUIRE_MESSAGE(response.ok(), response.status().to_string());
    CHECK(response->messageId == "u1");
    // CLIENT-MUST-48: in arrival order, typed.
    std::vector<std::string> kinds;
    for (const auto& n : peer.updates) {
        CHECK(n.sessionId == session);
        kinds.push_back(n.update.tag());
    }
    CHECK(kinds == std::vector<std::string>{"state_update", "user_message", "agent_message_chunk",
                                            "agent_message_chunk", "state_update"});
    CHECK(peer.agent_text("m1") == "Hello, world!");
    CHECK(peer.last_stop_reason() == "end_turn");
}

TEST_CASE("client v2: prompt content is limited to what session.prompt allows") {
    TsPeer peer({"--caps=stdio-only"});
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    // CLIENT-MUST-39
    v2::PromptRequest empty;
    empty.sessionId = session;
    auto none = peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(empty, done); });
    CHECK(none.status().message().find("CLIENT-MUST-39") != std::string::npos);
    // CLIENT-MUST-32
    v2::PromptRequest image = TsPeer::text_prompt(session, "look");
    v2::ImageContent picture;
    picture.data = "iVBORw0KGgo=";
    picture.mimeType = "image/png";
    image.prompt.push_back(v2::ContentBlock::make_image(std::move(picture)));
    auto refused = peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(image, done); });
    CHECK(refused.status().message().find("CLIENT-MUST-32") != std::string::npos);
    CHECK(refused.status().message().find("session.prompt.image") != std::string::npos);
}

TEST_CASE("client v2: a full tool turn arrives typed and in order") {
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "tool").ok());
    std::vector<std::string> kinds;
    for (const auto& n : peer.updates) kinds.push_back(n.update.tag());
    CHECK(kinds == std::vector<std::string>{"state_update", "user_message", "agent_message_chunk",
                                            "agent_message_chunk", "agent_thought_chunk", "tool_call_update",
                                            "tool_call_update", "tool_call_content_chunk", "terminal_update",
                                            "terminal_output_chunk", "terminal_output_chunk", "terminal_update",
                                            "tool_call_update", "plan_update", "agent_message", "usage_update",
                                            "session_info_update", "state_update"});
    const auto* diff_update = peer.updates[6].update.tool_call_update();
    REQUIRE(diff_update != nullptr);
    REQUIRE(diff_update->content.has_value());
    REQUIRE(diff_update->content->size() == 1);
    const auto* diff = (*diff_update->content)[0].diff();
    REQUIRE(diff != nullptr);
    CHECK(diff->changes.size() == 1);
    // The completed tool call cleared its capabilities with null (absent would mean unchanged).
    CHECK(peer.updates[12].update.tool_call_update()->capabilities.is_null());
    // In the model the three updates made one tool call: fields of the first kept where
    // the later ones said nothing, the cancel capability gone, the final status set.
    const acp::SessionItem* item = peer.client->sessions().find(session)->item(acp::ItemKind::tool_call, "tc1");
    REQUIRE(item != nullptr);
    const acp::ToolCallItem& tool = *item->tool_call();
    CHECK(tool.title == std::optional<std::string>("Edit hello.txt"));
    CHECK(tool.kind.value == "edit");
    CHECK(tool.status.value == "completed");
    CHECK_FALSE(tool.capabilities.has_value());
    CHECK(tool.locations.size() == 1);
    CHECK(tool.content.size() == 2);  // the diff, then the terminal chunk appended
}

TEST_CASE("client v2: a permission request reaches the host, which may answer later") {
    TsPeer peer;
    std::optional<acp::PermissionResponder> pending;
    std::optional<v2::RequestPermissionRequest> asked;
    peer.client->on_permission_request([&](const v2::RequestPermissionRequest& request, acp::PermissionResponder r) {
        asked = request;
        pending = r;
    });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto response = peer.wait<v2::PromptResponse>(
        [&](auto done) { peer.client->prompt(TsPeer::text_prompt(session, "permission"), done); });
    REQUIRE(response.ok());
    REQUIRE(peer.loop.run_until([&] { return pending.has_value(); }));
    CHECK(asked->options.size() == 3);
    REQUIRE(asked->subject.has_value());
    CHECK(asked->subject->tool_call()->toolCall.toolCallId == "tc1");
    peer.loop.run_for(std::chrono::milliseconds(50));  // the agent waits
    pending->select("allow-once");
    pending.reset();
    REQUIRE(peer.loop.run_until([&] { return peer.idle_count() == 1; }));
    CHECK(peer.last_stop_reason() == "end_turn");
    CHECK(peer.agent_text("m2") == "Permission granted (allow-once); the command ran.");
}

TEST_CASE("client v2: without a handler, or with an option never offered, permission is cancelled") {
    // CLIENT-MUST-71: never silently approved.
    {
        TsPeer peer;
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session();
        REQUIRE(peer.prompt_turn(session, "permission").ok());
        CHECK(peer.last_stop_reason() == "cancelled");
    }
    {
        TsPeer peer;
        peer.client->on_permission_request(
            [](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { r.select("allow-everything"); });
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session();
        REQUIRE(peer.prompt_turn(session, "permission").ok());
        CHECK(peer.last_stop_reason() == "cancelled");
        // What went out is "cancelled", not the unoffered id.
        CHECK(sent_contains(peer, R"("result":{"outcome":{"outcome":"cancelled"}})"));
        CHECK_FALSE(sent_contains(peer, "allow-everything"));
    }
}

TEST_CASE("client v2: cancelling a turn - the agent withdraws its permission request, libacp answers cancelled") {
    // CLIENT-MUST-68: answered "cancelled" when the agent withdraws it; the host is told.
    TsPeer peer;
    std::optional<acp::PermissionResponder> pending;
    bool withdrawn = false;
    peer.client->on_permission_request([&](const v2::RequestPermissionRequest&, acp::PermissionResponder r) {
        r.on_withdrawn([&] { withdrawn = true; });
        pending = r;
    });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.start_prompt(session, "permission").ok());
    REQUIRE(peer.loop.run_until([&] { return pending.has_value(); }));
    peer.client->cancel(session);
    REQUIRE(peer.loop.run_until([&] { return withdrawn; }));
    CHECK(pending->answered());
    CHECK(sent_contains(peer, R"("result":{"outcome":{"outcome":"cancelled"}})"));
    REQUIRE(peer.loop.run_until([&] { return peer.idle_count() == 1; }));
    CHECK(peer.last_stop_reason() == "cancelled");
    const std::size_t sent_before = peer.sent.size();
    pending->select("allow-once");  // too late: dropped, never a second answer
    peer.loop.run_for(std::chrono::milliseconds(20));
    CHECK(peer.sent.size() == sent_before);
}

TEST_CASE("client v2: session/cancel stops a running turn - updates keep coming until idle") {
    // CLIENT-MUST-60, -65
    TsPeer peer({"--slow-ms=20"});
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.start_prompt(session, "slow").ok());
    REQUIRE(peer.loop.run_until([&] { return peer.agent_text("m1").find("tick 2") != std::string::npos; }));
    peer.client->cancel(session);
    REQUIRE(peer.loop.run_until([&] { return peer.idle_count() == 1; }));
    CHECK(peer.last_stop_reason() == "cancelled");
    CHECK(sent_contains(peer, R"("method":"session/cancel","params":{"sessionId":")" + session));
}

TEST_CASE("client v2: tool_call/cancel only while the tool call advertises cancel") {
    // CLIENT-MUST-36
    TsPeer peer({"--slow-ms=20"});
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto early =
        peer.wait<v2::CancelToolCallResponse>([&](auto done) { peer.client->cancel_tool_call(session, "tc1", done); });
    CHECK(early.status().message().find("CLIENT-MUST-36") != std::string::npos);
    REQUIRE(peer.start_prompt(session, "slow").ok());
    REQUIRE(peer.loop.run_until([&] { return peer.agent_text("m1").find("tick 1") != std::string::npos; }));
    auto cancelled =
        peer.wait<v2::CancelToolCallResponse>([&](auto done) { peer.client->cancel_tool_call(session, "tc1", done); });
    CHECK_MESSAGE(cancelled.ok(), cancelled.status().to_string());
    // The agent confirms with a final status and withdraws the capability.
    REQUIRE(peer.loop.run_until([&] {
        for (const auto& n : peer.updates) {
            const auto* tool = n.update.tool_call_update();
            if (tool && tool->status.has_value() && tool->status->value == "cancelled") return true;
        }
        return false;
    }));
    auto again =
        peer.wait<v2::CancelToolCallResponse>([&](auto done) { peer.client->cancel_tool_call(session, "tc1", done); });
    CHECK(again.status().code() == Errc::invalid_argument);
    peer.client->cancel(session);
    peer.loop.run_until([&] { return peer.idle_count() == 1; });
}

TEST_CASE("client v2: resume with replay delivers the history before the call completes") {
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "tool").ok());
    std::vector<v2::UpdateSessionNotification> live;
    for (const auto& n : peer.updates) {
        if (n.update.kind() != v2::SessionUpdate::Kind::state_update) live.push_back(n);
    }
    REQUIRE(peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(session, done); }).ok());
    peer.updates.clear();
    std::size_t updates_when_done = 0;
    v2::ResumeSessionRequest request;
    request.sessionId = session;
    request.cwd = "/tmp";
    request.replayFrom = v2::ReplayFrom::make_start({});
    auto resumed = peer.wait<v2::ResumeSessionResponse>([&](auto done) {
        peer.client->resume_session(request, [&, done](Result<v2::ResumeSessionResponse> r) {
            updates_when_done = peer.updates.size();
            done(std::move(r));
        });
    });
    REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
    std::vector<v2::UpdateSessionNotification> replayed;
    for (const auto& n : peer.updates) {
        if (n.update.kind() != v2::SessionUpdate::Kind::state_update) replayed.push_back(n);
    }
    CHECK(updates_when_done == peer.updates.size());  // all of it before done ran
    CHECK(replayed == live);                          // same ids, same content
    CHECK(peer.updates.back().update.kind() == v2::SessionUpdate::Kind::state_update);
}

TEST_CASE("client v2: resume refuses cursors v2 does not define") {
    // CLIENT-MUST-47
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    v2::ResumeSessionRequest request;
    request.sessionId = "sess-1";
    request.cwd = "/tmp";
    request.replayFrom = v2::ReplayFrom::make_unknown("message", acp::RawJson{R"({"type":"message","id":"m1"})"});
    auto result = peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(request, done); });
    CHECK(result.status().message().find("CLIENT-MUST-47") != std::string::npos);
}

TEST_CASE("client v2: session/list pages through opaque cursors") {
    // CLIENT-MUST-43
    TsPeer peer({"--page-size=2"});
    REQUIRE(peer.initialize().ok());
    for (int i = 0; i < 5; ++i) peer.new_session(i < 3 ? "/tmp" : "/var");
    auto all =
        peer.wait<std::vector<v2::SessionInfo>>([&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
    REQUIRE_MESSAGE(all.ok(), all.status().to_string());
    CHECK(all->size() == 5);
    auto filtered = peer.wait<std::vector<v2::SessionInfo>>(
        [&](auto done) { peer.client->list_all_sessions(std::string("/var"), done); });
    REQUIRE(filtered.ok());
    CHECK(filtered->size() == 2);
    // Three pages of two were needed for all five.
    CHECK(std::count_if(peer.sent.begin(), peer.sent.end(), [](const std::string& line) {
              return line.find("\"session/list\"") != std::string::npos && line.find("\"cursor\"") != std::string::npos;
          }) >= 2);
}

TEST_CASE("client v2: paging takes an empty-string cursor as a cursor and stops at a null one") {
    // CLIENT-MUST-43: "" is a valid cursor (not the end); null ends the listing.
    TsPeer peer({"--page-size=2", "--empty-cursor"});
    REQUIRE(peer.initialize().ok());
    for (int i = 0; i < 5; ++i) peer.new_session();
    auto all =
        peer.wait<std::vector<v2::SessionInfo>>([&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
    REQUIRE_MESSAGE(all.ok(), all.status().to_string());
    CHECK(all->size() == 5);
    CHECK(sent_contains(peer, R"("method":"session/list","params":{"cursor":""})"));
    // The last page said nextCursor: null, and the client asked no further.
    CHECK(std::count_if(peer.sent.begin(), peer.sent.end(), [](const std::string& line) {
              return line.find("\"session/list\"") != std::string::npos;
          }) == 3);
}

TEST_CASE("client v2: close and delete treat an unknown session as success - delete needs the capability") {
    TsPeer peer({"--caps=stdio-only"});
    REQUIRE(peer.initialize().ok());
    // CLIENT-MUST-46
    CHECK(peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session("nope", done); }).ok());
    // CLIENT-MUST-34
    auto deleted = peer.wait<v2::DeleteSessionResponse>([&](auto done) { peer.client->delete_session("nope", done); });
    CHECK(deleted.status().message().find("CLIENT-MUST-34") != std::string::npos);

    TsPeer full;
    REQUIRE(full.initialize().ok());
    const std::string session = full.new_session();
    CHECK(full.wait<v2::DeleteSessionResponse>([&](auto done) { full.client->delete_session(session, done); }).ok());
    auto listed =
        full.wait<std::vector<v2::SessionInfo>>([&](auto done) { full.client->list_all_sessions(std::nullopt, done); });
    REQUIRE(listed.ok());
    CHECK(listed->empty());

    // An agent that answers -32002 for sessions it does not know: close and delete still
    // succeed (CLIENT-MUST-46), and the agent did answer -32002 to both.
    TsPeer strict({"--unknown-session-errors"});
    REQUIRE(strict.initialize().ok());
    CHECK(strict.wait<v2::CloseSessionResponse>([&](auto done) { strict.client->close_session("gone", done); }).ok());
    CHECK(strict.wait<v2::DeleteSessionResponse>([&](auto done) { strict.client->delete_session("gone", done); }).ok());
    std::size_t not_found = 0;
    for (const auto& message : strict.agent_sent()) not_found += message.find(R"("code":-32002)") != std::string::npos;
    CHECK(not_found == 2);
}

TEST_CASE("client v2: config options are set with the right value type and replaced by the full answer") {
    // CLIENT-MUST-45, -56
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto set = [&](const std::string& id, v2::SetSessionConfigOptionRequestType value) {
        v2::SetSessionConfigOptionRequest request;
        request.sessionId = session;
        request.configId = id;
        request.type = std::move(value);
        return peer.wait<v2::SetSessionConfigOptionResponse>(
            [&](auto done) { peer.client->set_config_option(request, done); });
    };
    auto by_id = [](const std::string& value) {
        v2::SetSessionConfigOptionRequestTypeId id;
        id.value = value;
        return v2::SetSessionConfigOptionRequestType::make_id(std::move(id));
    };
    auto boolean = [](bool value) {
        v2::SetSessionConfigOptionRequestTypeBoolean b;
        b.value = value;
        return v2::SetSessionConfigOptionRequestType::make_boolean(b);
    };
    const std::size_t sent_before = peer.sent.size();
    CHECK(set("model", by_id("model-z")).status().message().find("CLIENT-MUST-45") != std::string::npos);
    CHECK(set("model", boolean(true)).status().message().find("CLIENT-MUST-45") != std::string::npos);
    CHECK(set("fast", by_id("yes")).status().message().find("CLIENT-MUST-45") != std::string::npos);
    CHECK(set("effort", by_id("high")).status().code() == Errc::invalid_argument);  // not offered (yet)
    CHECK(peer.sent.size() == sent_before);
    auto switched = set("model", by_id("model-b"));
    REQUIRE_MESSAGE(switched.ok(), switched.status().to_string());
    CHECK(switched->configOptions.size() == 3);  // the full list: effort appeared
    CHECK(set("effort", by_id("high")).ok());    // known now, from the replaced list
    CHECK(set("fast", boolean(true)).ok());
}

TEST_CASE("client v2: extension requests and notifications both ways") {
    TsPeer peer;
    int pings = 0;
    std::string notice;
    peer.client->on_ext_request("_test/ping", [&](const acp::RawJson& params, acp::ExtResponder r) {
        ++pings;
        CHECK(params.text.find("\"n\":1") != std::string::npos);
        r.respond(acp::RawJson{R"({"pong":true})"});
    });
    peer.client->on_ext_notification("_test/notice", [&](const acp::RawJson& params) { notice = params.text; });
    REQUIRE(peer.initialize().ok());
    auto echoed = peer.wait<acp::RawJson>(
        [&](auto done) { peer.client->ext_request("_test/echo", acp::RawJson{R"({"a":[1,2]})"}, done); });
    REQUIRE(echoed.ok());
    CHECK(echoed->text == R"({"a":[1,2]})");
    auto bad =
        peer.wait<acp::RawJson>([&](auto done) { peer.client->ext_request("test/echo", acp::RawJson{"{}"}, done); });
    CHECK(bad.status().message().find("CLIENT-MUST-16") != std::string::npos);
    CHECK(peer.client->ext_notification("_test/note", acp::RawJson{R"({"x":1})"}).ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "ext").ok());
    CHECK(pings == 1);
    CHECK(peer.agent_text("m1") == R"(ext result: {"pong":true})");
    CHECK(notice.find("hello from the agent") != std::string::npos);
}

TEST_CASE("client v2: an agent request for a method the host does not serve gets -32601") {
    // CLIENT-MUST-08
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "ext").ok());
    CHECK(peer.agent_text("m1") == "ext error: -32601");
}

TEST_CASE("client v2: form and url elicitations round trip - completion is delivered once") {
    TsPeer peer;
    std::vector<std::string> completed;
    peer.client->on_elicitation(
        true, true, [&](const v2::CreateElicitationRequest& request, acp::ElicitationResponder r) {
            if (request.mode.form() != nullptr) {
                CHECK(r.accept(acp::RawJson{"[1]"}).code() == Errc::invalid_argument);  // not an object: nothing sent
                CHECK(r.accept(acp::RawJson{R"({"name":"x","count":2})"}).ok());
            } else {
                CHECK(request.mode.url()->url.rfind("https://example.com/login", 0) == 0);
                CHECK(r.accept(acp::RawJson{}).ok());
            }
        });
    peer.client->on_elicitation_complete(
        [&](const v2::CompleteElicitationNotification& n) { completed.push_back(n.elicitationId); });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "elicit-form").ok());
    CHECK(peer.agent_text("m1") == R"(Form result: accept {"count":2,"name":"x"})");
    REQUIRE(peer.prompt_turn(session, "elicit-url").ok());
    CHECK(peer.agent_text("m2") == "URL result: accept");
    CHECK(completed == std::vector<std::string>{"elic-1"});
}

TEST_CASE("client v2: an outstanding request can be withdrawn - its callback says cancelled") {
    TsPeer peer({"--slow-ms=20"});
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.start_prompt(session, "slow").ok());
    // A second prompt is held by the agent while the first turn runs.
    std::optional<Result<v2::PromptResponse>> held;
    acp::RequestHandle handle = peer.client->prompt(TsPeer::text_prompt(session, "hello"),
                                                    [&](Result<v2::PromptResponse> r) { held.emplace(std::move(r)); });
    CHECK(peer.client->cancel_request(handle));
    REQUIRE(peer.loop.run_until([&] { return held.has_value(); }));
    CHECK(held->status().code() == Errc::cancelled);
    CHECK(sent_contains(peer, R"("method":"$/cancel_request","params":{"requestId":)" + std::to_string(handle.id)));
    peer.client->cancel(session);
    peer.loop.run_until([&] { return peer.idle_count() >= 1; });
}

TEST_CASE("client v2: an http-only agent gets http MCP servers and no stdio ones") {
    // CLIENT-MUST-33
    TsPeer peer({"--caps=http-only"});
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest stdio;
    stdio.cwd = "/tmp";
    stdio.mcpServers = std::vector<v2::McpServer>{stdio_server("db", "/bin/db")};
    auto refused = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(stdio, done); });
    CHECK(refused.status().message().find("over stdio") != std::string::npos);
    v2::NewSessionRequest http;
    http.cwd = "/tmp";
    http.mcpServers = std::vector<v2::McpServer>{http_server("web")};
    auto accepted = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(http, done); });
    CHECK_MESSAGE(accepted.ok(), accepted.status().to_string());
}
