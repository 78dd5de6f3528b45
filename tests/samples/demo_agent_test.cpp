// SPDX-License-Identifier: Apache-2.0
// The demo agent as an ACP peer of acp::Client: what one turn puts into the session model,
// the permission paths, cancel, config, list/resume with replay (also across an agent
// restart), close and delete, authentication. Both sides' traffic is schema-checked.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "acp/session.hpp"
#include "samples/demo_peer.hpp"

using acp::test::DemoPeer;
using acp::test::TempDir;
namespace v2 = acp::v2;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

std::size_t count_kind(const acp::SessionState& state, acp::ItemKind kind) {
    return static_cast<std::size_t>(
        std::count_if(state.items().begin(), state.items().end(),
                      [kind](const acp::SessionItem& item) { return item.kind() == kind; }));
}

std::string message_text(const acp::SessionItem& item) {
    std::string text;
    for (const auto& block : item.message()->content) {
        if (block.text() != nullptr) text += block.text()->text;
    }
    return text;
}

v2::ResumeSessionRequest replay_request(const std::string& session, const std::string& cwd = "/tmp/project") {
    v2::ResumeSessionRequest request;
    request.sessionId = session;
    request.cwd = cwd;
    request.replayFrom = v2::ReplayFrom::make_start({});
    return request;
}

}  // namespace

TEST_CASE("demo agent: one allowed turn fills every part of the session model") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    const auto* agent = peer.client->agent();
    REQUIRE(agent != nullptr);
    CHECK(agent->info.name == "acp-demo-agent");
    const std::string id = peer.new_session();
    const std::string user_id = peer.prompt_turn(id, "hello world");

    const acp::SessionState& state = peer.session(id);
    CHECK(state.foreground().is_idle());
    CHECK(state.foreground().stop_reason == std::optional<std::string>("end_turn"));
    REQUIRE(peer.permission_requests.size() == 1);
    CHECK(peer.permission_requests[0].options.size() == 3);

    // The user message, acknowledged with the id the agent echoed.
    REQUIRE(!state.items().empty());
    CHECK(state.items()[0].kind() == acp::ItemKind::user_message);
    CHECK(state.items()[0].id() == user_id);
    CHECK(count_kind(state, acp::ItemKind::agent_thought) == 1);
    CHECK(count_kind(state, acp::ItemKind::agent_message) == 2);
    CHECK(count_kind(state, acp::ItemKind::tool_call) == 2);
    CHECK(count_kind(state, acp::ItemKind::terminal) == 1);
    CHECK(count_kind(state, acp::ItemKind::plan) == 1);

    const acp::SessionItem* first = state.item(acp::ItemKind::agent_message, "m1");
    REQUIRE(first != nullptr);
    CHECK(contains(message_text(*first), "You said: hello world"));
    // Streamed: the reply came in several chunks.
    int chunks = 0;
    for (const auto& n : peer.updates) {
        if (const auto* c = n.update.agent_message_chunk(); c != nullptr && c->messageId == "m1") ++chunks;
    }
    CHECK(chunks > 3);

    const acp::SessionItem* edit = state.item(acp::ItemKind::tool_call, "tc1");
    REQUIRE(edit != nullptr);
    CHECK(edit->tool_call()->status == v2::ToolCallStatus::completed);
    CHECK(edit->tool_call()->kind == v2::ToolKind::edit);
    REQUIRE(edit->tool_call()->content.size() == 1);
    const v2::Diff* diff = edit->tool_call()->content[0].diff();
    REQUIRE(diff != nullptr);
    CHECK(diff->changes.size() == 1);
    REQUIRE(diff->patch.has_value());
    CHECK(contains(diff->patch->text, "+- hello world"));

    const acp::SessionItem* terminal = state.item(acp::ItemKind::terminal, "term1");
    REQUIRE(terminal != nullptr);
    CHECK(terminal->terminal()->text == "$ make check\r\nchecking NOTES.md ... ok\r\n1 file checked, 0 problems\r\n");
    REQUIRE(terminal->terminal()->exit_status.has_value());

    const acp::SessionItem* plan = state.item(acp::ItemKind::plan, "plan1");
    REQUIRE(plan != nullptr);
    REQUIRE(plan->plan()->plan.items() != nullptr);
    for (const auto& entry : plan->plan()->plan.items()->entries) CHECK(entry.status == v2::PlanEntryStatus::completed);

    REQUIRE(state.usage().has_value());
    CHECK(state.usage()->used == 1000 + 4 * 11);
    CHECK(state.info().title == std::optional<std::string>("hello world"));
    REQUIRE(state.available_commands().has_value());
    CHECK(state.available_commands()->size() == 4);  // echo, count, big, markdown
    REQUIRE(state.config_options().has_value());
    CHECK(state.config_options()->size() == 2);

    const std::string dump = acp::to_json(state);
    CHECK(contains(dump, "\"kind\":\"agent_thought\""));
    CHECK(contains(dump, "\"configId\":\"model\""));
    CHECK(contains(dump, "\"name\":\"echo\""));
}

TEST_CASE("demo agent: a rejected permission skips the edit and the checks") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer = "reject-once";
    peer.initialize();
    const std::string id = peer.new_session();
    peer.prompt_turn(id, "try this");
    const acp::SessionState& state = peer.session(id);
    CHECK(state.foreground().stop_reason == std::optional<std::string>("end_turn"));
    const acp::SessionItem* edit = state.item(acp::ItemKind::tool_call, "tc1");
    REQUIRE(edit != nullptr);
    CHECK(edit->tool_call()->status == v2::ToolCallStatus::failed);
    CHECK(count_kind(state, acp::ItemKind::terminal) == 0);
    REQUIRE(state.items().back().kind() == acp::ItemKind::agent_message);
    CHECK(message_text(state.items().back()) == "OK, I left NOTES.md alone.");
}

TEST_CASE("demo agent: always allow is remembered for the session") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer = "allow-always";
    peer.initialize();
    const std::string id = peer.new_session();
    peer.prompt_turn(id, "one");
    peer.prompt_turn(id, "two");
    CHECK(peer.permission_requests.size() == 1);
    CHECK(peer.session(id).item(acp::ItemKind::tool_call, "tc3")->tool_call()->status == v2::ToolCallStatus::completed);
}

TEST_CASE("demo agent: session/cancel while permission is pending ends the turn cancelled") {
    // AGENT-MUST-13: the permission request is withdrawn, the tool call ends cancelled.
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer.clear();
    peer.initialize();
    const std::string id = peer.new_session();
    v2::PromptRequest request;
    request.sessionId = id;
    v2::TextContent content;
    content.text = "please wait";
    request.prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
    auto response = peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(request, done); });
    REQUIRE(response.ok());
    REQUIRE(peer.loop.run_until([&] { return peer.pending_permission.has_value(); }));
    CHECK(peer.session(id).foreground().state == "requires_action");
    peer.client->cancel(id);
    REQUIRE(peer.loop.run_until([&] { return peer.idle_count() > 0; }));
    const acp::SessionState& state = peer.session(id);
    CHECK(state.foreground().stop_reason == std::optional<std::string>("cancelled"));
    CHECK(state.item(acp::ItemKind::tool_call, "tc1")->tool_call()->status == v2::ToolCallStatus::cancelled);
    REQUIRE(peer.loop.run_until([&] { return peer.withdrawn == 1; }));
    CHECK(peer.pending_permission->answered());
}

TEST_CASE("demo agent: config options change the turn and refuse unknown values") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    const std::string id = peer.new_session();
    v2::SetSessionConfigOptionRequest off;
    off.sessionId = id;
    off.configId = "thoughts";
    off.type = v2::SetSessionConfigOptionRequestType::make_boolean({false, {}});
    auto set =
        peer.wait<v2::SetSessionConfigOptionResponse>([&](auto done) { peer.client->set_config_option(off, done); });
    REQUIRE_MESSAGE(set.ok(), set.status().to_string());
    CHECK(set->configOptions[1].type.boolean()->currentValue == false);

    v2::SetSessionConfigOptionRequest bad;
    bad.sessionId = id;
    bad.configId = "model";
    bad.type = v2::SetSessionConfigOptionRequestType::make_id({"no-such-model", {}});
    // CLIENT-MUST-45: a value the option does not offer is refused before sending.
    auto refused =
        peer.wait<v2::SetSessionConfigOptionResponse>([&](auto done) { peer.client->set_config_option(bad, done); });
    CHECK(refused.status().code() == acp::Errc::invalid_argument);

    peer.prompt_turn(id, "no thoughts please");
    CHECK(count_kind(peer.session(id), acp::ItemKind::agent_thought) == 0);
}

TEST_CASE("demo agent: slash commands echo and count") {
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.initialize();
    const std::string id = peer.new_session();
    peer.prompt_turn(id, "/echo some words here");
    peer.prompt_turn(id, "/count 3");
    const acp::SessionState& state = peer.session(id);
    CHECK(message_text(*state.item(acp::ItemKind::agent_message, "m1")) == "some words here");
    CHECK(message_text(*state.item(acp::ItemKind::agent_message, "m2")) == "1\n2\n3\n");
    CHECK(peer.permission_requests.empty());
}

TEST_CASE("demo agent: list and resume with replay rebuild the live model, also after a restart") {
    TempDir dir;
    std::string id;
    std::string live;
    {
        DemoPeer peer(dir.path());
        peer.initialize();
        id = peer.new_session();
        peer.prompt_turn(id, "remember me");
        peer.prompt_turn(id, "/echo again");
        live = acp::to_json(peer.session(id));

        // Same client and agent: close, then resume with a full replay.
        REQUIRE(peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(id, done); }).ok());
        auto resumed = peer.wait<v2::ResumeSessionResponse>(
            [&](auto done) { peer.client->resume_session(replay_request(id), done); });
        REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
        CHECK(acp::to_json(peer.session(id)) == live);
    }
    {
        // A new agent process reads the sessions back from the state directory.
        DemoPeer peer(dir.path());
        peer.initialize();
        auto listed = peer.wait<std::vector<v2::SessionInfo>>(
            [&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
        REQUIRE(listed.ok());
        REQUIRE(listed->size() == 1);
        CHECK((*listed)[0].sessionId == id);
        CHECK((*listed)[0].title == acp::Nullable<std::string>("remember me"));
        auto resumed = peer.wait<v2::ResumeSessionResponse>(
            [&](auto done) { peer.client->resume_session(replay_request(id), done); });
        REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
        CHECK(acp::to_json(peer.session(id)) == live);
        // The terminal's output came back as one snapshot, not as its historic chunks.
        int chunks = 0;
        int snapshots = 0;
        for (const auto& n : peer.updates) {
            if (n.update.terminal_output_chunk() != nullptr) ++chunks;
            if (const auto* t = n.update.terminal_update(); t != nullptr && t->output.has_value()) ++snapshots;
        }
        CHECK(chunks == 0);
        CHECK(snapshots == 1);
        // The next turn continues the id sequences of the restored session.
        peer.prompt_turn(id, "/echo after restart");
        CHECK(peer.session(id).item(acp::ItemKind::user_message, "u3") != nullptr);
    }
}

TEST_CASE("demo agent: resume without replay sends only the state, wrong cwd is refused") {
    TempDir dir;
    std::string id;
    {
        DemoPeer peer(dir.path());
        peer.initialize();
        id = peer.new_session();
        peer.prompt_turn(id, "/echo x");
    }
    DemoPeer peer(dir.path());
    peer.initialize();
    v2::ResumeSessionRequest request;
    request.sessionId = id;
    request.cwd = "/tmp/project";
    auto resumed = peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(request, done); });
    REQUIRE(resumed.ok());
    REQUIRE(peer.updates.size() == 1);  // AGENT-MUST-08/09: no history, one state snapshot
    CHECK(peer.updates[0].update.state_update() != nullptr);
    auto wrong = peer.wait<v2::ResumeSessionResponse>(
        [&](auto done) { peer.client->resume_session(replay_request(id, "/elsewhere"), done); });
    CHECK(wrong.status().rpc_code() == acp::error_code::invalid_params);
}

TEST_CASE("demo agent: delete forgets the session for good") {
    TempDir dir;
    std::string id;
    {
        DemoPeer peer(dir.path());
        peer.initialize();
        id = peer.new_session();
        peer.new_session("/tmp/other");
        REQUIRE(peer.wait<v2::DeleteSessionResponse>([&](auto done) { peer.client->delete_session(id, done); }).ok());
    }
    DemoPeer peer(dir.path());
    peer.initialize();
    auto listed =
        peer.wait<std::vector<v2::SessionInfo>>([&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
    REQUIRE(listed.ok());
    REQUIRE(listed->size() == 1);
    CHECK((*listed)[0].cwd == "/tmp/other");
    auto resumed =
        peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(replay_request(id), done); });
    CHECK(resumed.status().rpc_code() == acp::error_code::resource_not_found);
}

TEST_CASE("demo agent: with --auth-required sessions wait for demo-login") {
    TempDir dir;
    DemoPeer peer(dir.path(), {"--auth-required"});
    peer.initialize();
    REQUIRE(peer.client->agent()->authMethods.has_value());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto refused = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    CHECK(acp::is_auth_required(refused.status()));
    REQUIRE(peer.wait<v2::LoginAuthResponse>([&](auto done) { peer.client->login("demo-login", done); }).ok());
    peer.new_session();
}

TEST_CASE("demo agent: minimal capabilities refuse additional directories and MCP servers") {
    TempDir dir;
    DemoPeer peer(dir.path(), {"--minimal-caps"});
    peer.initialize();
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    request.additionalDirectories = std::vector<std::string>{"/srv"};
    // CLIENT-MUST-35: refused before sending since the agent did not advertise it.
    auto refused = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    CHECK(refused.status().code() == acp::Errc::invalid_argument);
    CHECK(refused.status().message().find("additionalDirectories") != std::string::npos);
}

TEST_CASE("demo agent: a malformed state file stops it with a message instead of a crash") {
    TempDir dir;
    std::ofstream(dir.path() + "/sessions.json")
        << R"({"format":"acp-demo-agent-sessions-1","sessionCounter":1,"sessions":[{"sessionId":3}]})";
    const std::string command = std::string(ACP_DEMO_AGENT) + " --state-dir " + dir.path() + " </dev/null 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string output;
    char buffer[512];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    const int status = pclose(pipe);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(output.find("sessions.json is malformed") != std::string::npos);
}

TEST_CASE("demo agent: close ends a waiting turn cancelled before answering, held prompts get -32800") {
    // AGENT-MUST-14 (close) and §7.2 (a prompt sent while a turn runs is held).
    TempDir dir;
    DemoPeer peer(dir.path());
    peer.answer.clear();
    peer.initialize();
    const std::string id = peer.new_session();
    auto prompt = [&](const std::string& text) {
        v2::PromptRequest request;
        request.sessionId = id;
        v2::TextContent content;
        content.text = text;
        request.prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
        return request;
    };
    REQUIRE(peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(prompt("first"), done); }).ok());
    REQUIRE(peer.loop.run_until([&] { return peer.pending_permission.has_value(); }));
    std::optional<acp::Result<v2::PromptResponse>> held;
    peer.client->prompt(prompt("second"), [&](acp::Result<v2::PromptResponse> r) { held.emplace(std::move(r)); });
    auto closed = peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(id, done); });
    REQUIRE(closed.ok());
    // The cancelled idle update came before the close response.
    CHECK(peer.idle_count() == 1);
    const acp::SessionState& state = peer.session(id);
    CHECK(state.foreground().stop_reason == std::optional<std::string>("cancelled"));
    CHECK(state.item(acp::ItemKind::tool_call, "tc1")->tool_call()->status == v2::ToolCallStatus::cancelled);
    REQUIRE(peer.loop.run_until([&] { return held.has_value(); }));
    CHECK(held->status().rpc_code() == acp::error_code::request_cancelled);
    CHECK(state.item(acp::ItemKind::user_message, "u2") == nullptr);  // never inserted
}
