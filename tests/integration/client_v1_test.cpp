// SPDX-License-Identifier: Apache-2.0
// The Client against an ACP v1 agent: tests/peers/ts-agent/agent-v1.mjs, on the official
// TypeScript SDK's default (v1) entry point. The client negotiates down, and the v1
// traffic is lifted into the v2 model: the same conversation leaves the same model as
// with the v2 peer. The client's traffic is validated against the v1 schema at the end.
#include <doctest/doctest.h>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/ts_peer.hpp"

using acp::Errc;
using acp::Result;
using acp::test::TsPeer;
namespace v1 = acp::v1;
namespace v2 = acp::v2;

namespace {

bool sent_contains(const TsPeer& peer, const std::string& fragment) {
    return std::any_of(peer.sent.begin(), peer.sent.end(),
                       [&](const std::string& line) { return line.find(fragment) != std::string::npos; });
}

std::size_t sent_count(const TsPeer& peer, const std::string& fragment) {
    return static_cast<std::size_t>(std::count_if(peer.sent.begin(), peer.sent.end(), [&](const std::string& line) {
        return line.find(fragment) != std::string::npos;
    }));
}

// The text of every agent message in the model, in order.
std::string agent_texts(const acp::SessionState& state) {
    std::string text;
    for (const auto& item : state.items()) {
        if (item.kind() != acp::ItemKind::agent_message) continue;
        for (const auto& block : item.message()->content) {
            if (block.text() != nullptr) text += block.text()->text;
        }
        text += "|";
    }
    return text;
}

// The canonical dump with message ids replaced by their position: a v1 client
// synthesizes the user message's id (v1 prompts have none), and without messageId on the
// wire every message id is synthetic (docs/v1.md). Everything else must be identical.
std::string without_message_ids(const std::string& dump) {
    rapidjson::Document document;
    document.Parse(dump.c_str());
    REQUIRE_FALSE(document.HasParseError());
    int n = 0;
    for (auto& item : document["items"].GetArray()) {
        const std::string kind = item["kind"].GetString();
        if (kind == "user_message" || kind == "agent_message" || kind == "agent_thought") {
            const std::string id = "message-" + std::to_string(++n);
            item["id"].SetString(id.c_str(), static_cast<rapidjson::SizeType>(id.size()), document.GetAllocator());
        }
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    document.Accept(writer);
    return buffer.GetString();
}

// hello, work and permission (allowed once) in one session: the model's dump.
std::string play_conversation(TsPeer& peer) {
    peer.client->on_permission_request(
        [](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { r.select("allow-once"); });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    for (const char* prompt : {"hello", "work", "permission"}) {
        auto turn = peer.prompt_turn(session, prompt);
        REQUIRE_MESSAGE(turn.ok(), turn.status().to_string());
    }
    const acp::SessionState* state = peer.client->sessions().find(session);
    REQUIRE(state != nullptr);
    return acp::to_json(*state);
}

v2::SetSessionConfigOptionRequestType by_id(const std::string& value) {
    v2::SetSessionConfigOptionRequestTypeId id;
    id.value = value;
    return v2::SetSessionConfigOptionRequestType::make_id(std::move(id));
}

Result<v2::SetSessionConfigOptionResponse> set_option(TsPeer& peer, const std::string& session, const std::string& id,
                                                      v2::SetSessionConfigOptionRequestType value) {
    v2::SetSessionConfigOptionRequest request;
    request.sessionId = session;
    request.configId = id;
    request.type = std::move(value);
    return peer.wait<v2::SetSessionConfigOptionResponse>(
        [&](auto done) { peer.client->set_config_option(request, done); });
}

const v2::SessionConfigOption* option(const acp::SessionState& state, const std::string& id) {
    if (!state.config_options()) return nullptr;
    for (const auto& o : *state.config_options()) {
        if (o.configId == id) return &o;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("client v1: a v1 agent is negotiated down and sees the client's v1 info and capabilities") {
    TsPeer peer(TsPeer::v1);
    peer.client->on_read_text_file([](const v1::ReadTextFileRequest&, acp::ClientMethodResponder) {});
    REQUIRE(peer.client->negotiated_version() == 0);
    auto init = peer.initialize();
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    CHECK(peer.client->negotiated_version() == 1);
    CHECK(init->protocolVersion == 1);
    CHECK(init->info.name == "libacp-ts-peer-v1");
    REQUIRE(peer.client->agent_v1() != nullptr);
    CHECK(peer.client->agent_v1()->agentCapabilities->loadSession == true);
    // Lifted: v1 booleans become v2 markers; stdio MCP is always there.
    REQUIRE(init->capabilities->session.has_value());
    CHECK(init->capabilities->session->prompt->image.has_value());
    CHECK(init->capabilities->session->mcp->stdio.has_value());
    CHECK(init->capabilities->session->mcp->http.has_value());
    // Asked for 2 first, then said it again in v1 on the same connection.
    CHECK(sent_count(peer, R"("method":"initialize")") == 2);
    CHECK(sent_contains(peer, R"("protocolVersion":2,"info":)"));
    CHECK(sent_contains(peer, R"("protocolVersion":1,"clientCapabilities":)"));

    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "caps").ok());
    const std::string said = agent_texts(*peer.client->sessions().find(session));
    INFO(said);
    CHECK(said.find(R"("clientInfo":{"name":"libacp-tests","version":"1.0"})") != std::string::npos);
    // Only what the host serves is advertised: read yes, write and terminals no.
    CHECK(said.find(R"("fs":{"readTextFile":true,"writeTextFile":false})") != std::string::npos);
    CHECK(said.find(R"("terminal":false)") != std::string::npos);
}

TEST_CASE("client v1: a host that knows its agent speaks v1 sends the v1 initialize first") {
    acp::ClientOptions options;
    options.protocol_version = 1;
    TsPeer peer(TsPeer::v1, {}, options);
    REQUIRE(peer.initialize().ok());
    CHECK(peer.client->negotiated_version() == 1);
    CHECK(sent_count(peer, R"("method":"initialize")") == 1);
    CHECK(sent_contains(peer, R"("protocolVersion":1,"clientCapabilities":)"));
}

TEST_CASE("client v1: asked for v1 first, a v2 agent is answered in v2") {
    acp::ClientOptions options;
    options.protocol_version = 1;
    TsPeer peer({}, options);
    auto init = peer.initialize();
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    CHECK(peer.client->negotiated_version() == 2);
    CHECK(peer.client->agent_v1() == nullptr);
    CHECK(sent_count(peer, R"("method":"initialize")") == 2);
    const std::string session = peer.new_session();
    CHECK(peer.prompt_turn(session, "hello").ok());
}

TEST_CASE("client v1: a prompt turn - running and the user message, the chunks, idle with the response's stop reason") {
    TsPeer peer(TsPeer::v1);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto response = peer.prompt_turn(session, "hello");
    REQUIRE_MESSAGE(response.ok(), response.status().to_string());
    std::vector<std::string> tags;
    for (const auto& n : peer.updates) {
        if (n.update.tag() != "available_commands_update") tags.push_back(n.update.tag());
    }
    CHECK(tags == std::vector<std::string>{"state_update", "user_message", "agent_message_chunk", "agent_message_chunk",
                                           "state_update"});
    CHECK(peer.last_stop_reason() == "end_turn");
    // The response names the user message the model shows (v1 prompts carry no id).
    const acp::SessionState* state = peer.client->sessions().find(session);
    REQUIRE(state != nullptr);
    REQUIRE(state->items().size() == 2);
    CHECK(state->items()[0].kind() == acp::ItemKind::user_message);
    CHECK(state->items()[0].id() == response->messageId);
    CHECK(state->foreground().is_idle());
    CHECK(agent_texts(*state) == "Hello, world!|");
    // The peer sends its commands on a timer after the session/new answer: on a loaded
    // machine they may come after the turn.
    REQUIRE(peer.loop.run_until([&] { return state->available_commands().has_value(); }));
    CHECK(state->available_commands()->size() == 2);  // lifted from v1's {name, input: {hint}}
}

TEST_CASE("client v1: the same conversation leaves the same model as with the v2 agent") {
    std::string v2_dump;
    {
        TsPeer peer;
        v2_dump = play_conversation(peer);
    }
    std::string v1_dump;
    {
        TsPeer peer(TsPeer::v1);
        v1_dump = play_conversation(peer);
    }
    // The agent sent message ids (v1 allows them): only the user messages' ids differ.
    CHECK(without_message_ids(v1_dump) == without_message_ids(v2_dump));
    CHECK(v1_dump.find(R"("id":"m2")") != std::string::npos);
    CHECK(v1_dump.find(R"("planId":"main")") != std::string::npos);

    // Without any messageId the client groups chunks itself, into the same messages.
    std::string anonymous_dump;
    {
        TsPeer peer(TsPeer::v1, {"--no-message-ids"});
        anonymous_dump = play_conversation(peer);
    }
    CHECK(without_message_ids(anonymous_dump) == without_message_ids(v2_dump));
    CHECK(anonymous_dump.find(R"("id":"v1-m2")") != std::string::npos);
}

TEST_CASE("client v1: a permission request in v1 shape reaches the host as v2, its tool call applied first") {
    // CLIENT-MUST-70
    TsPeer peer(TsPeer::v1);
    std::optional<v2::RequestPermissionRequest> asked;
    bool tool_call_known = false;
    std::string session;
    peer.client->on_permission_request([&](const v2::RequestPermissionRequest& request, acp::PermissionResponder r) {
        asked = request;
        const acp::SessionState* state = peer.client->sessions().find(session);
        tool_call_known = state != nullptr && state->item(acp::ItemKind::tool_call, "tc1") != nullptr;
        r.select("reject-once");
    });
    REQUIRE(peer.initialize().ok());
    session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "permission").ok());
    REQUIRE(asked.has_value());
    CHECK(asked->title == "Run rm -rf build");
    REQUIRE(asked->subject.has_value());
    CHECK(asked->subject->tool_call()->toolCall.toolCallId == "tc1");
    CHECK(asked->options.size() == 3);
    CHECK(tool_call_known);
    CHECK(sent_contains(peer, R"("outcome":{"outcome":"selected","optionId":"reject-once"})"));
    CHECK(peer.last_stop_reason() == "end_turn");
}

TEST_CASE("client v1: cancel answers pending permission requests cancelled and the turn ends cancelled") {
    // CLIENT-GUIDE 10: in v1 the client itself answers every pending permission "cancelled".
    TsPeer peer(TsPeer::v1);
    std::optional<acp::PermissionResponder> pending;
    peer.client->on_permission_request(
        [&](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { pending = r; });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    std::optional<Result<v2::PromptResponse>> done;
    peer.client->prompt(TsPeer::text_prompt(session, "permission"),
                        [&](Result<v2::PromptResponse> r) { done.emplace(std::move(r)); });
    REQUIRE(peer.loop.run_until([&] { return pending.has_value(); }));
    peer.client->cancel(session);
    CHECK(pending->answered());
    REQUIRE(peer.loop.run_until([&] { return done.has_value(); }));
    CHECK(done->ok());
    CHECK(sent_contains(peer, R"("result":{"outcome":{"outcome":"cancelled"}})"));
    CHECK(sent_contains(peer, R"("method":"session/cancel")"));
    CHECK(peer.last_stop_reason() == "cancelled");
}

TEST_CASE("client v1: session/cancel stops a running turn - the response ends it cancelled") {
    TsPeer peer(TsPeer::v1, {"--slow-ms=20"});
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    std::optional<Result<v2::PromptResponse>> done;
    peer.client->prompt(TsPeer::text_prompt(session, "slow"),
                        [&](Result<v2::PromptResponse> r) { done.emplace(std::move(r)); });
    REQUIRE(peer.loop.run_until([&] { return peer.agent_text("m1").find("tick 2") != std::string::npos; }));
    CHECK_FALSE(done.has_value());  // a v1 prompt answers at the end of the turn
    const acp::SessionState* state = peer.client->sessions().find(session);
    CHECK(state->foreground().state == "running");
    peer.client->cancel(session);
    REQUIRE(peer.loop.run_until([&] { return done.has_value(); }));
    CHECK(peer.last_stop_reason() == "cancelled");
    CHECK(state->foreground().is_idle());
}

TEST_CASE("client v1: a failed prompt ends the turn idle with the error") {
    TsPeer peer(TsPeer::v1);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto response = peer.prompt_turn(session, "fail");
    CHECK(response.status().code() == Errc::rpc_error);
    CHECK(peer.last_stop_reason() == "error");
    const acp::SessionState* state = peer.client->sessions().find(session);
    REQUIRE(state->foreground().error.has_value());
    CHECK(state->foreground().error->message.find("Scripted failure") != std::string::npos);
}

TEST_CASE("client v1: resume with replay is session/load - the replay rebuilds the live model") {
    // CLIENT-GUIDE 7.6 and 10
    // --late-replay: the agent answers session/load before it replays; the replay is
    // complete all the same when the callback runs (ClientOptions::replay_settle).
    for (const char* ids : {"--slow-ms=1", "--no-message-ids", "--late-replay"}) {
        INFO(ids);
        TsPeer peer(TsPeer::v1, {ids});
        peer.client->on_permission_request(
            [](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { r.select("allow-once"); });
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session();
        for (const char* prompt : {"hello", "work", "permission"}) REQUIRE(peer.prompt_turn(session, prompt).ok());
        const std::string live = acp::to_json(*peer.client->sessions().find(session));

        REQUIRE(
            peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(session, done); }).ok());
        v2::ResumeSessionRequest request;
        request.sessionId = session;
        request.cwd = "/tmp";
        request.replayFrom = v2::ReplayFrom::make_start({});
        auto resumed =
            peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(request, done); });
        REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
        CHECK(sent_contains(peer, R"("method":"session/load")"));
        CHECK(resumed->configOptions.has_value());
        // A v1 replay has no turn boundaries: the last stop reason is not in it (docs/v1.md).
        std::string replayed = acp::to_json(*peer.client->sessions().find(session));
        const std::string stop = R"("stopReason":"end_turn")";
        std::string expected = live;
        expected.replace(expected.find(stop), stop.size(), R"("stopReason":null)");
        CHECK(replayed == expected);
        // The next turn lands after the whole history.
        const std::size_t held = peer.client->sessions().find(session)->items().size();
        REQUIRE(peer.prompt_turn(session, "hello").ok());
        const auto& items = peer.client->sessions().find(session)->items();
        REQUIRE(items.size() == held + 2);
        CHECK(items[held].kind() == acp::ItemKind::user_message);
        CHECK(items[held + 1].kind() == acp::ItemKind::agent_message);
    }
}

TEST_CASE("client v1: modes become a config option - setting it sends session/set_mode") {
    TsPeer peer(TsPeer::v1, {"--modes"});
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    const acp::SessionState* state = peer.client->sessions().find(session);
    REQUIRE(state != nullptr);
    const v2::SessionConfigOption* mode = option(*state, "_v1_mode");
    REQUIRE(mode != nullptr);
    CHECK(mode->category.has_value());
    CHECK(mode->type.select()->currentValue == "ask");
    CHECK(mode->type.select()->options.options()->size() == 2);
    CHECK(option(*state, "model") != nullptr);  // the agent's own options stay beside it

    auto changed = set_option(peer, session, "_v1_mode", by_id("code"));
    REQUIRE_MESSAGE(changed.ok(), changed.status().to_string());
    CHECK(sent_contains(peer,
                        R"("method":"session/set_mode","params":{"sessionId":")" + session + R"(","modeId":"code"})"));
    CHECK(option(*state, "_v1_mode")->type.select()->currentValue == "code");
    CHECK(changed->configOptions.size() == 3);
    // CLIENT-MUST-45 holds for the synthesized option as for any other.
    CHECK(set_option(peer, session, "_v1_mode", by_id("nope")).status().code() == Errc::invalid_argument);
}

TEST_CASE("client v1: a host's _meta and extra fields reach a v1 agent on every request that takes them") {
    // CLIENT-GUIDE 1.5: _meta is the host's to send; lowering to v1 must not drop it.
    TsPeer peer(TsPeer::v1, {"--modes"});
    REQUIRE(peer.initialize().ok());
    const auto add_host_members = [](auto& request) {
        request._meta = acp::RawJson{R"({"editor":{"buffer":7}})"};
        request.extra_fields.emplace_back("hostHint", acp::RawJson{R"("kept")"});
    };
    // What the agent read, as the peer recorded it (and validated against the v1 schema).
    const auto received_with_host_members = [&](const std::string& method) {
        const auto lines = peer.received();
        return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
            return line.find(R"("method":")" + method + R"(")") != std::string::npos &&
                   line.find(R"("_meta":{"editor":{"buffer":7}})") != std::string::npos &&
                   line.find(R"("hostHint":"kept")") != std::string::npos;
        });
    };

    v2::NewSessionRequest created;
    created.cwd = "/tmp";
    add_host_members(created);
    auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(created, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    CHECK(received_with_host_members("session/new"));
    const std::string id = session->sessionId;

    v2::PromptRequest prompt = TsPeer::text_prompt(id, "hello");
    add_host_members(prompt);
    REQUIRE(peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(prompt, done); }).ok());
    CHECK(received_with_host_members("session/prompt"));

    for (const auto& [config, value] :
         {std::pair<std::string, std::string>{"model", "model-b"}, {"_v1_mode", "code"}}) {
        v2::SetSessionConfigOptionRequest set;
        set.sessionId = id;
        set.configId = config;
        set.type = by_id(value);
        add_host_members(set);
        auto changed = peer.wait<v2::SetSessionConfigOptionResponse>(
            [&](auto done) { peer.client->set_config_option(set, done); });
        REQUIRE_MESSAGE(changed.ok(), changed.status().to_string());
    }
    CHECK(received_with_host_members("session/set_config_option"));
    CHECK(received_with_host_members("session/set_mode"));

    v2::ListSessionsRequest list;
    add_host_members(list);
    REQUIRE(peer.wait<v2::ListSessionsResponse>([&](auto done) { peer.client->list_sessions(list, done); }).ok());
    CHECK(received_with_host_members("session/list"));

    v2::ResumeSessionRequest resume;
    resume.sessionId = id;
    resume.cwd = "/tmp";
    add_host_members(resume);
    REQUIRE(peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(resume, done); }).ok());
    CHECK(received_with_host_members("session/resume"));
    resume.replayFrom = v2::ReplayFrom::make_start({});
    REQUIRE(peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(resume, done); }).ok());
    CHECK(received_with_host_members("session/load"));
}

TEST_CASE("client v1: config options travel with v1 field names and come back as the full list") {
    // CLIENT-MUST-56
    TsPeer peer(TsPeer::v1);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    auto switched = set_option(peer, session, "model", by_id("model-b"));
    REQUIRE_MESSAGE(switched.ok(), switched.status().to_string());
    CHECK(switched->configOptions.size() == 3);
    CHECK(sent_contains(peer, R"("configId":"model","value":"model-b")"));
    v2::SetSessionConfigOptionRequestTypeBoolean fast;
    fast.value = true;
    auto flipped = set_option(peer, session, "fast", v2::SetSessionConfigOptionRequestType::make_boolean(fast));
    REQUIRE_MESSAGE(flipped.ok(), flipped.status().to_string());
    CHECK(sent_contains(peer, R"("configId":"fast","type":"boolean","value":true)"));
    CHECK(option(*peer.client->sessions().find(session), "fast")->type.boolean()->currentValue);
}

TEST_CASE("client v1: fs handlers are advertised only when installed and serve the agent's requests") {
    char dir[] = "/tmp/acp-v1-fs-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    {
        TsPeer peer(TsPeer::v1);
        std::string read_path;
        std::string written;
        peer.client->on_read_text_file([&](const v1::ReadTextFileRequest& request, acp::ClientMethodResponder r) {
            read_path = request.path;
            v1::ReadTextFileResponse response;
            response.content = "abc";
            r.respond(response);
        });
        peer.client->on_write_text_file([&](const v1::WriteTextFileRequest& request, acp::ClientMethodResponder r) {
            written = request.content;
            r.respond(v1::WriteTextFileResponse{});
        });
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session(dir);
        REQUIRE(peer.prompt_turn(session, "fs").ok());
        CHECK(read_path == std::string(dir) + "/in.txt");
        CHECK(written == "cba");
        CHECK(agent_texts(*peer.client->sessions().find(session)) == "read 3 chars, wrote them reversed|");
    }
    {
        TsPeer peer(TsPeer::v1);
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session(dir);
        REQUIRE(peer.prompt_turn(session, "fs").ok());
        CHECK(agent_texts(*peer.client->sessions().find(session)) == "The client has no file system.|");
    }
    std::system((std::string("rm -rf ") + dir).c_str());
}

TEST_CASE("client v1: terminal handlers serve terminal/* and the tool call shows the terminal") {
    TsPeer peer(TsPeer::v1);
    std::vector<std::string> calls;
    acp::TerminalHandlers terminal;
    terminal.create = [&](const v1::CreateTerminalRequest& request, acp::ClientMethodResponder r) {
        calls.push_back("create " + request.command);
        v1::CreateTerminalResponse response;
        response.terminalId = "t-1";
        r.respond(response);
    };
    terminal.output = [&](const v1::TerminalOutputRequest&, acp::ClientMethodResponder r) {
        calls.push_back("output");
        v1::TerminalOutputResponse response;
        response.output = "hi\n";
        r.respond(response);
    };
    terminal.wait_for_exit = [&](const v1::WaitForTerminalExitRequest&, acp::ClientMethodResponder r) {
        calls.push_back("wait");
        v1::WaitForTerminalExitResponse response;
        response.exitCode = 0;
        r.respond(response);
    };
    terminal.kill = [&](const v1::KillTerminalRequest&, acp::ClientMethodResponder r) {
        r.respond(v1::KillTerminalResponse{});
    };
    terminal.release = [&](const v1::ReleaseTerminalRequest&, acp::ClientMethodResponder r) {
        calls.push_back("release");
        r.respond(v1::ReleaseTerminalResponse{});
    };
    peer.client->on_terminal(terminal);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "term").ok());
    CHECK(calls == std::vector<std::string>{"create echo", "wait", "output", "release"});
    const acp::SessionState* state = peer.client->sessions().find(session);
    const acp::SessionItem* tool = state->item(acp::ItemKind::tool_call, "tc1");
    REQUIRE(tool != nullptr);
    REQUIRE(tool->tool_call()->content.size() == 1);
    CHECK(tool->tool_call()->content[0].terminal()->terminalId == "t-1");
    CHECK(agent_texts(*state) == "terminal said \"hi\\n\", exit 0|");
    // The host's terminal shows in the model as a v2 display terminal, from the host's
    // own answers (CLIENT-GUIDE 10): its command, the output it reported, its exit.
    const acp::SessionItem* shown = state->item(acp::ItemKind::terminal, "t-1");
    REQUIRE(shown != nullptr);
    CHECK(shown->terminal()->command == std::optional<std::string>("echo hi"));
    CHECK(shown->terminal()->text == "hi\n");
    REQUIRE(shown->terminal()->exit_status.has_value());
    REQUIRE(shown->terminal()->exit_status->exitCode.has_value());
    CHECK(*shown->terminal()->exit_status->exitCode == 0);
    // Placed where first seen: created before the tool call that shows it.
    CHECK(*state->find(acp::ItemKind::terminal, "t-1") < *state->find(acp::ItemKind::tool_call, "tc1"));
}

TEST_CASE("client v1: list and close where advertised - nothing a minimal agent lacks is sent") {
    {
        TsPeer peer(TsPeer::v1);
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session();
        auto listed = peer.wait<std::vector<v2::SessionInfo>>(
            [&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
        REQUIRE_MESSAGE(listed.ok(), listed.status().to_string());
        CHECK(listed->size() == 1);
        CHECK(peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(session, done); }).ok());
    }
    {
        TsPeer peer(TsPeer::v1, {"--caps=minimal"});
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session();
        const std::size_t sent_before = peer.sent.size();
        CHECK(peer.wait<std::vector<v2::SessionInfo>>(
                      [&](auto done) { peer.client->list_all_sessions(std::nullopt, done); })
                  .status()
                  .code() == Errc::unsupported);
        CHECK(peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(session, done); })
                  .status()
                  .code() == Errc::unsupported);
        v2::ResumeSessionRequest request;
        request.sessionId = session;
        request.cwd = "/tmp";
        request.replayFrom = v2::ReplayFrom::make_start({});
        CHECK(peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(request, done); })
                  .status()
                  .code() == Errc::unsupported);
        CHECK(peer.sent.size() == sent_before);
        // The lifted capabilities say the same to a host that reads them.
        CHECK_FALSE(peer.client->agent()->capabilities->session->prompt->image.has_value());
    }
}

TEST_CASE("client v1: auth_required, then login through authenticate and logout where advertised") {
    TsPeer peer(TsPeer::v1, {"--auth-required"});
    REQUIRE(peer.initialize().ok());
    // v1 auth methods have `id` and no `type`: lifted to v2 agent methods.
    REQUIRE(peer.client->agent()->authMethods.has_value());
    REQUIRE(peer.client->agent()->authMethods->at(0).agent() != nullptr);
    CHECK(peer.client->agent()->authMethods->at(0).agent()->methodId == "peer-login");
    auto attempt = [&] {
        return peer.wait<v2::NewSessionResponse>([&](auto done) {
            v2::NewSessionRequest request;
            request.cwd = "/tmp";
            peer.client->new_session(request, done);
        });
    };
    CHECK(acp::is_auth_required(attempt().status()));
    // CLIENT-MUST-28: only advertised methods, before anything is sent.
    auto bogus = peer.wait<v2::LoginAuthResponse>([&](auto done) { peer.client->login("bogus", done); });
    CHECK(bogus.status().message().find("CLIENT-MUST-28") != std::string::npos);
    auto login = peer.wait<v2::LoginAuthResponse>([&](auto done) { peer.client->login("peer-login", done); });
    REQUIRE_MESSAGE(login.ok(), login.status().to_string());
    CHECK(sent_contains(peer, R"("method":"authenticate","params":{"methodId":"peer-login"})"));
    CHECK(attempt().ok());
    auto logout = peer.wait<v2::LogoutAuthResponse>([&](auto done) { peer.client->logout(done); });
    REQUIRE_MESSAGE(logout.ok(), logout.status().to_string());
    CHECK(sent_contains(peer, R"("method":"logout")"));
    CHECK(acp::is_auth_required(attempt().status()));
}

TEST_CASE("client v1: resume without replay is v1 session/resume, delete is session/delete") {
    TsPeer peer(TsPeer::v1);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "hello").ok());
    const acp::SessionState* state = peer.client->sessions().find(session);
    REQUIRE(peer.loop.run_until([&] { return state->available_commands().has_value(); }));  // sent on a timer
    const std::string live = acp::to_json(*state);
    v2::ResumeSessionRequest request;
    request.sessionId = session;
    request.cwd = "/tmp";
    auto resumed = peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(request, done); });
    REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
    CHECK(sent_contains(peer, R"("method":"session/resume")"));
    CHECK_FALSE(sent_contains(peer, R"("method":"session/load")"));
    // Nothing replayed, nothing reset: the model is what it was.
    CHECK(acp::to_json(*peer.client->sessions().find(session)) == live);
    auto deleted = peer.wait<v2::DeleteSessionResponse>([&](auto done) { peer.client->delete_session(session, done); });
    REQUIRE_MESSAGE(deleted.ok(), deleted.status().to_string());
    CHECK(sent_contains(peer, R"("method":"session/delete")"));
    auto listed =
        peer.wait<std::vector<v2::SessionInfo>>([&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
    REQUIRE(listed.ok());
    CHECK(listed->empty());
}
