// SPDX-License-Identifier: Apache-2.0
// acp::unstable end to end against the TypeScript SDK peers (--caps=unstable), whose own
// handlers serve the unstable methods: agent.mjs on the SDK's v2 unstable entry point, and
// agent-v1.mjs on its v1 one. Each test's client traffic is validated against that
// version's unstable schema (schema/v2 or schema/v1/schema.unstable.json) when the peer closes.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "acp/unstable.hpp"
#include "support/ts_peer.hpp"

using acp::Errc;
using acp::Result;
using acp::test::TsPeer;
namespace v2 = acp::v2;
namespace un = acp::v2::unstable;

namespace {

acp::ClientOptions opted_in() {
    acp::ClientOptions options;
    options.unstable = true;
    return options;
}

TsPeer unstable_peer(acp::ClientOptions options = opted_in(), const char* caps = "--caps=unstable") {
    return TsPeer("agent.mjs", ACP_V2_UNSTABLE_SCHEMA_PATH, {caps}, std::move(options));
}

un::SystemPrompt text_prompt(std::string mode, std::string text) {
    un::SystemPrompt prompt;
    prompt.mode = std::move(mode);
    prompt.content.push_back(v2::ContentBlock::make_text(v2::TextContent{std::move(text), {}, {}, {}}));
    return prompt;
}

// Messages (user and agent) of a session in the model, as text.
std::size_t message_count(const acp::SessionState& s) {
    return static_cast<std::size_t>(std::count_if(s.items().begin(), s.items().end(), [](const acp::SessionItem& i) {
        return i.kind() == acp::ItemKind::user_message || i.kind() == acp::ItemKind::agent_message;
    }));
}

}  // namespace

TEST_CASE("unstable e2e: the SDK peer's unstable capabilities are read only with the opt-in") {
    {
        TsPeer peer = unstable_peer(acp::ClientOptions{});
        REQUIRE(peer.initialize().ok());
        CHECK_FALSE(acp::unstable::offer(*peer.client).fork);
        const std::string id = peer.new_session();
        un::ForkSessionRequest fork;
        fork.sessionId = id;
        fork.cwd = "/tmp";
        const std::size_t sent = peer.sent.size();
        auto refused = peer.wait<un::ForkSessionResponse>(
            [&](auto done) { acp::unstable::fork_session(*peer.client, fork, done); });
        CHECK(refused.status().code() == Errc::unsupported);
        CHECK(peer.sent.size() == sent);
    }
    TsPeer peer = unstable_peer();
    REQUIRE(peer.initialize().ok());
    const acp::unstable::Offer offer = acp::unstable::offer(*peer.client);
    CHECK(offer.fork);
    CHECK(offer.archive);
    CHECK(offer.status);
    CHECK(offer.title);
    CHECK(offer.system_prompt_override);
    CHECK(offer.auth_status);
    CHECK(offer.providers);
}

TEST_CASE("unstable e2e: a fork after one turn is its own session, and prompting it leaves the source alone") {
    TsPeer peer = unstable_peer();
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto created = peer.wait<v2::NewSessionResponse>([&](auto done) {
        acp::unstable::new_session(*peer.client, request, text_prompt("append", "Answer briefly."), done);
    });
    REQUIRE_MESSAGE(created.ok(), created.status().to_string());
    const std::string source = created->sessionId;
    REQUIRE(peer.prompt_turn(source, "hello").ok());
    const std::size_t source_messages = message_count(*peer.client->sessions().find(source));
    CHECK(source_messages >= 2);

    un::ForkSessionRequest fork;
    fork.sessionId = source;
    fork.cwd = "/tmp";
    fork.systemPrompt = text_prompt("override", "You are terse.");
    auto forked =
        peer.wait<un::ForkSessionResponse>([&](auto done) { acp::unstable::fork_session(*peer.client, fork, done); });
    REQUIRE_MESSAGE(forked.ok(), forked.status().to_string());
    const std::string child = forked->sessionId;
    CHECK(child != source);
    REQUIRE(peer.client->sessions().find(child) != nullptr);
    REQUIRE(peer.prompt_turn(child, "hello again").ok());
    CHECK(message_count(*peer.client->sessions().find(source)) == source_messages);
    CHECK(message_count(*peer.client->sessions().find(child)) >= 2);
}

TEST_CASE("unstable e2e: title, archive with the list filter, unarchive and status round-trip") {
    TsPeer peer = unstable_peer();
    REQUIRE(peer.initialize().ok());
    const std::string id = peer.new_session();
    auto titled = peer.wait<un::SetSessionTitleResponse>(
        [&](auto done) { acp::unstable::set_session_title(*peer.client, id, "  Refactor  ", done); });
    REQUIRE_MESSAGE(titled.ok(), titled.status().to_string());
    CHECK(titled->title == "Refactor");  // the agent's normalised title

    auto status =
        peer.wait<un::SessionStatusResponse>([&](auto done) { acp::unstable::session_status(*peer.client, id, done); });
    REQUIRE_MESSAGE(status.ok(), status.status().to_string());
    CHECK(status->status.value == "open");

    REQUIRE(peer.wait<un::ArchiveSessionResponse>(
                    [&](auto done) { acp::unstable::archive_session(*peer.client, id, done); })
                .ok());
    auto only = peer.wait<v2::ListSessionsResponse>([&](auto done) {
        acp::unstable::list_sessions(*peer.client, v2::ListSessionsRequest{}, un::SessionArchiveFilter("only"), done);
    });
    REQUIRE_MESSAGE(only.ok(), only.status().to_string());
    REQUIRE(only->sessions.size() == 1);
    CHECK(only->sessions[0].sessionId == id);
    CHECK(acp::unstable::additions(only->sessions[0]).archived == acp::Nullable<bool>(true));
    auto visible = peer.wait<v2::ListSessionsResponse>(
        [&](auto done) { peer.client->list_sessions(v2::ListSessionsRequest{}, done); });
    REQUIRE(visible.ok());
    CHECK(visible->sessions.empty());  // archived sessions are hidden by default

    status =
        peer.wait<un::SessionStatusResponse>([&](auto done) { acp::unstable::session_status(*peer.client, id, done); });
    REQUIRE(status.ok());
    CHECK(status->status.value == "saved");  // archiving closed it
    REQUIRE(peer.wait<un::UnarchiveSessionResponse>(
                    [&](auto done) { acp::unstable::unarchive_session(*peer.client, id, done); })
                .ok());
    visible = peer.wait<v2::ListSessionsResponse>(
        [&](auto done) { peer.client->list_sessions(v2::ListSessionsRequest{}, done); });
    REQUIRE(visible.ok());
    CHECK(visible->sessions.size() == 1);
}

TEST_CASE("unstable e2e: auth/status and its update, and providers, with the required one never disabled") {
    TsPeer peer = unstable_peer();
    std::optional<std::string> pushed;
    acp::unstable::on_auth_status_update(*peer.client,
                                         [&](const un::AuthStatusUpdateNotification& n) { pushed = n.state.value; });
    REQUIRE(peer.initialize().ok());
    auto auth = peer.wait<un::AuthStatusResponse>([&](auto done) { acp::unstable::auth_status(*peer.client, done); });
    REQUIRE_MESSAGE(auth.ok(), auth.status().to_string());
    CHECK(auth->state.value == "authenticated");
    CHECK(peer.loop.run_until([&] { return pushed.has_value(); }));
    CHECK(pushed == "authenticated");

    auto listed =
        peer.wait<un::ListProvidersResponse>([&](auto done) { acp::unstable::list_providers(*peer.client, done); });
    REQUIRE_MESSAGE(listed.ok(), listed.status().to_string());
    CHECK(listed->providers.size() == 2);
    un::SetProviderRequest set;
    set.providerId = "extra";
    set.apiType = "openai";
    set.baseUrl = "https://llm.example/openai";
    auto configured =
        peer.wait<un::SetProviderResponse>([&](auto done) { acp::unstable::set_provider(*peer.client, set, done); });
    CHECK_MESSAGE(configured.ok(), configured.status().to_string());
    auto required = peer.wait<un::DisableProviderResponse>(
        [&](auto done) { acp::unstable::disable_provider(*peer.client, "main", done); });
    CHECK(required.status().code() == Errc::invalid_argument);
    CHECK(std::none_of(peer.sent.begin(), peer.sent.end(),
                       [](const std::string& line) { return line.find("providers/disable") != std::string::npos; }));
    auto disabled = peer.wait<un::DisableProviderResponse>(
        [&](auto done) { acp::unstable::disable_provider(*peer.client, "extra", done); });
    CHECK_MESSAGE(disabled.ok(), disabled.status().to_string());
}

TEST_CASE("unstable e2e: against the stable peer every unstable call is refused before sending") {
    TsPeer peer = unstable_peer(opted_in(), "--caps=full");
    REQUIRE(peer.initialize().ok());
    const std::string id = peer.new_session();
    const std::size_t sent = peer.sent.size();
    CHECK(
        peer.wait<un::SessionStatusResponse>([&](auto done) { acp::unstable::session_status(*peer.client, id, done); })
            .status()
            .code() == Errc::unsupported);
    CHECK(peer.wait<un::AuthStatusResponse>([&](auto done) { acp::unstable::auth_status(*peer.client, done); })
              .status()
              .code() == Errc::unsupported);
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    CHECK(peer.wait<v2::NewSessionResponse>([&](auto done) {
                  acp::unstable::new_session(*peer.client, request, text_prompt("append", "x"), done);
              })
              .status()
              .code() == Errc::unsupported);
    CHECK(peer.sent.size() == sent);
}

// --- a v1 agent: the SDK's v1 unstable entry point (agent-v1.mjs --caps=unstable) --------
// Its client traffic is validated against schema/v1/schema.unstable.json.

namespace {

TsPeer v1_unstable_peer(acp::ClientOptions options = opted_in(), const char* caps = "--caps=unstable") {
    return TsPeer("agent-v1.mjs", ACP_V1_UNSTABLE_SCHEMA_PATH, {caps}, std::move(options));
}

bool received_contains(const TsPeer& peer, const std::string& method, const std::string& fragment) {
    const auto lines = peer.received();
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
        return line.find("\"method\":\"" + method + "\"") != std::string::npos &&
               line.find(fragment) != std::string::npos;
    });
}

std::string all_agent_text(const TsPeer& peer, const std::string& session_id) {
    std::string text;
    for (const auto& n : peer.updates) {
        const auto* chunk = n.update.agent_message_chunk();
        if (n.sessionId == session_id && chunk != nullptr && chunk->content.text() != nullptr) {
            text += chunk->content.text()->text;
        }
    }
    return text;
}

}  // namespace

TEST_CASE("unstable e2e v1: a v1 agent's unstable capabilities count, and only with the opt-in") {
    {
        TsPeer peer = v1_unstable_peer(acp::ClientOptions{});
        auto init = peer.initialize();
        REQUIRE(init.ok());
        CHECK(init->protocolVersion == 1);
        CHECK_FALSE(acp::unstable::offer(*peer.client).fork);
        CHECK_FALSE(acp::unstable::offer(*peer.client).providers);
        const std::string id = peer.new_session();
        const std::size_t sent = peer.sent.size();
        auto refused = peer.wait<un::SessionStatusResponse>(
            [&](auto done) { acp::unstable::session_status(*peer.client, id, done); });
        CHECK(refused.status().code() == Errc::unsupported);
        CHECK(peer.sent.size() == sent);
    }
    TsPeer peer = v1_unstable_peer();
    REQUIRE(peer.initialize().ok());
    const acp::unstable::Offer offer = acp::unstable::offer(*peer.client);
    CHECK(offer.fork);
    CHECK(offer.archive);
    CHECK(offer.status);
    CHECK(offer.title);
    CHECK(offer.system_prompt);
    CHECK(offer.system_prompt_override);
    CHECK(offer.auth_status);
    CHECK(offer.providers);
}

TEST_CASE("unstable e2e v1: systemPrompt on new, resume and fork, and a fork in v1 shape is its own session") {
    TsPeer peer = v1_unstable_peer();
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto created = peer.wait<v2::NewSessionResponse>([&](auto done) {
        acp::unstable::new_session(*peer.client, request, text_prompt("append", "Answer briefly."), done);
    });
    REQUIRE_MESSAGE(created.ok(), created.status().to_string());
    const std::string source = created->sessionId;
    REQUIRE(peer.prompt_turn(source, "system").ok());
    CHECK(all_agent_text(peer, source).find("Answer briefly.") != std::string::npos);
    const std::size_t source_messages = message_count(*peer.client->sessions().find(source));

    v2::ResumeSessionRequest resume;
    resume.sessionId = source;
    resume.cwd = "/tmp";
    auto resumed = peer.wait<v2::ResumeSessionResponse>([&](auto done) {
        acp::unstable::resume_session(*peer.client, resume, text_prompt("append", "Be kind."), done);
    });
    REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
    CHECK(received_contains(peer, "session/resume", "Be kind."));

    un::ForkSessionRequest fork;
    fork.sessionId = source;
    fork.cwd = "/tmp";
    v2::McpServerStdio stdio;
    stdio.name = "files";
    stdio.command = "/bin/true";
    fork.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_stdio(std::move(stdio))};
    fork.systemPrompt = text_prompt("override", "You are terse.");
    auto forked =
        peer.wait<un::ForkSessionResponse>([&](auto done) { acp::unstable::fork_session(*peer.client, fork, done); });
    REQUIRE_MESSAGE(forked.ok(), forked.status().to_string());
    // v1's stdio servers carry no type, but args and env (the peer refuses a typed one).
    CHECK(received_contains(peer, "session/fork", R"({"name":"files","command":"/bin/true","args":[],"env":[]})"));
    const std::string child = forked->sessionId;
    CHECK(child != source);
    // v1's configOptions (`id`) lifted into v2's, as a new session's are.
    REQUIRE(forked->configOptions.has_value());
    CHECK(forked->configOptions->size() == 2);
    const acp::SessionState* state = peer.client->sessions().find(child);
    REQUIRE(state != nullptr);
    REQUIRE(state->config_options().has_value());
    CHECK(state->config_options()->size() == 2);
    REQUIRE(peer.prompt_turn(child, "system").ok());
    CHECK(all_agent_text(peer, child).find("You are terse.") != std::string::npos);
    CHECK(message_count(*peer.client->sessions().find(source)) == source_messages);
}

TEST_CASE("unstable e2e v1: title, archive with the list filter, unarchive and status round-trip") {
    TsPeer peer = v1_unstable_peer();
    REQUIRE(peer.initialize().ok());
    const std::string id = peer.new_session();
    auto titled = peer.wait<un::SetSessionTitleResponse>(
        [&](auto done) { acp::unstable::set_session_title(*peer.client, id, "  Refactor  ", done); });
    REQUIRE_MESSAGE(titled.ok(), titled.status().to_string());
    CHECK(titled->title == "Refactor");

    auto status =
        peer.wait<un::SessionStatusResponse>([&](auto done) { acp::unstable::session_status(*peer.client, id, done); });
    REQUIRE_MESSAGE(status.ok(), status.status().to_string());
    CHECK(status->status.value == "open");
    CHECK_FALSE(status->state.has_value());  // v1 has no state

    REQUIRE(peer.wait<un::ArchiveSessionResponse>(
                    [&](auto done) { acp::unstable::archive_session(*peer.client, id, done); })
                .ok());
    auto only = peer.wait<v2::ListSessionsResponse>([&](auto done) {
        acp::unstable::list_sessions(*peer.client, v2::ListSessionsRequest{}, un::SessionArchiveFilter("only"), done);
    });
    REQUIRE_MESSAGE(only.ok(), only.status().to_string());
    REQUIRE(only->sessions.size() == 1);
    CHECK(only->sessions[0].sessionId == id);
    CHECK(acp::unstable::additions(only->sessions[0]).archived == acp::Nullable<bool>(true));
    auto visible = peer.wait<v2::ListSessionsResponse>(
        [&](auto done) { peer.client->list_sessions(v2::ListSessionsRequest{}, done); });
    REQUIRE(visible.ok());
    CHECK(visible->sessions.empty());

    status =
        peer.wait<un::SessionStatusResponse>([&](auto done) { acp::unstable::session_status(*peer.client, id, done); });
    REQUIRE(status.ok());
    CHECK(status->status.value == "saved");
    REQUIRE(peer.wait<un::UnarchiveSessionResponse>(
                    [&](auto done) { acp::unstable::unarchive_session(*peer.client, id, done); })
                .ok());
    visible = peer.wait<v2::ListSessionsResponse>(
        [&](auto done) { peer.client->list_sessions(v2::ListSessionsRequest{}, done); });
    REQUIRE(visible.ok());
    CHECK(visible->sessions.size() == 1);
}

TEST_CASE("unstable e2e v1: auth/status and its update, and providers, with the required one never disabled") {
    TsPeer peer = v1_unstable_peer();
    std::optional<std::string> pushed;
    acp::unstable::on_auth_status_update(*peer.client,
                                         [&](const un::AuthStatusUpdateNotification& n) { pushed = n.state.value; });
    REQUIRE(peer.initialize().ok());
    auto auth = peer.wait<un::AuthStatusResponse>([&](auto done) { acp::unstable::auth_status(*peer.client, done); });
    REQUIRE_MESSAGE(auth.ok(), auth.status().to_string());
    CHECK(auth->state.value == "authenticated");
    CHECK(peer.loop.run_until([&] { return pushed.has_value(); }));
    CHECK(pushed == "authenticated");

    auto listed =
        peer.wait<un::ListProvidersResponse>([&](auto done) { acp::unstable::list_providers(*peer.client, done); });
    REQUIRE_MESSAGE(listed.ok(), listed.status().to_string());
    CHECK(listed->providers.size() == 2);
    un::SetProviderRequest set;
    set.providerId = "extra";
    set.apiType = "openai";
    set.baseUrl = "https://llm.example/openai";
    auto configured =
        peer.wait<un::SetProviderResponse>([&](auto done) { acp::unstable::set_provider(*peer.client, set, done); });
    CHECK_MESSAGE(configured.ok(), configured.status().to_string());
    auto required = peer.wait<un::DisableProviderResponse>(
        [&](auto done) { acp::unstable::disable_provider(*peer.client, "main", done); });
    CHECK(required.status().code() == Errc::invalid_argument);
    CHECK(std::none_of(peer.sent.begin(), peer.sent.end(),
                       [](const std::string& line) { return line.find("providers/disable") != std::string::npos; }));
    un::DisableProviderRequest disable;
    disable.providerId = "extra";
    disable._meta = acp::RawJson{R"({"host":"test"})"};  // the whole request goes out, _meta too
    auto disabled = peer.wait<un::DisableProviderResponse>(
        [&](auto done) { acp::unstable::disable_provider(*peer.client, disable, done); });
    CHECK_MESSAGE(disabled.ok(), disabled.status().to_string());
    CHECK(received_contains(peer, "providers/disable", R"("_meta":{"host":"test"})"));
}

TEST_CASE("unstable e2e v1: against the stable v1 peer every unstable call is refused before sending") {
    TsPeer peer = v1_unstable_peer(opted_in(), "--caps=full");
    REQUIRE(peer.initialize().ok());
    CHECK_FALSE(acp::unstable::offer(*peer.client).fork);
    const std::string id = peer.new_session();
    const std::size_t sent = peer.sent.size();
    un::ForkSessionRequest fork;
    fork.sessionId = id;
    fork.cwd = "/tmp";
    CHECK(peer.wait<un::ForkSessionResponse>([&](auto done) { acp::unstable::fork_session(*peer.client, fork, done); })
              .status()
              .code() == Errc::unsupported);
    CHECK(peer.wait<un::ArchiveSessionResponse>(
                  [&](auto done) { acp::unstable::archive_session(*peer.client, id, done); })
              .status()
              .code() == Errc::unsupported);
    CHECK(
        peer.wait<un::SessionStatusResponse>([&](auto done) { acp::unstable::session_status(*peer.client, id, done); })
            .status()
            .code() == Errc::unsupported);
    CHECK(peer.wait<un::SetSessionTitleResponse>(
                  [&](auto done) { acp::unstable::set_session_title(*peer.client, id, "x", done); })
              .status()
              .code() == Errc::unsupported);
    CHECK(peer.wait<un::AuthStatusResponse>([&](auto done) { acp::unstable::auth_status(*peer.client, done); })
              .status()
              .code() == Errc::unsupported);
    CHECK(peer.wait<un::ListProvidersResponse>([&](auto done) { acp::unstable::list_providers(*peer.client, done); })
              .status()
              .code() == Errc::unsupported);
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    CHECK(peer.wait<v2::NewSessionResponse>([&](auto done) {
                  acp::unstable::new_session(*peer.client, request, text_prompt("append", "x"), done);
              })
              .status()
              .code() == Errc::unsupported);
    CHECK(peer.wait<v2::ListSessionsResponse>([&](auto done) {
                  acp::unstable::list_sessions(*peer.client, v2::ListSessionsRequest{},
                                               un::SessionArchiveFilter("only"), done);
              })
              .status()
              .code() == Errc::unsupported);
    CHECK(peer.sent.size() == sent);
}
