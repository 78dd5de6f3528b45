// SPDX-License-Identifier: Apache-2.0
// The Client over WebSocket and Streamable HTTP against the official TypeScript SDK's
// server side (tests/peers/ts-agent/server.mjs serves the same agent as agent.mjs over
// both, on loopback). The same conversation over stdio, WebSocket and HTTP builds
// byte-identical session models; faults (refused connections, bad certificates, HTTP
// errors, a detached session, an oversized message, a killed server) give clear errors
// and leave the rest working; a host reconnects and resumes its sessions.
#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <set>
#include <string>

#include "acp/session.hpp"
#include "support/ts_peer.hpp"
#include "support/ts_server.hpp"

using acp::RemoteOptions;
using acp::test::TsPeer;
using acp::test::TsServer;
namespace v2 = acp::v2;

namespace {

RemoteOptions remote(const std::string& url) {
    RemoteOptions options;
    options.url = url;
    options.connect_timeout = std::chrono::seconds(10);
    return options;
}

v2::SetSessionConfigOptionRequestType select_value(const std::string& value) {
    v2::SetSessionConfigOptionRequestTypeId id;
    id.value = value;
    return v2::SetSessionConfigOptionRequestType::make_id(std::move(id));
}

// One conversation: text, a tool call with terminal output, a permission asked of the
// host (a request from the agent, answered over the same transport), a config change.
std::string converse(TsPeer& peer) {
    peer.client->on_permission_request(
        [](const v2::RequestPermissionRequest&, acp::PermissionResponder r) { r.select("allow-once"); });
    auto init = peer.initialize();
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    const std::string session = peer.new_session();
    for (const char* prompt : {"hello", "tool", "permission", "work"}) {
        auto turn = peer.prompt_turn(session, prompt);
        REQUIRE_MESSAGE(turn.ok(), prompt << ": " << turn.status().to_string());
    }
    v2::SetSessionConfigOptionRequest set;
    set.sessionId = session;
    set.configId = "model";
    set.type = select_value("model-b");
    auto changed =
        peer.wait<v2::SetSessionConfigOptionResponse>([&](auto done) { peer.client->set_config_option(set, done); });
    REQUIRE_MESSAGE(changed.ok(), changed.status().to_string());
    const acp::SessionState* state = peer.client->sessions().find(session);
    REQUIRE(state != nullptr);
    return acp::to_json(*state);
}

}  // namespace

TEST_CASE("remote: the same conversation over stdio and WebSocket and HTTP builds byte-identical models") {
    std::string over_stdio;
    {
        TsPeer peer;
        over_stdio = converse(peer);
    }
    CHECK(over_stdio.find("Permission granted (allow-once)") != std::string::npos);
    CHECK(over_stdio.find("build: \u2713 ok") != std::string::npos);
    for (const char* transport : {"ws", "http"}) {
        CAPTURE(transport);
        std::string record = TsPeer::make_record_file();
        TsServer server({"--record=" + record});
        TsPeer peer(TsPeer::remote, remote(std::string(transport) == "ws" ? server.ws_url : server.http_url), record);
        CHECK(converse(peer) == over_stdio);
    }
}

TEST_CASE("remote: a slow event stream changes nothing") {
    std::string expected;
    {
        TsPeer peer;
        expected = converse(peer);
    }
    std::string record = TsPeer::make_record_file();
    TsServer server({"--record=" + record, "--sse-open-delay-ms=300"});
    TsPeer peer(TsPeer::remote, remote(server.http_url), record);
    CHECK(converse(peer) == expected);
}

TEST_CASE("remote: a refused connection fails initialize saying where it went") {
    int port = 0;
    {
        TsServer server;  // a port that was just free again
        port = server.port();
    }
    for (const char* scheme : {"ws", "http"}) {
        CAPTURE(scheme);
        std::string url = std::string(scheme) + "://127.0.0.1:" + std::to_string(port) + "/acp";
        TsPeer peer(TsPeer::remote, remote(url), TsPeer::make_record_file());
        peer.validate_on_exit = false;
        auto init = peer.initialize();
        REQUIRE_FALSE(init.ok());
        CHECK(init.status().code() == acp::Errc::connection_closed);
        CHECK(init.status().message().find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
        REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
    }
}

TEST_CASE("remote: an unsupported scheme or a header that would forge others is refused before connecting") {
    acp::test::TestLoop loop;
    auto ftp = acp::Client::connect(loop.get(), remote("ftp://127.0.0.1/acp"));
    REQUIRE_FALSE(ftp.ok());
    CHECK(ftp.status().code() == acp::Errc::unsupported);
    for (const char* url : {"ws://127.0.0.1:9/acp", "http://127.0.0.1:9/acp"}) {
        RemoteOptions options = remote(url);
        options.headers = {{"Authorization", "Bearer secret-token\r\nX-Evil: 1"}};
        auto forged = acp::Client::connect(loop.get(), options);
        REQUIRE_FALSE(forged.ok());
        CHECK(forged.status().code() == acp::Errc::invalid_argument);
        CHECK(forged.status().message().find("Authorization") != std::string::npos);
        CHECK(forged.status().message().find("secret-token") == std::string::npos);
    }
}

TEST_CASE("remote: a bearer token opens the door and its absence gives 401 and it is never logged") {
    const std::string token = "s3cr3t-token-value";
    std::string record = TsPeer::make_record_file();
    TsServer server({"--record=" + record, "--require-token=" + token});
    for (bool ws : {true, false}) {
        CAPTURE(ws);
        const std::string url = ws ? server.ws_url : server.http_url;
        {
            TsPeer refused(TsPeer::remote, remote(url), record);
            refused.validate_on_exit = false;
            auto init = refused.initialize();
            REQUIRE_FALSE(init.ok());
            CHECK(init.status().code() == acp::Errc::connection_closed);
            CHECK(init.status().message().find("401") != std::string::npos);
        }
        RemoteOptions options = remote(url);
        options.headers = {{"Authorization", "Bearer " + token}};
        TsPeer peer(TsPeer::remote, options, record);
        auto init = peer.initialize();
        REQUIRE_MESSAGE(init.ok(), init.status().to_string());
        const std::string session = peer.new_session();
        CHECK(peer.prompt_turn(session, "hello").ok());
        for (const auto& line : peer.log) CHECK(line.find(token) == std::string::npos);
        for (const auto& line : peer.sent) CHECK(line.find(token) == std::string::npos);
    }
}

TEST_CASE("remote: TLS with the test's own CA works and a certificate nobody vouched for is refused") {
    char dir[] = "/tmp/acp-tls-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const std::string certs = dir;
    const std::string make = std::string("sh ") + ACP_TS_AGENT_DIR + "/make-cert.sh " + certs + " >/dev/null 2>&1";
    REQUIRE(std::system(make.c_str()) == 0);
    std::string record = TsPeer::make_record_file();
    TsServer server(
        {"--record=" + record, "--tls-cert=" + certs + "/server.pem", "--tls-key=" + certs + "/server.key"});
    REQUIRE(server.ws_url.rfind("wss://", 0) == 0);
    REQUIRE(server.http_url.rfind("https://", 0) == 0);
    for (bool ws : {true, false}) {
        CAPTURE(ws);
        const std::string url = ws ? server.ws_url : server.http_url;
        for (const std::string& wrong_ca : {std::string(), certs + "/other-ca.pem"}) {
            CAPTURE(wrong_ca);
            RemoteOptions options = remote(url);
            options.ca_file = wrong_ca;  // the system's CAs, or one that did not sign it
            TsPeer refused(TsPeer::remote, options, record);
            refused.validate_on_exit = false;
            auto init = refused.initialize();
            REQUIRE_FALSE(init.ok());
            CHECK(init.status().code() == acp::Errc::connection_closed);
        }
        RemoteOptions options = remote(url);
        options.ca_file = certs + "/ca.pem";
        TsPeer peer(TsPeer::remote, options, record);
        auto init = peer.initialize();
        REQUIRE_MESSAGE(init.ok(), init.status().to_string());
        const std::string session = peer.new_session();
        CHECK(peer.prompt_turn(session, "hello").ok());
    }
    std::system(("rm -rf " + certs).c_str());
}

TEST_CASE("remote: an HTTP error fails only its request with {status body} as the error's data") {
    std::string record = TsPeer::make_record_file();
    TsServer server({"--record=" + record, "--fail-method=session/set_config_option:503"});
    TsPeer peer(TsPeer::remote, remote(server.http_url), record);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    v2::SetSessionConfigOptionRequest set;
    set.sessionId = session;
    set.configId = "model";
    set.type = select_value("model-b");
    auto failed =
        peer.wait<v2::SetSessionConfigOptionResponse>([&](auto done) { peer.client->set_config_option(set, done); });
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.status().code() == acp::Errc::rpc_error);
    CHECK(failed.status().rpc_code() == -32603);
    const std::string& data = failed.status().rpc_data_json();
    CHECK(data.find("\"status\":503") != std::string::npos);
    CHECK(data.find("\"error\":\"injected\"") != std::string::npos);
    // The connection and the session go on.
    CHECK(peer.prompt_turn(session, "hello").ok());
    CHECK_FALSE(peer.closed.has_value());
}

TEST_CASE("remote: HTTP 409 fails only that session's requests until it is resumed") {
    std::string record = TsPeer::make_record_file();
    TsServer server({"--record=" + record});
    TsPeer peer(TsPeer::remote, remote(server.http_url), record);
    REQUIRE(peer.initialize().ok());
    const std::string detached = peer.new_session();
    const std::string other = peer.new_session();
    REQUIRE(peer.prompt_turn(detached, "detach").ok());

    auto refused = peer.start_prompt(detached, "hello");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == acp::Errc::rpc_error);
    CHECK(refused.status().rpc_data_json().find("\"status\":409") != std::string::npos);
    CHECK(peer.prompt_turn(other, "hello").ok());  // another session is untouched
    CHECK_FALSE(peer.closed.has_value());

    v2::ResumeSessionRequest resume;
    resume.sessionId = detached;
    resume.cwd = "/tmp";
    auto resumed = peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(resume, done); });
    REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
    CHECK(peer.prompt_turn(detached, "hello").ok());
}

TEST_CASE("remote: a message over the size cap is refused and the connection goes on") {
    for (bool ws : {true, false}) {
        CAPTURE(ws);
        std::string record = TsPeer::make_record_file();
        TsServer server({"--record=" + record});
        acp::ClientOptions options;
        options.max_line_bytes = 64 * 1024;
        TsPeer peer(TsPeer::remote, remote(ws ? server.ws_url : server.http_url), record, options);
        REQUIRE(peer.initialize().ok());
        const std::string session = peer.new_session();
        REQUIRE(peer.prompt_turn(session, "big 200000").ok());
        CHECK(peer.logged("over the limit of 65536 bytes"));
        CHECK(peer.agent_text("m1").empty());  // the oversized chunk did not get in, cut or whole
        CHECK(peer.prompt_turn(session, "hello").ok());
        CHECK_FALSE(peer.closed.has_value());
    }
}

TEST_CASE("remote: a server killed mid-turn closes the client and a new connection resumes without duplicates") {
    char dir[] = "/tmp/acp-remote-state-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const std::string state = std::string("--state-dir=") + dir;
    for (bool ws : {true, false}) {
        CAPTURE(ws);
        std::string record = TsPeer::make_record_file();
        std::string session;
        std::string before;
        {
            TsServer server({"--record=" + record, state});
            TsPeer peer(TsPeer::remote, remote(ws ? server.ws_url : server.http_url), record);
            peer.validate_on_exit = false;  // the server's record ends mid-message when killed
            REQUIRE(peer.initialize().ok());
            session = peer.new_session();
            REQUIRE(peer.prompt_turn(session, "tool").ok());
            REQUIRE(peer.prompt_turn(session, "hello").ok());
            before = acp::to_json(*peer.client->sessions().find(session));
            REQUIRE(peer.start_prompt(session, "slow").ok());
            REQUIRE(peer.loop.run_until([&] { return peer.updates.size() > 3; }));
            server.stop(SIGKILL);
            REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
            CHECK(peer.closed->code() == acp::Errc::connection_closed);
        }
        // Transport dropped: connect again (a new server process on the same state) and
        // resume with replay.
        TsServer server({"--record=" + record, state});
        TsPeer peer(TsPeer::remote, remote(ws ? server.ws_url : server.http_url), record);
        REQUIRE(peer.initialize().ok());
        v2::ResumeSessionRequest resume;
        resume.sessionId = session;
        resume.cwd = "/tmp";
        resume.replayFrom = v2::ReplayFrom::make_start({});
        auto resumed =
            peer.wait<v2::ResumeSessionResponse>([&](auto done) { peer.client->resume_session(resume, done); });
        REQUIRE_MESSAGE(resumed.ok(), resumed.status().to_string());
        const acp::SessionState* rebuilt = peer.client->sessions().find(session);
        REQUIRE(rebuilt != nullptr);
        std::set<std::string> ids;
        for (const auto& item : rebuilt->items()) {
            const std::string dump = acp::to_json(item);
            CHECK_MESSAGE(ids.insert(dump).second, "duplicate item " << dump);
        }
        const std::string after = acp::to_json(*rebuilt);
        // What was complete before the crash is all there, once.
        CHECK(after.find("build: \u2713 ok") != std::string::npos);
        CHECK(after.find("build: \u2713 ok") == after.rfind("build: \u2713 ok"));
        // And the session goes on over the new connection.
        CHECK(peer.prompt_turn(session, "hello").ok());
    }
    std::system((std::string("rm -rf ") + dir).c_str());
}

TEST_CASE("remote: cookies the server sets (affinity) go with every later request") {
    // With --affinity-cookie the server refuses (400) every request of the connection that
    // does not carry the cookie its initialize answer set.
    std::string record = TsPeer::make_record_file();
    TsServer server({"--record=" + record, "--affinity-cookie"});
    TsPeer peer(TsPeer::remote, remote(server.http_url), record);
    REQUIRE(peer.initialize().ok());
    const std::string session = peer.new_session();
    CHECK(peer.prompt_turn(session, "tool").ok());
    CHECK_FALSE(peer.closed.has_value());
}

TEST_CASE("remote: a server that accepts but never answers times out") {
    // A listening socket nobody accepts from: the kernel completes the TCP handshake, and
    // then nothing. WebSocket: connect_timeout covers the upgrade. HTTP: the initialize
    // POST waits for its answer, which ClientOptions::initialize_timeout bounds.
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listener >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(listen(listener, 8) == 0);
    socklen_t length = sizeof address;
    REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    const std::string port = std::to_string(ntohs(address.sin_port));
    for (const char* scheme : {"ws", "http"}) {
        CAPTURE(scheme);
        RemoteOptions options = remote(std::string(scheme) + "://127.0.0.1:" + port + "/acp");
        options.connect_timeout = std::chrono::milliseconds(500);
        acp::ClientOptions client_options;
        client_options.initialize_timeout = std::chrono::milliseconds(1000);
        TsPeer peer(TsPeer::remote, options, TsPeer::make_record_file(), client_options);
        peer.validate_on_exit = false;
        auto init = peer.initialize();
        REQUIRE_FALSE(init.ok());
        if (std::string(scheme) == "ws") {
            CHECK(init.status().message().find("timed out after 500 ms") != std::string::npos);
            // The transport gave up: initialize fails because the connection closed, and
            // the close says why.
            REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
            CHECK(peer.closed->code() == acp::Errc::timed_out);
        } else {
            CHECK(init.status().code() == acp::Errc::timed_out);
        }
    }
    close(listener);
}
