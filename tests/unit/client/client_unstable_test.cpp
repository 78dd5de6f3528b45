// SPDX-License-Identifier: Apache-2.0
// acp::unstable against a scripted agent: the opt-in, each call's capability gate, what
// goes on the wire, and what the model learns (a fork is a new session).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "acp/client.hpp"
#include "acp/session.hpp"
#include "acp/unstable.hpp"
#include "unit/client/scripted_client.hpp"

using acp::Errc;
using acp::Result;
using acp::test::Scripted;
namespace v2 = acp::v2;
namespace un = acp::v2::unstable;

namespace {

// Every unstable capability, override mode included.
constexpr const char* kEverything =
    R"({"protocolVersion":2,"info":{"name":"scripted","version":"1"},"capabilities":{"session":{"prompt":{},)"
    R"("fork":{},"archive":{},"status":{},"title":{},"systemPrompt":{"mode":{"override":{}}}},)"
    R"("auth":{"status":{}},"providers":{}}})";

acp::ClientOptions opted_in() {
    acp::ClientOptions options;
    options.unstable = true;
    return options;
}

void initialize_with(Scripted& s, const std::string& result) {
    std::optional<Result<v2::InitializeResponse>> done;
    s.client->initialize([&](Result<v2::InitializeResponse> r) { done.emplace(std::move(r)); });
    s.answer_next(result);
    REQUIRE(s.loop.run_until([&] { return done.has_value(); }));
    REQUIRE(done->ok());
}

// Runs the call; the agent answers its request with result. Returns the request sent.
template <class T, class Start>
rapidjson::Document round_trip(Scripted& s, Start&& start, const std::string& result, std::optional<Result<T>>& out) {
    const std::size_t index = s.agent->lines.size();
    start([&out](Result<T> r) { out.emplace(std::move(r)); });
    s.answer_next(result);
    REQUIRE(s.loop.run_until([&] { return out.has_value(); }));
    return s.agent->parsed(index);
}

// Runs a call that must be refused before sending (unsupported: not offered or not opted
// in; invalid_argument: a bad value); returns the reason.
template <class T, class Start>
std::string refused(Scripted& s, Start&& start) {
    const std::size_t sent = s.agent->lines.size();
    std::optional<Result<T>> out;
    start([&out](Result<T> r) { out.emplace(std::move(r)); });
    REQUIRE(s.loop.run_until([&] { return out.has_value(); }));
    CHECK(s.agent->lines.size() == sent);
    REQUIRE_FALSE(out->ok());
    CHECK((out->status().code() == Errc::unsupported || out->status().code() == Errc::invalid_argument));
    return out->status().message();
}

un::SystemPrompt text_prompt(std::string mode, std::string text) {
    un::SystemPrompt prompt;
    prompt.mode = std::move(mode);
    prompt.content.push_back(v2::ContentBlock::make_text(v2::TextContent{std::move(text), {}, {}, {}}));
    return prompt;
}

}  // namespace

TEST_CASE("unstable: without ClientOptions::unstable every call is refused and nothing is sent") {
    Scripted s;
    initialize_with(s, kEverything);
    CHECK_FALSE(acp::unstable::offer(*s.client).fork);
    un::ForkSessionRequest fork;
    fork.sessionId = "s-1";
    fork.cwd = "/work";
    const std::string why =
        refused<un::ForkSessionResponse>(s, [&](auto done) { acp::unstable::fork_session(*s.client, fork, done); });
    CHECK(why.find("ClientOptions::unstable") != std::string::npos);
    v2::NewSessionRequest request;
    request.cwd = "/work";
    refused<v2::NewSessionResponse>(s, [&](auto done) {
        acp::unstable::new_session(*s.client, request, text_prompt("append", "Be brief."), done);
    });
    refused<un::AuthStatusResponse>(s, [&](auto done) { acp::unstable::auth_status(*s.client, done); });
}

TEST_CASE("unstable: each call is refused before sending when its capability is not advertised") {
    Scripted s(opted_in());
    initialize_with(s, acp::test::kInitializeResult);
    const acp::unstable::Offer offer = acp::unstable::offer(*s.client);
    CHECK_FALSE(offer.fork);
    CHECK_FALSE(offer.providers);
    un::ForkSessionRequest fork;
    fork.sessionId = "s-1";
    fork.cwd = "/work";
    CHECK(refused<un::ForkSessionResponse>(s, [&](auto done) {
              acp::unstable::fork_session(*s.client, fork, done);
          }).find("session.fork") != std::string::npos);
    refused<un::ArchiveSessionResponse>(s, [&](auto done) { acp::unstable::archive_session(*s.client, "s-1", done); });
    refused<un::UnarchiveSessionResponse>(s,
                                          [&](auto done) { acp::unstable::unarchive_session(*s.client, "s-1", done); });
    refused<un::SessionStatusResponse>(s, [&](auto done) { acp::unstable::session_status(*s.client, "s-1", done); });
    refused<un::SetSessionTitleResponse>(
        s, [&](auto done) { acp::unstable::set_session_title(*s.client, "s-1", "T", done); });
    refused<un::AuthStatusResponse>(s, [&](auto done) { acp::unstable::auth_status(*s.client, done); });
    refused<un::ListProvidersResponse>(s, [&](auto done) { acp::unstable::list_providers(*s.client, done); });
    refused<un::DisableProviderResponse>(s,
                                         [&](auto done) { acp::unstable::disable_provider(*s.client, "main", done); });
    v2::ListSessionsRequest list;
    refused<v2::ListSessionsResponse>(
        s, [&](auto done) { acp::unstable::list_sessions(*s.client, list, un::SessionArchiveFilter("only"), done); });
    v2::NewSessionRequest request;
    request.cwd = "/work";
    refused<v2::NewSessionResponse>(s, [&](auto done) {
        acp::unstable::new_session(*s.client, request, text_prompt("append", "Be brief."), done);
    });
}

TEST_CASE("unstable: a fork round-trips and is a new session in the store, with its roots") {
    Scripted s(opted_in());
    initialize_with(s, kEverything);
    CHECK(acp::unstable::offer(*s.client).fork);
    s.open_session("s-1");
    un::ForkSessionRequest fork;
    fork.sessionId = "s-1";
    fork.cwd = "/work/fork";
    fork.systemPrompt = text_prompt("append", "Summarise.");
    std::optional<Result<un::ForkSessionResponse>> forked;
    auto sent = round_trip<un::ForkSessionResponse>(
        s, [&](auto done) { acp::unstable::fork_session(*s.client, fork, done); },
        R"({"sessionId":"s-2","configOptions":[]})", forked);
    CHECK(std::string(sent["method"].GetString()) == "session/fork");
    CHECK(std::string(sent["params"]["sessionId"].GetString()) == "s-1");
    CHECK(std::string(sent["params"]["systemPrompt"]["mode"].GetString()) == "append");
    REQUIRE(forked->ok());
    CHECK((*forked)->sessionId == "s-2");
    CHECK(s.client->sessions().find("s-2") != nullptr);
    REQUIRE(s.client->session_roots("s-2").has_value());
    CHECK(s.client->session_roots("s-2")->cwd == "/work/fork");
    // Its traffic is taken like any session the client opened.
    s.update("s-2",
             R"({"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"hi"}})");
    REQUIRE(s.loop.run_until([&] { return !s.updates.empty(); }));
    CHECK(s.updates.back().sessionId == "s-2");
}

TEST_CASE("unstable: a fork's commands without a type are taken as commands, as session/new's are") {
    // Appendix B 9: older drafts sent AvailableCommand entries without `type`.
    Scripted s(opted_in());
    initialize_with(s, kEverything);
    s.open_session("s-1");
    un::ForkSessionRequest fork;
    fork.sessionId = "s-1";
    fork.cwd = "/work";
    std::optional<Result<un::ForkSessionResponse>> forked;
    round_trip<un::ForkSessionResponse>(
        s, [&](auto done) { acp::unstable::fork_session(*s.client, fork, done); },
        R"({"sessionId":"s-2","availableCommands":[{"name":"web","description":"Search"}]})", forked);
    REQUIRE_MESSAGE(forked->ok(), forked->status().to_string());
    REQUIRE((*forked)->availableCommands.has_value());
    CHECK((*forked)->availableCommands->at(0).command()->name == "web");
    const auto* state = s.client->sessions().find("s-2");
    REQUIRE(state != nullptr);
    REQUIRE(state->available_commands().has_value());
    CHECK(state->available_commands()->at(0).command()->name == "web");
}

TEST_CASE("unstable: a fork's cwd passes session/new's checks") {
    // CLIENT-MUST-38: absolute paths only.
    Scripted s(opted_in());
    initialize_with(s, kEverything);
    un::ForkSessionRequest fork;
    fork.sessionId = "s-1";
    fork.cwd = "relative/dir";
    CHECK(refused<un::ForkSessionResponse>(s, [&](auto done) {
              acp::unstable::fork_session(*s.client, fork, done);
          }).find("CLIENT-MUST-38") != std::string::npos);
}

TEST_CASE("unstable: systemPrompt is sent on new and resume, and override, empty and non-text prompts are gated") {
    Scripted s(opted_in());
    initialize_with(s, R"({"protocolVersion":2,"info":{"name":"a","version":"1"},)"
                       R"("capabilities":{"session":{"systemPrompt":{}}}})");
    CHECK(acp::unstable::offer(*s.client).system_prompt);
    CHECK_FALSE(acp::unstable::offer(*s.client).system_prompt_override);
    v2::NewSessionRequest request;
    request.cwd = "/work";
    std::optional<Result<v2::NewSessionResponse>> created;
    auto sent = round_trip<v2::NewSessionResponse>(
        s, [&](auto done) { acp::unstable::new_session(*s.client, request, text_prompt("append", "Be brief."), done); },
        R"({"sessionId":"s-1"})", created);
    REQUIRE(created->ok());
    CHECK(std::string(sent["params"]["systemPrompt"]["content"][0]["text"].GetString()) == "Be brief.");
    CHECK(refused<v2::NewSessionResponse>(s, [&](auto done) {
              acp::unstable::new_session(*s.client, request, text_prompt("override", "You are X."), done);
          }).find("mode.override") != std::string::npos);
    refused<v2::NewSessionResponse>(
        s, [&](auto done) { acp::unstable::new_session(*s.client, request, text_prompt("append", ""), done); });
    un::SystemPrompt empty;
    empty.mode = "append";
    refused<v2::NewSessionResponse>(s, [&](auto done) { acp::unstable::new_session(*s.client, request, empty, done); });
    un::SystemPrompt image = text_prompt("append", "x");
    image.content.push_back(v2::ContentBlock::make_image(v2::ImageContent{}));
    refused<v2::NewSessionResponse>(s, [&](auto done) { acp::unstable::new_session(*s.client, request, image, done); });
    // The host cannot slip it in as an extra field.
    v2::NewSessionRequest smuggled = request;
    smuggled.extra_fields.emplace_back("systemPrompt", acp::RawJson{R"({"mode":"override","content":[]})"});
    refused<v2::NewSessionResponse>(
        s, [&](auto done) { acp::unstable::new_session(*s.client, smuggled, text_prompt("append", "x"), done); });

    v2::ResumeSessionRequest resume;
    resume.sessionId = "s-1";
    resume.cwd = "/work";
    std::optional<Result<v2::ResumeSessionResponse>> resumed;
    sent = round_trip<v2::ResumeSessionResponse>(
        s,
        [&](auto done) { acp::unstable::resume_session(*s.client, resume, text_prompt("append", "Be brief."), done); },
        "{}", resumed);
    CHECK(resumed->ok());
    CHECK(std::string(sent["method"].GetString()) == "session/resume");
    CHECK(sent["params"].HasMember("systemPrompt"));
}

TEST_CASE("unstable: archive, unarchive, the list filter, status and set_title round-trip") {
    Scripted s(opted_in());
    initialize_with(s, kEverything);
    std::optional<Result<un::ArchiveSessionResponse>> archived;
    auto sent = round_trip<un::ArchiveSessionResponse>(
        s, [&](auto done) { acp::unstable::archive_session(*s.client, "s-1", done); }, "{}", archived);
    CHECK(archived->ok());
    CHECK(std::string(sent["method"].GetString()) == "session/archive");
    std::optional<Result<un::UnarchiveSessionResponse>> unarchived;
    sent = round_trip<un::UnarchiveSessionResponse>(
        s, [&](auto done) { acp::unstable::unarchive_session(*s.client, "s-1", done); }, "{}", unarchived);
    CHECK(unarchived->ok());
    CHECK(std::string(sent["method"].GetString()) == "session/unarchive");

    std::optional<Result<v2::ListSessionsResponse>> listed;
    v2::ListSessionsRequest list;
    sent = round_trip<v2::ListSessionsResponse>(
        s, [&](auto done) { acp::unstable::list_sessions(*s.client, list, un::SessionArchiveFilter("only"), done); },
        R"({"sessions":[{"sessionId":"s-1","cwd":"/work","archived":true}]})", listed);
    REQUIRE(listed->ok());
    CHECK(std::string(sent["params"]["archived"].GetString()) == "only");
    REQUIRE((*listed)->sessions.size() == 1);
    const un::SessionInfoAdditions added = acp::unstable::additions((*listed)->sessions[0]);
    REQUIRE(added.archived.has_value());
    CHECK(*added.archived);

    std::optional<Result<un::SessionStatusResponse>> status;
    sent = round_trip<un::SessionStatusResponse>(
        s, [&](auto done) { acp::unstable::session_status(*s.client, "s-1", done); },
        R"({"status":"open","state":{"state":"running"}})", status);
    REQUIRE(status->ok());
    CHECK((*status)->status.value == "open");
    REQUIRE((*status)->state.has_value());
    CHECK((*status)->state->kind() == v2::StateUpdate::Kind::running);

    std::optional<Result<un::SetSessionTitleResponse>> titled;
    sent = round_trip<un::SetSessionTitleResponse>(
        s, [&](auto done) { acp::unstable::set_session_title(*s.client, "s-1", "  My title ", done); },
        R"({"title":"My title"})", titled);
    REQUIRE(titled->ok());
    CHECK((*titled)->title == "My title");
    CHECK(std::string(sent["params"]["title"].GetString()) == "  My title ");
}

TEST_CASE("unstable: auth/status round-trips and auth/status_update reaches its handler") {
    Scripted s(opted_in());
    std::optional<un::AuthStatusUpdateNotification> update;
    acp::unstable::on_auth_status_update(*s.client,
                                         [&](const un::AuthStatusUpdateNotification& n) { update.emplace(n); });
    initialize_with(s, kEverything);
    std::optional<Result<un::AuthStatusResponse>> status;
    round_trip<un::AuthStatusResponse>(
        s, [&](auto done) { acp::unstable::auth_status(*s.client, done); }, R"({"state":"authenticated"})", status);
    REQUIRE(status->ok());
    CHECK((*status)->state.value == "authenticated");
    s.agent->send_line(R"({"jsonrpc":"2.0","method":"auth/status_update","params":{"state":"unauthenticated"}})");
    REQUIRE(s.loop.run_until([&] { return update.has_value(); }));
    CHECK(update->state.value == "unauthenticated");
}

TEST_CASE("unstable: providers list and set round-trip, and a required provider is never disabled") {
    Scripted s(opted_in());
    initialize_with(s, kEverything);
    const std::string providers = R"({"providers":[{"providerId":"main","supported":["anthropic"],"required":true},)"
                                  R"({"providerId":"extra","supported":["openai"],"required":false}]})";
    std::optional<Result<un::ListProvidersResponse>> listed;
    round_trip<un::ListProvidersResponse>(
        s, [&](auto done) { acp::unstable::list_providers(*s.client, done); }, providers, listed);
    REQUIRE(listed->ok());
    CHECK((*listed)->providers.size() == 2);

    un::SetProviderRequest set;
    set.providerId = "extra";
    set.apiType = "openai";
    set.baseUrl = "https://llm.example/v1";
    std::optional<Result<un::SetProviderResponse>> configured;
    auto sent = round_trip<un::SetProviderResponse>(
        s, [&](auto done) { acp::unstable::set_provider(*s.client, set, done); }, "{}", configured);
    CHECK(configured->ok());
    CHECK(std::string(sent["params"]["baseUrl"].GetString()) == "https://llm.example/v1");

    // disable asks providers/list first: "main" is required, so no providers/disable follows.
    std::optional<Result<un::DisableProviderResponse>> disabled;
    sent = round_trip<un::DisableProviderResponse>(
        s, [&](auto done) { acp::unstable::disable_provider(*s.client, "main", done); }, providers, disabled);
    CHECK(std::string(sent["method"].GetString()) == "providers/list");
    REQUIRE_FALSE(disabled->ok());
    CHECK(disabled->status().message().find("required") != std::string::npos);

    std::optional<Result<un::DisableProviderResponse>> done_extra;
    const std::size_t index = s.agent->lines.size();
    acp::unstable::disable_provider(*s.client, "extra",
                                    [&](Result<un::DisableProviderResponse> r) { done_extra.emplace(std::move(r)); });
    s.answer_next(providers);
    s.answer_next("{}");
    REQUIRE(s.loop.run_until([&] { return done_extra.has_value(); }));
    CHECK(done_extra->ok());
    CHECK(std::string(s.agent->parsed(index + 1)["method"].GetString()) == "providers/disable");
    CHECK(std::string(s.agent->parsed(index + 1)["params"]["providerId"].GetString()) == "extra");
}

// --- a v1 agent (v1's unstable schema) -------------------------------------------------

namespace {

constexpr const char* kV1Everything =
    R"({"protocolVersion":1,"agentInfo":{"name":"scripted-v1","version":"1"},"agentCapabilities":{)"
    R"("sessionCapabilities":{"fork":{},"archive":{},"status":{},"title":{},"systemPrompt":{}},)"
    R"("auth":{"status":{}},"providers":{}}})";

acp::ClientOptions v1_options(bool unstable) {
    acp::ClientOptions options;
    options.protocol_version = 1;
    options.unstable = unstable;
    return options;
}

bool has_extra(const v2::ExtraFields& extra, const std::string& key) {
    for (const auto& field : extra) {
        if (field.first == key) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("unstable v1: a v1 agent's unstable capabilities are lifted only with the opt-in, malformed ones not") {
    {
        Scripted s(v1_options(false));
        initialize_with(s, kV1Everything);
        const v2::InitializeResponse* agent = s.client->agent();
        REQUIRE(agent != nullptr);
        CHECK_FALSE(has_extra(agent->capabilities->session->extra_fields, "fork"));
        CHECK_FALSE(has_extra(agent->capabilities->extra_fields, "providers"));
        CHECK_FALSE(acp::unstable::offer(*s.client).fork);
    }
    {
        Scripted s(v1_options(true));
        initialize_with(s, kV1Everything);
        const v2::InitializeResponse* agent = s.client->agent();
        REQUIRE(agent != nullptr);
        // Where a v2 agent has them, for the host that reads the answer too.
        CHECK(has_extra(agent->capabilities->session->extra_fields, "fork"));
        CHECK(has_extra(agent->capabilities->extra_fields, "providers"));
        REQUIRE(agent->capabilities->auth.has_value());
        CHECK(has_extra(agent->capabilities->auth->extra_fields, "status"));
        const acp::unstable::Offer offer = acp::unstable::offer(*s.client);
        CHECK(offer.fork);
        CHECK(offer.archive);
        CHECK(offer.status);
        CHECK(offer.title);
        CHECK(offer.system_prompt);
        CHECK_FALSE(offer.system_prompt_override);
        CHECK(offer.auth_status);
        CHECK(offer.providers);
    }
    // CLIENT-MUST-22: a malformed marker is not an offer.
    Scripted s(v1_options(true));
    initialize_with(s,
                    R"({"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"fork":true},"providers":7}})");
    CHECK_FALSE(acp::unstable::offer(*s.client).fork);
    CHECK_FALSE(acp::unstable::offer(*s.client).providers);
}

TEST_CASE("unstable v1: answers are lifted: a fork's modes become its mode option, v2-only members are dropped") {
    Scripted s(v1_options(true));
    initialize_with(s, kV1Everything);

    un::ForkSessionRequest fork;
    fork.sessionId = "s-1";
    fork.cwd = "/work";
    fork.systemPrompt = text_prompt("append", "Be brief.");
    std::optional<Result<un::ForkSessionResponse>> forked;
    auto sent = round_trip(
        s, [&](auto done) { acp::unstable::fork_session(*s.client, fork, done); },
        R"({"sessionId":"s-2","modes":{"currentModeId":"ask","availableModes":[{"id":"ask","name":"Ask"}]},)"
        R"("availableCommands":[{"name":"x","description":"y"}]})",
        forked);
    CHECK(std::string(sent["method"].GetString()) == "session/fork");
    CHECK(sent["params"]["systemPrompt"]["mode"] == "append");
    REQUIRE(forked->ok());
    REQUIRE(forked->value().configOptions.has_value());
    REQUIRE(forked->value().configOptions->size() == 1);
    CHECK(forked->value().configOptions->front().configId == "_v1_mode");
    CHECK_FALSE(forked->value().availableCommands.has_value());  // not v1's to send
    CHECK(s.client->sessions().find("s-2") != nullptr);

    std::optional<Result<un::SessionStatusResponse>> status;
    round_trip(
        s, [&](auto done) { acp::unstable::session_status(*s.client, "s-2", done); },
        R"({"status":"open","state":{"state":"running"}})", status);
    REQUIRE(status->ok());
    CHECK(status->value().status.value == "open");
    CHECK_FALSE(status->value().state.has_value());

    // An answer that is not v1's shape is a protocol error.
    std::optional<Result<un::SetSessionTitleResponse>> titled;
    round_trip(
        s, [&](auto done) { acp::unstable::set_session_title(*s.client, "s-2", "T", done); }, R"({"title":7})", titled);
    CHECK(titled->status().code() == Errc::protocol_error);
}

TEST_CASE("unstable: strings that are not UTF-8 and _meta given as a request: refused, or sent whole") {
    Scripted s(opted_in());
    initialize_with(s, kEverything);
    CHECK(refused<un::SetSessionTitleResponse>(s, [&](auto done) {
              acp::unstable::set_session_title(*s.client, "s-1", "caf\xE9", done);
          }).find("UTF-8") != std::string::npos);
    un::ArchiveSessionRequest archive;
    archive.sessionId = "s-1";
    archive._meta = acp::RawJson{R"({"host":1})"};
    std::optional<Result<un::ArchiveSessionResponse>> archived;
    auto sent = round_trip(
        s, [&](auto done) { acp::unstable::archive_session(*s.client, archive, done); }, "{}", archived);
    CHECK(archived->ok());
    CHECK(sent["params"]["_meta"]["host"] == 1);
}
