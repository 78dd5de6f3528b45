// SPDX-License-Identifier: Apache-2.0
// The client against an agent that misbehaves (docs/untrusted-agent.md), on the peer
// built on the official TypeScript SDK: raw JSON from the host never breaks a line,
// traffic for sessions the client never opened is dropped in bounded memory, an agent
// that never answers initialize is named, a silent turn is reported.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

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

// This process's resident set, from /proc (Linux).
long rss_kib() {
    std::FILE* status = std::fopen("/proc/self/status", "r");
    REQUIRE(status != nullptr);
    char line[256];
    long kib = -1;
    while (std::fgets(line, sizeof line, status) != nullptr) {
        if (std::strncmp(line, "VmRSS:", 6) == 0) kib = std::atol(line + 6);
    }
    std::fclose(status);
    REQUIRE(kib > 0);
    return kib;
}

constexpr const char* kPretty = "{\n  \"traceparent\": \"00-abc-01\",\n  \"nested\": {\n    \"a\": [1, 2]\n  }\n}";

}  // namespace

TEST_CASE("untrusted agent: pretty-printed raw JSON from the host goes out one line per message") {
    // CLIENT-MUST-01: what the client writes is one JSON value per line, whatever the host
    // hands it; the agent's recorder sees every line it received as one JSON value.
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    request._meta = acp::RawJson{kPretty};
    auto created = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    REQUIRE_MESSAGE(created.ok(), created.status().to_string());
    auto echoed = peer.wait<acp::RawJson>(
        [&](auto done) { peer.client->ext_request("_test/echo", acp::RawJson{kPretty}, done); });
    REQUIRE_MESSAGE(echoed.ok(), echoed.status().to_string());
    CHECK(echoed->text == R"({"traceparent":"00-abc-01","nested":{"a":[1,2]}})");
    CHECK(peer.client->ext_notification("_test/note", acp::RawJson{kPretty}).ok());
    v2::PromptRequest prompt = TsPeer::text_prompt(created->sessionId, "hello");
    prompt._meta = acp::RawJson{kPretty};
    REQUIRE(peer.prompt_turn(created->sessionId, "hello").ok());
    REQUIRE(peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(prompt, done); }).ok());
    peer.loop.run_until([&] { return peer.idle_count() == 2; });
    const std::vector<std::string> received = peer.received();
    REQUIRE(received.size() >= 6);
    for (const auto& line : received) {
        INFO(line);
        CHECK(line.find(R"("raw":)") == std::string::npos);  // every line parsed as JSON
    }
    // The value arrived whole, compact.
    CHECK(sent_contains(peer, R"("_meta":{"traceparent":"00-abc-01","nested":{"a":[1,2]}})"));
}

TEST_CASE("untrusted agent: raw JSON that is not JSON is refused before sending") {
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::size_t sent_before = peer.sent.size();
    auto bad_params = peer.wait<acp::RawJson>(
        [&](auto done) { peer.client->ext_request("_test/echo", acp::RawJson{"{\"a\":\n"}, done); });
    CHECK(bad_params.status().code() == Errc::invalid_argument);
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    request._meta = acp::RawJson{"{\"a\":1}\n{\"b\":2}"};  // two values: would be two lines
    auto bad_meta = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    CHECK(bad_meta.status().code() == Errc::invalid_argument);
    CHECK(bad_meta.status().message().find("not one JSON value") != std::string::npos);
    CHECK(peer.sent.size() == sent_before);
}

TEST_CASE("untrusted agent: a flood of updates for sessions the client never opened stays out of the model") {
    // The agent sends 20000 updates of 1 KiB for as many random session ids.
    TsPeer peer;
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    // The first flood warms up what the client keeps between messages (read buffers, the
    // allocator's free lists); the second must then cost nothing that stays. Held in the
    // model, each flood would add at least its 20 MiB of text.
    REQUIRE(peer.prompt_turn(session, "flood-unknown 20000").ok());
    const long rss_before = rss_kib();
    const std::size_t log_before = peer.log.size();
    REQUIRE(peer.prompt_turn(session, "flood-unknown 20000").ok());
    CHECK(peer.agent_text("m2") == "flooded 20000");
    const long growth_kib = rss_kib() - rss_before;
    INFO("RSS grew by " << growth_kib << " KiB");
    // Only the client's own session is in the model; nothing was handed to the host.
    CHECK(peer.client->sessions().size() == 1);
    CHECK(std::all_of(peer.updates.begin(), peer.updates.end(),
                      [&](const v2::UpdateSessionNotification& n) { return n.sessionId == session; }));
    // Said, in a bounded number of lines: one per id for the first ids, then summaries.
    std::size_t dropped_lines = 0;
    for (std::size_t i = log_before; i < peer.log.size(); ++i) {
        if (peer.log[i].find("which this client did not open") != std::string::npos) ++dropped_lines;
    }
    // The first flood named its first 32 ids; the second adds only power-of-two summaries.
    CHECK(dropped_lines >= 1);
    CHECK(dropped_lines <= 16);
    CHECK(peer.logged("dropped 32768 messages so far for sessions which this client did not open"));
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer keeps freed memory in quarantine, so RSS says nothing about what the
    // client holds there; the model checks above still hold it to account.
    MESSAGE("RSS bound not checked under AddressSanitizer (freed memory is quarantined)");
#else
    CHECK(growth_kib < 8 * 1024);
#endif
}

TEST_CASE("untrusted agent: a permission or elicitation request for a session the client never opened gets -32002") {
    // CLIENT-GUIDE §5.2 rec. 6 / Appendix B 19: answered -32002, never shown to the host.
    TsPeer peer;
    int asked = 0;
    peer.client->on_permission_request([&](const v2::RequestPermissionRequest&, acp::PermissionResponder r) {
        ++asked;
        r.select("allow");
    });
    peer.client->on_elicitation(true, false, [&](const v2::CreateElicitationRequest&, acp::ElicitationResponder r) {
        ++asked;
        CHECK(r.accept(acp::RawJson{"{}"}).ok());
    });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.prompt_turn(session, "permission-unknown").ok());
    CHECK(peer.agent_text("m1") == "error -32002; error -32002");
    CHECK(asked == 0);
    CHECK(peer.logged(R"(dropped a session/request_permission request for session "ghost-session")"));
}

TEST_CASE("untrusted agent: an agent that never answers initialize is named in a timeout") {
    acp::ClientOptions options;
    options.initialize_timeout = std::chrono::milliseconds(300);
    TsPeer peer({"--silent-initialize"}, options);
    auto agent = peer.initialize();
    REQUIRE_FALSE(agent.ok());
    CHECK(agent.status().code() == Errc::timed_out);
    const std::string& why = agent.status().message();
    CHECK(why.find("initialize (ACP v2)") != std::string::npos);
    CHECK(why.find(std::string("the agent '") + ACP_NODE + "'") != std::string::npos);
    CHECK(why.find("ClientOptions::initialize_timeout") != std::string::npos);
    peer.validate_on_exit = false;  // the agent never answered: nothing to hold the traffic to
}

TEST_CASE("untrusted agent: a running turn that goes silent is reported, not killed") {
    acp::ClientOptions options;
    options.turn_silence = std::chrono::milliseconds(150);
    TsPeer peer({"--slow-ms=1000", "--slow-ticks=3"}, options);
    std::vector<std::pair<std::string, long>> reports;
    peer.client->on_turn_silent([&](const std::string& session_id, std::chrono::milliseconds silent_for) {
        reports.emplace_back(session_id, static_cast<long>(silent_for.count()));
    });
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    REQUIRE(peer.start_prompt(session, "slow").ok());
    REQUIRE(peer.loop.run_until([&] { return !reports.empty(); }));
    CHECK(reports[0] == std::make_pair(session, 150L));
    // Not a kill: the turn goes on, ticks keep coming, and it ends as the agent says.
    const std::size_t updates_at_report = peer.updates.size();
    REQUIRE(peer.loop.run_until([&] { return peer.updates.size() > updates_at_report; }));
    REQUIRE(peer.loop.run_until([&] { return peer.idle_count() == 1; }));
    CHECK(peer.last_stop_reason() == "end_turn");
    CHECK(reports.size() >= 2);  // one per silence: between the ticks
    CHECK(peer.logged("the running turn has produced nothing for 150 ms"));
}

TEST_CASE("untrusted agent: session/cancel goes only to an agent with sessions") {
    // CLIENT-MUST-31
    TsPeer peer({"--caps=none"});
    REQUIRE(peer.initialize().ok());
    const std::size_t sent_before = peer.sent.size();
    peer.client->cancel("sess-1");
    peer.loop.run_for(std::chrono::milliseconds(20));
    CHECK(peer.sent.size() == sent_before);
    CHECK(peer.logged("session/cancel not sent: CLIENT-MUST-31"));
}

TEST_CASE("untrusted agent: the traffic observer never sees MCP or _meta secrets, the agent gets them all") {
    TsPeer peer;
    std::vector<std::string> observed;
    peer.client->set_traffic_observer(
        [&](acp::Direction, std::string_view line, auto) { observed.emplace_back(line); });
    REQUIRE(peer.initialize().ok());
    v2::McpServerStdio stdio;
    stdio.name = "db";
    stdio.command = "/usr/bin/db-mcp";
    stdio.args = std::vector<std::string>{"--api-key", "s3cr3t-arg", "--token=s3cr3t-eq", "--port", "5432"};
    v2::EnvVariable env;
    env.name = "DB_PASSWORD";
    env.value = "s3cr3t-env";
    stdio.env = std::vector<v2::EnvVariable>{env};
    v2::McpServerHttp http;
    http.name = "web";
    http.url = "https://bot:s3cr3t-user@mcp.example.com/mcp?key=s3cr3t-query";
    v2::HttpHeader header;
    header.name = "Authorization";
    header.value = "Bearer s3cr3t-header";
    http.headers = std::vector<v2::HttpHeader>{header};
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    request.mcpServers = {v2::McpServer::make_stdio(stdio), v2::McpServer::make_http(http)};
    request._meta = acp::RawJson{R"({"vendor":{"sessionToken":"s3cr3t-meta"}})"};
    auto created = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    REQUIRE_MESSAGE(created.ok(), created.status().to_string());
    // The agent->client direction: the peer echoes the params back as its answer.
    auto echoed = peer.wait<acp::RawJson>([&](auto done) {
        peer.client->ext_request("_test/echo", acp::RawJson{R"({"_meta":{"apiKey":"s3cr3t-echo"}})"}, done);
    });
    REQUIRE_MESSAGE(echoed.ok(), echoed.status().to_string());
    CHECK(echoed->text.find("s3cr3t-echo") != std::string::npos);  // the host gets the real answer

    const std::vector<std::string> secrets = {"s3cr3t-arg",   "s3cr3t-eq",     "s3cr3t-env",  "s3cr3t-user",
                                              "s3cr3t-query", "s3cr3t-header", "s3cr3t-meta", "s3cr3t-echo"};
    std::string everything_observed;
    for (const auto& line : observed) everything_observed += line + "\n";
    std::string everything_received;
    for (const auto& line : peer.received()) everything_received += line + "\n";
    for (const auto& secret : secrets) {
        INFO(secret);
        CHECK(everything_observed.find(secret) == std::string::npos);
        // Redaction is for the observer only: the wire carries every value.
        if (secret != "s3cr3t-echo") CHECK(everything_received.find(secret) != std::string::npos);
    }
    CHECK(everything_received.find("s3cr3t-echo") != std::string::npos);  // sent by the client, echoed back
    CHECK(everything_observed.find(R"("--port","5432")") != std::string::npos);
    CHECK(everything_observed.find("mcp.example.com/mcp") != std::string::npos);
}
