// SPDX-License-Identifier: Apache-2.0
// The Client against published ACP agents, offline: initialize, session setup and prompt
// turns against a fake model endpoint on 127.0.0.1 (fake_gemini.mjs, fake_anthropic.mjs,
// fake_openai.mjs) in which the agent calls the host's editor tool (acp/tools.hpp) over
// HTTP and over the stdio bridge; for claude-agent-acp also the unstable fork and system
// prompt. run_real_agents.sh installs the agents from npm, starts the endpoint and sets
// ACP_GEMINI_JS, ACP_CLAUDE_ACP_JS, ACP_CODEX_ACP_JS and ACP_FAKE_GEMINI_URL,
// ACP_FAKE_ANTHROPIC_URL or ACP_FAKE_OPENAI_URL; without them the tests have nothing to
// run against and say so.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/tools.hpp"
#include "acp/turn.hpp"
#include "acp/unstable.hpp"
#include "support/test_loop.hpp"

using acp::Result;
namespace v2 = acp::v2;

namespace {

struct RealAgent {
    acp::test::TestLoop loop;
    std::unique_ptr<acp::Client> client;
    std::optional<acp::Status> closed;
    std::vector<std::string> log;
    std::vector<v2::UpdateSessionNotification> updates;

    explicit RealAgent(acp::SpawnOptions agent, acp::ClientOptions options = {}) {
        options.info.name = "libacp-interop";
        options.info.version = "1.0";
        options.log = [this](const acp::LogRecord& r) { log.push_back(std::string(r.message)); };
        auto created = acp::Client::spawn(loop.get(), agent, options);
        REQUIRE_MESSAGE(created.ok(), created.status().to_string());
        client = std::move(created.value());
        client->on_closed([this](const acp::Status& why) { closed = why; });
        client->on_session_update([this](const v2::UpdateSessionNotification& n) { updates.push_back(n); });
        // The traffic, for the message of a failed wait.
        client->set_traffic_observer([this](acp::Direction d, std::string_view line, auto) {
            log.push_back((d == acp::Direction::outgoing ? "> " : "< ") + std::string(line.substr(0, 300)));
        });
    }
    ~RealAgent() {
        // Agents that ignore stdin EOF are ended by the shutdown ladder (SIGTERM, SIGKILL).
        client->close();
        loop.run_until([this] { return closed.has_value(); }, std::chrono::milliseconds(15000));
    }

    template <class T, class Start>
    Result<T> wait(Start&& start) {
        // Shared: a call still pending when a check fails completes during teardown.
        auto result = std::make_shared<std::optional<Result<T>>>();
        start([result](Result<T> r) { result->emplace(std::move(r)); });
        loop.run_until([&result] { return result->has_value(); }, std::chrono::milliseconds(60000));
        if (!result->has_value()) {
            for (const auto& line : log) MESSAGE(line);
        }
        REQUIRE(result->has_value());
        return std::move(**result);
    }
};

// The editor server of issue 26: one tool, current_selection (no input), answering
// `selection` and recording its calls (shared: the client may outlive this object).
struct EditorTools {
    std::string selection;
    std::shared_ptr<std::vector<acp::ToolCall>> calls = std::make_shared<std::vector<acp::ToolCall>>();
    std::shared_ptr<acp::ToolServer> server;

    explicit EditorTools(std::string text) : selection(std::move(text)) {
        auto created = acp::ToolServer::create("editor");
        REQUIRE(created.ok());
        server = *created;
        acp::Tool tool;
        tool.name = "current_selection";
        tool.title = "Current selection";
        tool.description = "The text selected in the editor";
        tool.annotations = acp::RawJson{R"({"readOnlyHint":true})"};
        tool.handler = [calls = calls, selection = selection](const acp::ToolCall& call, acp::ToolResponder answer) {
            calls->push_back(call);
            answer.text(selection);
        };
        REQUIRE(server->add_tool(std::move(tool)).ok());
    }
};

// Only the given transport for the host's tool servers (ClientOptions::tool_transports).
acp::ClientOptions only(const std::string& transport) {
    acp::ClientOptions options;
    options.tool_transports = {transport == "acp", transport == "http", transport == "stdio"};
    return options;
}

// The text of the agent's messages in the session so far.
std::string agent_said(const acp::SessionState& state) {
    std::string said;
    for (const auto& item : state.items()) {
        if (item.kind() != acp::ItemKind::agent_message) continue;
        for (const auto& block : item.message()->content) {
            if (block.text() != nullptr) said += block.text()->text;
        }
    }
    return said;
}

// A prompt turn in `session_id`, waited for until it has ended (in v2 the prompt's answer
// comes at once, the end with the session's idle state): it ended normally.
void say(RealAgent& peer, const std::string& session_id, const std::string& words) {
    auto end = peer.wait<acp::TurnEnd>([&](auto done) { acp::prompt_turn(*peer.client, session_id, words, {}, done); });
    REQUIRE_MESSAGE(end.ok(), end.status().to_string());
    CHECK(end->stop_reason == std::optional<std::string>("end_turn"));
}

// claude-agent-acp speaking ACP `version` with the Claude CLI under it talking to the fake
// Messages endpoint: a scratch home, a fake key, none of the CLI's other traffic
// (telemetry, error reports, update checks), so nothing but the model's requests leaves.
// IS_SANDBOX: the CLI refuses to start as root (CI containers) unless told it is in one.
acp::SpawnOptions claude_agent(const char* claude, const std::string& home, const std::string& cwd, int version) {
    acp::SpawnOptions agent;
    agent.argv = {ACP_NODE, claude};
    agent.env_set = {{"HOME", home},
                     {"ANTHROPIC_API_KEY", "fake-key-for-offline-tests"},
                     {"CLAUDE_AGENT_ACP_PROTOCOL", "v" + std::to_string(version)},
                     {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"},
                     {"DISABLE_TELEMETRY", "1"},
                     {"DISABLE_ERROR_REPORTING", "1"},
                     {"DISABLE_AUTOUPDATER", "1"},
                     {"IS_SANDBOX", "1"}};
    const char* model = std::getenv("ACP_FAKE_ANTHROPIC_URL");
    if (model != nullptr) agent.env_set.emplace_back("ANTHROPIC_BASE_URL", model);
    agent.cwd = cwd;
    return agent;
}

// Issue 26 against a published agent: a session offered the editor server over
// `transport`, the prompt "What is selected?", any permission allowed; the model (the
// fake endpoint) calls the tool and answers with its text.
void ask_for_selection(RealAgent& peer, const std::string& cwd, const std::string& transport) {
    EditorTools editor("int main() { return 42; }");
    int permissions = 0;
    peer.client->on_permission_request(
        [&](const v2::RequestPermissionRequest& request, acp::PermissionResponder answer) {
            ++permissions;
            for (const auto& option : request.options) {
                if (option.kind.value == v2::PermissionOptionKind::allow_once) return answer.select(option.optionId);
            }
            answer.cancel();
        });
    auto init = peer.wait<v2::InitializeResponse>([&](auto done) { peer.client->initialize(done); });
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    v2::NewSessionRequest request;
    request.cwd = cwd;
    auto session =
        peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, {editor.server}, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    bool logged = false;
    const std::string offered = "tool servers 'editor' offered over ";
    for (const auto& line : peer.log) {
        if (line.find(offered) != std::string::npos &&
            line.find(transport == "http" ? "HTTP" : "stdio") != std::string::npos) {
            logged = true;
        }
    }
    CHECK(logged);

    say(peer, session->sessionId, "What is selected?");
    const acp::SessionState* state = peer.client->sessions().find(session->sessionId);
    REQUIRE(state != nullptr);
    // The fake model answers with the tool's output as it got it: Gemini CLI wraps a
    // tool's text in <untrusted_context> tags, codex in its wall time and the content JSON.
    const std::string said = agent_said(*state);
    if (editor.calls->size() != 1 || said.find(editor.selection) == std::string::npos) {
        for (const auto& line : peer.log) MESSAGE(line);
    }
    REQUIRE(editor.calls->size() == 1);
    const acp::ToolCall& call = editor.calls->front();
    CHECK(call.server == "editor");
    CHECK(call.tool == "current_selection");
    CHECK(call.arguments.text == "{}");
    CHECK(call.session_id == session->sessionId);
    CHECK(said.rfind("The selection is: ", 0) == 0);
    CHECK(said.find(editor.selection) != std::string::npos);
    MESSAGE(transport << ": " << permissions << " permission request(s)");
}

}  // namespace

TEST_CASE("interop: gemini --acp (v1) - initialize and session/new offline, lifted into the v2 model") {
    const char* gemini = std::getenv("ACP_GEMINI_JS");
    const char* home = std::getenv("ACP_INTEROP_HOME");
    if (gemini == nullptr || home == nullptr) {
        MESSAGE("ACP_GEMINI_JS is not set: run through tests/interop/run_real_agents.sh (ctest -R interop)");
        return;
    }
    std::system((std::string("mkdir -p ") + home + "/project").c_str());
    acp::SpawnOptions agent;
    agent.argv = {ACP_NODE, gemini, "--acp"};
    // A scratch home and a fake key: nothing of the user's, and no login needed to start.
    agent.env_set = {{"HOME", home}, {"GEMINI_API_KEY", "fake-key-for-offline-tests"}};
    const char* model = std::getenv("ACP_FAKE_GEMINI_URL");
    if (model != nullptr) agent.env_set.emplace_back("GOOGLE_GEMINI_BASE_URL", model);
    agent.cwd = std::string(home) + "/project";
    RealAgent peer(agent);

    auto init = peer.wait<v2::InitializeResponse>([&](auto done) { peer.client->initialize(done); });
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    CHECK(peer.client->negotiated_version() == 1);
    CHECK(init->info.name == "gemini-cli");
    REQUIRE(init->authMethods.has_value());
    bool api_key = false;
    for (const auto& method : *init->authMethods) {
        // v1 methods without `type` are agent methods; `id` became `methodId`.
        if (method.agent() != nullptr && method.agent()->methodId == "gemini-api-key") api_key = true;
    }
    CHECK(api_key);
    CHECK(init->capabilities->session->prompt->image.has_value());

    v2::NewSessionRequest request;
    request.cwd = std::string(home) + "/project";
    auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    CHECK_FALSE(session->sessionId.empty());
    // Gemini's modes are the mode option of the model.
    const acp::SessionState* state = peer.client->sessions().find(session->sessionId);
    REQUIRE(state != nullptr);
    REQUIRE(state->config_options().has_value());
    const auto& mode = state->config_options()->front();
    CHECK(mode.configId == "_v1_mode");
    CHECK(mode.type.select() != nullptr);
    // Its command list follows the answer as a v1 update, lifted.
    peer.loop.run_until([&] { return state->available_commands().has_value(); }, std::chrono::milliseconds(20000));
    REQUIRE(state->available_commands().has_value());
    CHECK_FALSE(state->available_commands()->empty());

    if (model == nullptr) {
        MESSAGE("ACP_FAKE_GEMINI_URL is not set: no prompt turn");
        return;
    }
    // A turn against the fake model endpoint: id-less v1 chunks and a {stopReason}
    // answer become the v2 turn (running, user message, agent message, idle).
    const std::size_t before = peer.updates.size();
    v2::PromptRequest prompt;
    prompt.sessionId = session->sessionId;
    v2::TextContent text;
    text.text = "Say hello";
    prompt.prompt.push_back(v2::ContentBlock::make_text(text));
    auto turn = peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(prompt, done); });
    REQUIRE_MESSAGE(turn.ok(), turn.status().to_string());
    CHECK(state->foreground().is_idle());
    CHECK(state->foreground().stop_reason == std::optional<std::string>("end_turn"));
    std::vector<acp::ItemKind> kinds;
    std::string said;
    for (const auto& item : state->items()) {
        kinds.push_back(item.kind());
        if (item.kind() != acp::ItemKind::agent_message) continue;
        for (const auto& block : item.message()->content) {
            if (block.text() != nullptr) said += block.text()->text;
        }
    }
    CHECK(kinds == std::vector<acp::ItemKind>{acp::ItemKind::user_message, acp::ItemKind::agent_message});
    CHECK(said == "Hello from the fake model.");
    CHECK(state->items()[0].id() == turn->messageId);
    REQUIRE(peer.updates.size() > before);
    CHECK(peer.updates[before].update.tag() == "state_update");
}

TEST_CASE("interop: claude-agent-acp serves v2 and v1 - the same client negotiates either, offline") {
    const char* claude = std::getenv("ACP_CLAUDE_ACP_JS");
    const char* home = std::getenv("ACP_INTEROP_HOME");
    const char* model = std::getenv("ACP_FAKE_ANTHROPIC_URL");
    if (claude == nullptr || home == nullptr || model == nullptr) {
        MESSAGE("ACP_CLAUDE_ACP_JS is not set: run through tests/interop/run_real_agents.sh (ctest -R interop)");
        return;
    }
    const std::string project = std::string(home) + "/project";
    std::system(("mkdir -p " + project).c_str());
    for (int version : {2, 1}) {
        INFO("CLAUDE_AGENT_ACP_PROTOCOL=v" << version);
        RealAgent peer(claude_agent(claude, home, project, version));
        auto init = peer.wait<v2::InitializeResponse>([&](auto done) { peer.client->initialize(done); });
        REQUIRE_MESSAGE(init.ok(), init.status().to_string());
        CHECK(peer.client->negotiated_version() == version);
        CHECK(init->info.name == "@agentclientprotocol/claude-agent-acp");
        // The same capabilities reach the host either way (v1's booleans lifted).
        REQUIRE(init->capabilities->session.has_value());
        CHECK(init->capabilities->session->prompt->image.has_value());
        CHECK_FALSE(init->capabilities->session->prompt->audio.has_value());
        CHECK(init->capabilities->session->mcp->http.has_value());
        CHECK(init->capabilities->session->additionalDirectories.has_value());
        // session/list works offline (nothing stored in the scratch home before v2's turn).
        auto listed = peer.wait<std::vector<v2::SessionInfo>>(
            [&](auto done) { peer.client->list_all_sessions(std::nullopt, done); });
        REQUIRE_MESSAGE(listed.ok(), listed.status().to_string());
        if (version == 2) CHECK(listed->empty());

        // A turn against the fake Messages endpoint, in either protocol the same v2 turn.
        v2::NewSessionRequest request;
        request.cwd = project;
        auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
        REQUIRE_MESSAGE(session.ok(), session.status().to_string());
        say(peer, session->sessionId, "Say hello");
        const acp::SessionState* state = peer.client->sessions().find(session->sessionId);
        REQUIRE(state != nullptr);
        CHECK(agent_said(*state) == "Hello from the fake model.");
    }
}

TEST_CASE("interop: claude-agent-acp (v2 and v1) - calls the host's editor tool over HTTP and over the stdio bridge") {
    const char* claude = std::getenv("ACP_CLAUDE_ACP_JS");
    const char* home = std::getenv("ACP_INTEROP_HOME");
    if (claude == nullptr || home == nullptr || std::getenv("ACP_FAKE_ANTHROPIC_URL") == nullptr) {
        MESSAGE("ACP_CLAUDE_ACP_JS is not set: run through tests/interop/run_real_agents.sh (ctest -R interop)");
        return;
    }
    // The session's default mode, "auto", has a model judge each tool call (the fake one
    // cannot); the project's settings ask the user instead, as the test's host allows.
    const std::string project = std::string(home) + "/claude-tools-project";
    std::system(("mkdir -p " + project + "/.claude").c_str());
    std::FILE* settings = std::fopen((project + "/.claude/settings.json").c_str(), "w");
    REQUIRE(settings != nullptr);
    std::fprintf(settings, "{\"permissions\": {\"defaultMode\": \"default\"}}\n");
    std::fclose(settings);
    for (int version : {2, 1}) {
        for (const std::string transport : {"http", "stdio"}) {
            INFO("CLAUDE_AGENT_ACP_PROTOCOL=v" << version << ", transport: " << transport);
            RealAgent peer(claude_agent(claude, home, project, version), only(transport));
            ask_for_selection(peer, project, transport);
        }
    }
}

TEST_CASE(
    "interop: claude-agent-acp (v2, unstable) - a fork goes its own way; a system prompt append reaches the model") {
    const char* claude = std::getenv("ACP_CLAUDE_ACP_JS");
    const char* home = std::getenv("ACP_INTEROP_HOME");
    if (claude == nullptr || home == nullptr || std::getenv("ACP_FAKE_ANTHROPIC_URL") == nullptr) {
        MESSAGE("ACP_CLAUDE_ACP_JS is not set: run through tests/interop/run_real_agents.sh (ctest -R interop)");
        return;
    }
    const std::string project = std::string(home) + "/claude-fork-project";
    std::system(("mkdir -p " + project).c_str());
    acp::ClientOptions options;
    options.unstable = true;
    RealAgent peer(claude_agent(claude, home, project, 2), options);
    auto init = peer.wait<v2::InitializeResponse>([&](auto done) { peer.client->initialize(done); });
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    const acp::unstable::Offer offer = acp::unstable::offer(*peer.client);
    REQUIRE(offer.fork);
    REQUIRE(offer.system_prompt);

    // One turn, then the fork, prompted: each session keeps its own history.
    v2::NewSessionRequest request;
    request.cwd = project;
    auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    say(peer, session->sessionId, "Say hello");
    acp::v2::unstable::ForkSessionRequest fork;
    fork.sessionId = session->sessionId;
    fork.cwd = project;
    auto forked = peer.wait<acp::v2::unstable::ForkSessionResponse>(
        [&](auto done) { acp::unstable::fork_session(*peer.client, fork, done); });
    REQUIRE_MESSAGE(forked.ok(), forked.status().to_string());
    CHECK(forked->sessionId != session->sessionId);
    say(peer, forked->sessionId, "Say hello in the fork");
    const acp::SessionState* original = peer.client->sessions().find(session->sessionId);
    const acp::SessionState* branch = peer.client->sessions().find(forked->sessionId);
    REQUIRE(original != nullptr);
    REQUIRE(branch != nullptr);
    const auto user_said = [](const acp::SessionState& state) {
        std::vector<std::string> said;
        for (const auto& item : state.items()) {
            if (item.kind() != acp::ItemKind::user_message) continue;
            std::string text;
            for (const auto& block : item.message()->content) {
                if (block.text() != nullptr) text += block.text()->text;
            }
            said.push_back(text);
        }
        return said;
    };
    CHECK(user_said(*original) == std::vector<std::string>{"Say hello"});
    CHECK(user_said(*branch) == std::vector<std::string>{"Say hello in the fork"});
    CHECK(agent_said(*original) == "Hello from the fake model.");
    CHECK(agent_said(*branch) == "Hello from the fake model.");

    // A session whose system prompt appends a marker the fake model echoes back.
    acp::v2::unstable::SystemPrompt append;
    append.mode = "append";
    append.content.push_back(v2::ContentBlock::make_text(v2::TextContent{"fake-model-marker:pirate", {}, {}, {}}));
    auto prompted = peer.wait<v2::NewSessionResponse>(
        [&](auto done) { acp::unstable::new_session(*peer.client, request, append, done); });
    REQUIRE_MESSAGE(prompted.ok(), prompted.status().to_string());
    say(peer, prompted->sessionId, "Say hello");
    const acp::SessionState* state = peer.client->sessions().find(prompted->sessionId);
    REQUIRE(state != nullptr);
    CHECK(agent_said(*state) == "Hello from the fake model. (system: pirate)");
}

TEST_CASE("interop: gemini --acp (v1) - calls the host's editor tool over HTTP and over the stdio bridge") {
    const char* gemini = std::getenv("ACP_GEMINI_JS");
    const char* home = std::getenv("ACP_INTEROP_HOME");
    const char* model = std::getenv("ACP_FAKE_GEMINI_URL");
    if (gemini == nullptr || home == nullptr || model == nullptr) {
        MESSAGE("ACP_GEMINI_JS is not set: run through tests/interop/run_real_agents.sh (ctest -R interop)");
        return;
    }
    // Gemini CLI connects to no MCP server (the client's included) in a folder the user
    // has not trusted: the test trusts its project folder as a user would, in
    // ~/.gemini/trustedFolders.json.
    const std::string project = std::string(home) + "/tools-project";
    std::system(("mkdir -p " + project + " " + home + "/.gemini").c_str());
    std::FILE* trusted = std::fopen((std::string(home) + "/.gemini/trustedFolders.json").c_str(), "w");
    REQUIRE(trusted != nullptr);
    std::fprintf(trusted, "{\"%s\": \"TRUST_FOLDER\"}\n", project.c_str());
    std::fclose(trusted);
    for (const std::string transport : {"http", "stdio"}) {
        INFO("transport: " << transport);
        acp::SpawnOptions agent;
        agent.argv = {ACP_NODE, gemini, "--acp"};
        agent.env_set = {
            {"HOME", home}, {"GEMINI_API_KEY", "fake-key-for-offline-tests"}, {"GOOGLE_GEMINI_BASE_URL", model}};
        agent.cwd = project;
        RealAgent peer(agent, only(transport));
        ask_for_selection(peer, project, transport);
    }
}

TEST_CASE("interop: codex-acp (v1) - calls the host's editor tool over HTTP and over the stdio bridge") {
    const char* codex = std::getenv("ACP_CODEX_ACP_JS");
    const char* home = std::getenv("ACP_INTEROP_HOME");
    const char* model = std::getenv("ACP_FAKE_OPENAI_URL");
    if (codex == nullptr || home == nullptr || model == nullptr) {
        MESSAGE("ACP_CODEX_ACP_JS is not set: run through tests/interop/run_real_agents.sh (ctest -R interop)");
        return;
    }
    // Codex's model provider is the fake Responses endpoint, in the scratch CODEX_HOME.
    const std::string project = std::string(home) + "/codex-project";
    const std::string codex_home = std::string(home) + "/.codex";
    std::system(("mkdir -p " + project + " " + codex_home).c_str());
    std::FILE* config = std::fopen((codex_home + "/config.toml").c_str(), "w");
    REQUIRE(config != nullptr);
    std::fprintf(config,
                 "model = \"gpt-5.4-mini\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\n"
                 "base_url = \"%s/v1\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n",
                 model);
    std::fclose(config);
    // Its API-key method is an env_var method (v1 unstable), which libacp's login does not
    // take; an API key stored as `codex login --with-api-key` does is a login all the same.
    std::FILE* auth = std::fopen((codex_home + "/auth.json").c_str(), "w");
    REQUIRE(auth != nullptr);
    std::fprintf(auth, "{\"OPENAI_API_KEY\": \"fake-key-for-offline-tests\"}\n");
    std::fclose(auth);
    for (const std::string transport : {"http", "stdio"}) {
        INFO("transport: " << transport);
        acp::SpawnOptions agent;
        agent.argv = {ACP_NODE, codex};
        agent.env_set = {{"HOME", home}, {"CODEX_HOME", codex_home}, {"OPENAI_API_KEY", "fake-key-for-offline-tests"}};
        agent.cwd = project;
        RealAgent peer(agent, only(transport));
        ask_for_selection(peer, project, transport);
    }
}
