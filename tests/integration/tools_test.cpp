// SPDX-License-Identifier: Apache-2.0
// The host's tool servers called by an agent on the official TypeScript SDK 2.4.0
// (tests/peers/ts-agent/tools-agent.mjs) over MCP over ACP, with the SDK's own
// McpOverAcpCaller: what the SDK's caller gets back is what its binding specifies.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/tools.hpp"
#include "acp/turn.hpp"
#include "acp/unstable.hpp"
#include "support/test_loop.hpp"

using acp::test::TestLoop;
namespace v2 = acp::v2;

namespace {

struct ToolsPeer {
    TestLoop loop;
    std::unique_ptr<acp::Client> client;
    std::shared_ptr<acp::ToolServer> editor;
    std::vector<acp::ToolResponder> held;
    int selection_calls = 0;
    int open_calls = 0;
    bool cancelled = false;
    std::vector<std::string> log;
    std::optional<acp::ToolResponder> slow_answer;
    uv_timer_t* timer = new uv_timer_t;  // freed by its close callback, which the loop runs last

    ~ToolsPeer() {
        uv_close(reinterpret_cast<uv_handle_t*>(timer),
                 [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    }

    explicit ToolsPeer(bool unstable = false, bool v1 = false, const std::string& mcp = "acp") {
        uv_timer_init(loop.get(), timer);
        timer->data = this;
        acp::SpawnOptions agent;
        agent.argv = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/tools-agent.mjs"};
        if (v1) agent.argv.emplace_back("--v1");
        agent.argv.emplace_back("--mcp=" + mcp);
        agent.shutdown_grace = std::chrono::milliseconds(3000);
        acp::ClientOptions options;
        options.unstable = unstable;
        options.log = [this](const acp::LogRecord& r) { log.emplace_back(r.message); };
        auto spawned = acp::Client::spawn(loop.get(), agent, options);
        REQUIRE_MESSAGE(spawned.ok(), spawned.status().to_string());
        client = std::move(spawned.value());

        editor = acp::ToolServer::create("editor").value();
        acp::Tool selection;
        selection.name = "current_selection";
        selection.handler = [this](const acp::ToolCall&, acp::ToolResponder answer) {
            ++selection_calls;
            answer.text("int main");
        };
        REQUIRE(editor->add_tool(std::move(selection)).ok());
        acp::Tool open;
        open.name = "open_file";
        open.input_schema =
            acp::RawJson{R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})"};
        open.handler = [this](const acp::ToolCall& call, acp::ToolResponder answer) {
            ++open_calls;
            answer.text("opened " + call.arguments.text);
        };
        REQUIRE(editor->add_tool(std::move(open)).ok());
        acp::Tool slow;
        slow.name = "slow";
        // Answers 100 ms after its progress: the SDK's caller handles a notification on a
        // later tick than a response read with it, and drops notifications of settled requests.
        slow.handler = [this](const acp::ToolCall&, acp::ToolResponder answer) {
            answer.progress(1, 2, "half way");
            slow_answer = answer;
            uv_timer_start(
                timer, [](uv_timer_t* t) { static_cast<ToolsPeer*>(t->data)->slow_answer->text("slow done"); }, 100, 0);
        };
        REQUIRE(editor->add_tool(std::move(slow)).ok());
        acp::Tool never;
        never.name = "never";
        never.handler = [this](const acp::ToolCall&, acp::ToolResponder answer) {
            answer.on_cancelled([this] { cancelled = true; });
            held.push_back(answer);
        };
        REQUIRE(editor->add_tool(std::move(never)).ok());
    }

    // Runs one prompt script; returns the agent's reply lines.
    std::vector<std::string> run(const std::string& session_id, const std::string& script) {
        std::vector<std::string> lines;
        auto end = acp::wait_for<acp::TurnEnd>(loop.get(), [&](auto done) {
            acp::prompt_turn(
                *client, session_id, script,
                [&](const acp::TurnText& t) {
                    if (t.starts_message) lines.emplace_back();
                    lines.back() += std::string(t.text);
                },
                done);
        });
        REQUIRE_MESSAGE(end.ok(), end.status().to_string());
        CHECK(end->ended_normally());
        return lines;
    }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("tools over ACP: the TS SDK's McpOverAcpCaller lists and calls the host's tools") {
    ToolsPeer p;
    REQUIRE(acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); }).ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto session = acp::wait_for<v2::NewSessionResponse>(
        p.loop.get(), [&](auto done) { p.client->new_session(request, {p.editor}, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());

    auto lines =
        p.run(session->sessionId,
              "list\ncall current_selection\ncall open_file {\"path\":\"a.c\"}\ncall open_file {\"path\":7}\n"
              "call nothing\nprogress slow\nraw resources/list\nserver editor:unknown\ncall current_selection");
    REQUIRE(lines.size() == 9);
    CHECK(contains(lines[0], R"("name":"current_selection")"));
    CHECK(contains(lines[0], R"("name":"open_file")"));
    CHECK(contains(lines[1], R"({"result":{"content":[{"type":"text","text":"int main"}]}})"));
    CHECK(contains(lines[2], R"(opened {\"path\":\"a.c\"})"));
    // Schema violation: an inner MCP error in the carrier; the handler never ran.
    CHECK(contains(lines[3], R"({"error":{"code":-32602)"));
    CHECK(contains(lines[4], R"({"error":{"code":-32602,"message":"Unknown tool: nothing")"));
    // The progress notification reached the SDK's caller while the call was active.
    CHECK(contains(lines[5], R"("text":"slow done")"));
    CHECK_MESSAGE(contains(lines[5], "progress=1"), lines[5]);
    CHECK(contains(lines[6], R"({"error":{"code":-32601)"));
    CHECK(contains(lines[8], "outer -33001"));
    CHECK(p.selection_calls == 1);
    CHECK(p.open_calls == 1);
}

TEST_CASE(
    "tools over ACP: a call the SDK's caller aborts reaches the handler as cancelled and closing ends the server") {
    ToolsPeer p;
    REQUIRE(acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); }).ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto session = acp::wait_for<v2::NewSessionResponse>(
        p.loop.get(), [&](auto done) { p.client->new_session(request, {p.editor}, done); });
    REQUIRE(session.ok());
    auto lines = p.run(session->sessionId, "cancel never");
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines[0], "outer -32800"));
    CHECK(p.cancelled);

    REQUIRE(acp::wait_for<v2::CloseSessionResponse>(p.loop.get(), [&](auto done) {
                p.client->close_session(session->sessionId, done);
            }).ok());
    // The agent still knows the session (it keeps closed ones); the server is gone.
    v2::ResumeSessionRequest resume;
    resume.sessionId = session->sessionId;
    resume.cwd = "/tmp";
    REQUIRE(acp::wait_for<v2::ResumeSessionResponse>(p.loop.get(), [&](auto done) {
                p.client->resume_session(resume, done);
            }).ok());
    lines = p.run(session->sessionId, "list");
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines[0], "no acp server"));
}

TEST_CASE("tools over ACP: a fork offered tools gets its own server, and the source keeps its own") {
    ToolsPeer p(/*unstable=*/true);
    REQUIRE(acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); }).ok());
    REQUIRE(acp::unstable::offer(*p.client).fork);
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto source = acp::wait_for<v2::NewSessionResponse>(
        p.loop.get(), [&](auto done) { p.client->new_session(request, {p.editor}, done); });
    REQUIRE(source.ok());

    // A second server only the fork is offered.
    auto other = acp::ToolServer::create("other").value();
    acp::Tool where;
    where.name = "where";
    std::string called_for;
    where.handler = [&](const acp::ToolCall& call, acp::ToolResponder answer) {
        called_for = call.session_id;
        answer.text("in the fork");
    };
    REQUIRE(other->add_tool(std::move(where)).ok());
    acp::v2::unstable::ForkSessionRequest fork;
    fork.sessionId = source->sessionId;
    fork.cwd = "/tmp";
    auto forked = acp::wait_for<acp::v2::unstable::ForkSessionResponse>(
        p.loop.get(), [&](auto done) { acp::unstable::fork_session(*p.client, fork, {other}, done); });
    REQUIRE_MESSAGE(forked.ok(), forked.status().to_string());

    auto lines = p.run(forked->sessionId, "call where\ncall current_selection");
    REQUIRE(lines.size() == 2);
    CHECK(contains(lines[0], R"("text":"in the fork")"));
    CHECK(called_for == forked->sessionId);
    // The fork was offered "other" only: the editor's tool is not there.
    CHECK(contains(lines[1], "Unknown tool: current_selection"));
    lines = p.run(source->sessionId, "call current_selection");
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines[0], R"("text":"int main")"));

    // Closing the fork ends its server, not the source's.
    REQUIRE(acp::wait_for<v2::CloseSessionResponse>(p.loop.get(), [&](auto done) {
                p.client->close_session(forked->sessionId, done);
            }).ok());
    lines = p.run(source->sessionId, "call current_selection");
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines[0], R"("text":"int main")"));
}

TEST_CASE("tools over ACP: a fork is refused before sending without the unstable opt-in") {
    ToolsPeer p;
    REQUIRE(acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); }).ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto source = acp::wait_for<v2::NewSessionResponse>(
        p.loop.get(), [&](auto done) { p.client->new_session(request, {p.editor}, done); });
    REQUIRE(source.ok());
    acp::v2::unstable::ForkSessionRequest fork;
    fork.sessionId = source->sessionId;
    fork.cwd = "/tmp";
    auto forked = acp::wait_for<acp::v2::unstable::ForkSessionResponse>(
        p.loop.get(), [&](auto done) { acp::unstable::fork_session(*p.client, fork, {p.editor}, done); });
    CHECK(forked.status().code() == acp::Errc::unsupported);
}

TEST_CASE("tools over ACP: a v1 agent advertising mcpCapabilities.acp gets acp entries and calls the tools") {
    ToolsPeer p(/*unstable=*/false, /*v1=*/true);
    auto init = acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); });
    REQUIRE(init.ok());
    CHECK(p.client->negotiated_version() == 1);
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto session = acp::wait_for<v2::NewSessionResponse>(
        p.loop.get(), [&](auto done) { p.client->new_session(request, {p.editor}, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    // v1 chunks have no ids: one message, a line per call.
    auto lines = p.run(session->sessionId, "call current_selection\ncall open_file {\"path\":7}");
    REQUIRE(lines.size() == 1);
    CHECK(
        contains(lines[0], R"(call current_selection => {"result":{"content":[{"type":"text","text":"int main"}]}})"));
    CHECK(contains(lines[0], R"(call open_file {"path":7} => {"error":{"code":-32602)"));
    CHECK(p.selection_calls == 1);
    CHECK(p.open_calls == 0);
}

TEST_CASE("tools over ACP: a v1 fork offered tools gets its acp entry in v1's session/fork") {
    ToolsPeer p(/*unstable=*/true, /*v1=*/true);
    REQUIRE(acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); }).ok());
    REQUIRE(acp::unstable::offer(*p.client).fork);
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto source =
        acp::wait_for<v2::NewSessionResponse>(p.loop.get(), [&](auto done) { p.client->new_session(request, done); });
    REQUIRE(source.ok());
    acp::v2::unstable::ForkSessionRequest fork;
    fork.sessionId = source->sessionId;
    fork.cwd = "/tmp";
    auto forked = acp::wait_for<acp::v2::unstable::ForkSessionResponse>(
        p.loop.get(), [&](auto done) { acp::unstable::fork_session(*p.client, fork, {p.editor}, done); });
    REQUIRE_MESSAGE(forked.ok(), forked.status().to_string());
    auto lines = p.run(forked->sessionId, "call current_selection");
    REQUIRE(lines.size() == 1);
    CHECK(
        contains(lines[0], R"(call current_selection => {"result":{"content":[{"type":"text","text":"int main"}]}})"));
    CHECK(p.selection_calls == 1);
}

TEST_CASE("tools: the SDKs' clients get identical results over MCP over ACP, HTTP and the stdio bridge") {
    // The ACP SDK's McpOverAcpCaller over ACP; the MCP SDK's client over HTTP and stdio.
    const std::string script =
        "list\ncall current_selection\ncall open_file {\"path\":\"a.c\"}\ncall open_file {\"path\":7}\ncall nothing";
    std::vector<std::vector<std::string>> outcomes;
    for (const char* transport : {"acp", "http", "stdio"}) {
        INFO("transport: " << transport);
        ToolsPeer p(false, false, transport);
        REQUIRE(
            acp::wait_for<v2::InitializeResponse>(p.loop.get(), [&](auto done) { p.client->initialize(done); }).ok());
        v2::NewSessionRequest request;
        request.cwd = "/tmp";
        auto session = acp::wait_for<v2::NewSessionResponse>(
            p.loop.get(), [&](auto done) { p.client->new_session(request, {p.editor}, done); });
        REQUIRE_MESSAGE(session.ok(), session.status().to_string());
        outcomes.push_back(p.run(session->sessionId, script));
        REQUIRE(outcomes.back().size() == 5);
        CHECK(contains(outcomes.back()[1], R"({"result":{"content":[{"type":"text","text":"int main"}]}})"));
        CHECK(contains(outcomes.back()[3], R"({"error":{"code":-32602)"));
        CHECK(p.selection_calls == 1);
        CHECK(p.open_calls == 1);
        // Which carrier served it: the log names the transport once per setup.
        bool named = false;
        for (const auto& line : p.log) named = named || contains(line, std::string("session.mcp.") + transport);
        CHECK(named);
    }
    // Every outcome, the tool list included, is the same whichever carrier served it.
    for (std::size_t line = 0; line < 5; ++line) {
        INFO("line " << line);
        CHECK(outcomes[1][line] == outcomes[0][line]);
        CHECK(outcomes[2][line] == outcomes[0][line]);
    }
}
