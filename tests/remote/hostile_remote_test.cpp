// SPDX-License-Identifier: Apache-2.0
// The Client against hostile remote servers (tests/peers/hostile_remote/server.py, one
// misbehaviour per --mode). The agent is untrusted: whatever a server sends over
// WebSocket or Streamable HTTP, the client does not crash or hang, its memory stays
// bounded, nothing reaches the log raw or with the host's bearer token, and it either
// keeps working or closes with a clear status that names the URL.
#include <dirent.h>
#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "support/server_process.hpp"
#include "support/ts_peer.hpp"

using acp::RemoteOptions;
using acp::test::TsPeer;

#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer holds freed memory back (256 MiB by default), which peak RSS would count
// as the client's: a small quarantine keeps the memory bounds meaningful in that build.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
    return "quarantine_size_mb=16";
}
#endif

namespace {

constexpr const char* kToken = "hostile-test-t0ken-4f9a2c";
constexpr long kMiB = 1024 * 1024;

// Peak resident memory may grow this much while hundreds of MiB of hostile data stream in.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kMaxGrowthMiB = 128;  // AddressSanitizer's redzones, shadow and quarantine on top
#else
constexpr long kMaxGrowthMiB = 64;
#endif

// server.py in one mode; it ends with the test (tests/support/server_process.hpp).
class HostileServer {
public:
    explicit HostileServer(const std::string& mode, std::vector<std::string> flags = {})
        : record_path(make_record_path()), process_(command(mode, record_path, std::move(flags))) {
        INFO("server.py said: " << process_.first_line());
        http_url = process_.url("http");
        ws_url = process_.url("ws");
        other_url = process_.url("other");
        REQUIRE(!http_url.empty());
        REQUIRE(!ws_url.empty());
    }
    ~HostileServer() {
        process_.stop(SIGTERM);
        std::remove(record_path.c_str());
    }
    HostileServer(const HostileServer&) = delete;
    HostileServer& operator=(const HostileServer&) = delete;

    // Every request head the server (or its "other host") received, one JSON line each.
    std::string requests() const {
        std::ifstream in(record_path);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }

    std::string record_path;
    std::string http_url;
    std::string ws_url;
    std::string other_url;

private:
    static std::string make_record_path() {
        char path[] = "/tmp/acp-hostile-record-XXXXXX";
        int fd = mkstemp(path);
        REQUIRE(fd >= 0);
        ::close(fd);
        return path;
    }
    static std::vector<std::string> command(const std::string& mode, const std::string& record,
                                            std::vector<std::string> flags) {
        std::vector<std::string> args = {ACP_PYTHON, ACP_HOSTILE_REMOTE_SERVER, "--mode=" + mode, "--record=" + record};
        for (auto& flag : flags) args.push_back(std::move(flag));
        return args;
    }

    acp::test::ServerProcess process_;
};

RemoteOptions with_token(const std::string& url) {
    RemoteOptions options;
    options.url = url;
    options.connect_timeout = std::chrono::seconds(5);
    options.headers = {{"Authorization", std::string("Bearer ") + kToken}};
    return options;
}

// A client with a 1 MiB message cap (the hostile floods are far over it).
struct Peer : TsPeer {
    explicit Peer(const std::string& url, acp::ClientOptions options = small_cap())
        : TsPeer(TsPeer::remote, with_token(url), TsPeer::make_record_file(), std::move(options)) {
        validate_on_exit = false;  // no recorder on this server
        client->set_traffic_observer([this](acp::Direction d, std::string_view line, auto) {
            (d == acp::Direction::outgoing ? sent : received_lines).emplace_back(line);
        });
    }
    // TsPeer's destructor still runs the loop, and a client that was not closed may read
    // on (a flooding server): not into received_lines, gone by then.
    ~Peer() {
        if (client) client->set_traffic_observer(nullptr);
    }
    static acp::ClientOptions small_cap() {
        acp::ClientOptions options;
        options.max_line_bytes = 1 * kMiB;
        options.initialize_timeout = std::chrono::seconds(8);
        return options;
    }
    // new_session without REQUIRE: a hostile server may make it fail.
    acp::Result<acp::v2::NewSessionResponse> try_new_session() {
        acp::v2::NewSessionRequest request;
        request.cwd = "/tmp";
        return wait<acp::v2::NewSessionResponse>([&](auto done) { client->new_session(request, done); });
    }
    bool received(const std::string& fragment) const {
        for (const auto& line : received_lines) {
            if (line.find(fragment) != std::string::npos) return true;
        }
        return false;
    }
    std::vector<std::string> received_lines;
};

// Text the host may print without a filter: printable ASCII, tab, or UTF-8 above it; no
// escape sequences, no NUL, no broken UTF-8.
bool printable(const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto c = static_cast<unsigned char>(text[i]);
        if (c == '\t' || (c >= 0x20 && c < 0x7f)) continue;
        if (c < 0xc2 || c > 0xf4) return false;
        std::size_t length = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
        if (i + length > text.size()) return false;
        for (std::size_t k = 1; k < length; ++k) {
            if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
        }
        i += length - 1;
    }
    return true;
}

// For a failure message: the bytes that are not printable ASCII as \xNN.
std::string escaped(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (c >= 0x20 && c < 0x7f) {
            out.push_back(static_cast<char>(c));
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    return out;
}

// Nothing the client logged or reported holds the host's token or raw control bytes.
void check_clean(const Peer& peer, const std::vector<std::string>& statuses = {}) {
    for (const auto& line : peer.log) {
        CHECK_MESSAGE(line.find(kToken) == std::string::npos, "the token was logged: " << line);
        CHECK_MESSAGE(printable(line), "unprintable bytes were logged: " << escaped(line));
    }
    std::vector<std::string> all = statuses;
    if (peer.closed) all.push_back(peer.closed->message());
    for (const auto& message : all) {
        CHECK_MESSAGE(message.find(kToken) == std::string::npos, "the token is in a status: " << message);
        CHECK_MESSAGE(printable(message), "unprintable bytes in a status: " << escaped(message));
    }
}

// The process's peak resident memory from now on (Linux: writing 5 to clear_refs resets
// VmHWM to the current RSS), in KiB above what it was.
class PeakMemory {
public:
    PeakMemory() {
        std::ofstream("/proc/self/clear_refs") << "5";
        base_ = read("VmRSS:");
        REQUIRE(base_ > 0);
        REQUIRE(read("VmHWM:") - base_ < 4 * 1024);  // the reset worked, so the check can fail
    }
    long grown_mib() const { return (read("VmHWM:") - base_) / 1024; }

private:
    static long read(const std::string& key) {
        std::ifstream status("/proc/self/status");
        std::string line;
        while (std::getline(status, line)) {
            if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
        }
        return -1;
    }
    long base_ = 0;
};

std::size_t open_descriptors() {
    std::size_t count = 0;
    if (DIR* dir = opendir("/proc/self/fd")) {
        while (readdir(dir) != nullptr) ++count;
        closedir(dir);
    }
    return count;
}

std::size_t count_requests(const std::string& record, const std::string& fragment) {
    std::size_t count = 0;
    for (std::size_t at = record.find(fragment); at != std::string::npos; at = record.find(fragment, at + 1)) ++count;
    return count;
}

// After the hostile part, a request still gets its answer.
void check_still_works(Peer& peer) {
    auto again = peer.try_new_session();
    CHECK_MESSAGE(again.ok(), again.status().to_string());
    CHECK_FALSE(peer.closed.has_value());
}

}  // namespace

// --- Streamable HTTP ---------------------------------------------------------------------

TEST_CASE("hostile remote: an endless SSE data line of 200 MiB keeps memory bounded and is refused") {
    HostileServer server("sse-endless-data", {"--bytes=" + std::to_string(200 * kMiB)});
    PeakMemory memory;
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    check_still_works(peer);  // its answer comes after the 200 MiB on the same stream
    CHECK(peer.logged("over the limit of 1048576 bytes"));
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    MESSAGE("peak RSS growth with a 200 MiB SSE line: " << memory.grown_mib() << " MiB");
    check_clean(peer);
}

TEST_CASE("hostile remote: an endless SSE comment or field name keeps memory bounded") {
    for (const char* mode : {"sse-endless-comment", "sse-endless-field"}) {
        CAPTURE(mode);
        HostileServer server(mode, {"--bytes=" + std::to_string(100 * kMiB)});
        PeakMemory memory;
        Peer peer(server.http_url);
        REQUIRE(peer.initialize().ok());
        check_still_works(peer);
        CHECK(memory.grown_mib() < kMaxGrowthMiB);
        check_clean(peer);
    }
}

TEST_CASE("hostile remote: SSE events with invalid UTF-8 and NUL and escapes are refused and logged printable") {
    HostileServer server("sse-bad-utf8");
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    check_still_works(peer);
    CHECK(peer.agent_text("m1").empty());  // none of the broken chunks got into a session
    CHECK(peer.logged("malformed message from the agent"));
    check_clean(peer);
}

TEST_CASE("hostile remote: a session id with CR LF never reaches a header") {
    HostileServer server("session-id-crlf");
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    auto created = peer.try_new_session();
    std::vector<std::string> statuses = {created.status().message()};
    if (created.ok()) {
        // The client took the id: a prompt on it fails instead of forging a header.
        auto prompt = peer.start_prompt(created->sessionId, "hello");
        REQUIRE_FALSE(prompt.ok());
        CHECK(prompt.status().message().find("HTTP header") != std::string::npos);
        statuses.push_back(prompt.status().message());
    }
    CHECK(server.requests().find("X-Evil") == std::string::npos);
    CHECK(server.requests().find("x-evil") == std::string::npos);
    check_clean(peer, statuses);
}

TEST_CASE("hostile remote: answers naming sessions nobody created open no event streams") {
    // Only the answer to session/new or session/fork opens the named session's stream;
    // otherwise each answer could make the client open one more connection, without end.
    HostileServer server("session-id-every-answer");
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    const std::size_t sockets_before = open_descriptors();
    int answered = 0;
    for (int i = 0; i < 200; ++i) {
        peer.client->ext_request("_hostile/ping", acp::RawJson{"{}"}, [&answered](auto) { ++answered; });
    }
    REQUIRE(peer.loop.run_until([&] { return answered == 200; }));
    peer.loop.run_for(std::chrono::milliseconds(200));
    const std::size_t streams = count_requests(server.requests(), "\"GET\"");
    MESSAGE("event streams opened: " << streams << ", descriptors: " << sockets_before << " -> " << open_descriptors());
    CHECK(streams <= 2);  // the connection's, and at most one more
    CHECK(open_descriptors() < sockets_before + 10);
    check_still_works(peer);
    check_clean(peer);
}

TEST_CASE("hostile remote: a flood of cookies keeps memory bounded") {
    HostileServer server("cookie-flood");
    PeakMemory memory;
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    int answered = 0;
    for (int i = 0; i < 300; ++i) {  // 300 answers of 50 cookies of 4000 bytes: 60 MB offered
        peer.client->ext_request("_hostile/ping", acp::RawJson{"{}"}, [&answered](auto) { ++answered; });
    }
    REQUIRE(peer.loop.run_until([&] { return answered == 300; }));
    MESSAGE("peak RSS growth with 60 MB of cookies offered: " << memory.grown_mib() << " MiB");
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    CHECK(peer.logged("set more cookies than are kept"));
    check_still_works(peer);
    check_clean(peer);
}

TEST_CASE("hostile remote: an Acp-Connection-Id with a bare CR or of 64 KiB is refused at initialize") {
    for (const char* mode : {"conn-id-ctl", "conn-id-huge"}) {
        CAPTURE(mode);
        HostileServer server(mode, {"--bytes=65536"});
        Peer peer(server.http_url);
        auto init = peer.initialize();
        REQUIRE_FALSE(init.ok());
        CHECK(init.status().message().find(server.http_url.substr(0, server.http_url.rfind('/'))) != std::string::npos);
        CHECK(init.status().message().find("Acp-Connection-Id") != std::string::npos);
        REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
        CHECK(server.requests().find("X-Evil") == std::string::npos);
        // Nothing after initialize was sent with the forged id.
        CHECK(server.requests().find("cccccccccccccccc") == std::string::npos);
        check_clean(peer, {init.status().message()});
    }
}

TEST_CASE("hostile remote: thousands of response headers are read and forgotten") {
    HostileServer server("many-headers", {"--count=5000"});
    Peer peer(server.http_url);
    auto init = peer.initialize();
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    check_still_works(peer);
    check_clean(peer);
}

TEST_CASE("hostile remote: 100 MB of response headers keep memory bounded") {
    HostileServer server("many-headers", {"--count=2000000"});
    PeakMemory memory;
    Peer peer(server.http_url);
    auto init = peer.initialize();
    MESSAGE("initialize after 2000000 headers: " << (init.ok() ? std::string("ok") : init.status().message()));
    MESSAGE("peak RSS growth with 100 MB of headers: " << memory.grown_mib() << " MiB");
    // libcurl (Debian's 7.88 too) refuses more than 300 KiB of headers; either way it is clear.
    CHECK((init.ok() || init.status().message().find("127.0.0.1") != std::string::npos));
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    check_clean(peer, {init.status().message()});
}

TEST_CASE("hostile remote: a 10 MB error body is cut to 8 KiB in the error data and the connection goes on") {
    HostileServer server("error-body-huge", {"--bytes=" + std::to_string(10 * kMiB)});
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    auto failed = peer.try_new_session();
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.status().rpc_code() == -32603);
    const std::string& data = failed.status().rpc_data_json();
    CHECK(data.find("\"status\":500") != std::string::npos);
    // 8 KiB of bytes that are not UTF-8, each now U+FFFD (3 bytes), and the JSON around them.
    CHECK(data.size() < 3 * 8192 + 256);
    CHECK(data.size() > 3 * 8192 - 256);
    check_still_works(peer);
    check_clean(peer, {failed.status().message()});
}

TEST_CASE("hostile remote: a 10 MB error body on initialize gives a short status naming the URL") {
    HostileServer server("init-error-body-huge", {"--bytes=" + std::to_string(10 * kMiB)});
    Peer peer(server.http_url);
    auto init = peer.initialize();
    REQUIRE_FALSE(init.ok());
    CHECK(init.status().message().find("HTTP 500") != std::string::npos);
    CHECK(init.status().message().find("127.0.0.1") != std::string::npos);
    CHECK(init.status().message().size() < 1024);
    check_clean(peer, {init.status().message()});
}

TEST_CASE("hostile remote: an initialize answer that never ends fails at the size cap") {
    HostileServer server("init-endless-body");
    Peer peer(server.http_url);
    const auto start = std::chrono::steady_clock::now();
    auto init = peer.initialize();
    REQUIRE_FALSE(init.ok());
    CHECK(init.status().message().find("over the limit of 1048576 bytes") != std::string::npos);
    CHECK(init.status().message().find("127.0.0.1") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));  // not initialize_timeout
    check_clean(peer, {init.status().message()});
}

TEST_CASE("hostile remote: POST answers whose bodies never end do not hold up later messages") {
    HostileServer server("post-endless-body");
    PeakMemory memory;
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    check_still_works(peer);
    check_still_works(peer);
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    check_clean(peer);
}

TEST_CASE("hostile remote: an event stream refused with a body that never ends closes the client") {
    HostileServer server("stream-refused-endless");
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }, std::chrono::seconds(8)));
    CHECK(peer.closed->message().find("refused the event stream: HTTP 500") != std::string::npos);
    CHECK(peer.closed->message().size() < 1024);
    check_clean(peer);
}

TEST_CASE("hostile remote: redirects to file or to another host are not followed") {
    for (const char* mode : {"redirect-file", "redirect-host"}) {
        CAPTURE(mode);
        HostileServer server(mode);
        Peer peer(server.http_url);
        auto init = peer.initialize();
        REQUIRE_FALSE(init.ok());
        CHECK(init.status().message().find("HTTP 30") != std::string::npos);
        CHECK(init.status().message().find("root:") == std::string::npos);
        CHECK(server.requests().find("\"listener\": \"other\"") == std::string::npos);
        CHECK(server.requests().find("\"listener\": \"main\"") != std::string::npos);
        check_clean(peer, {init.status().message()});
    }
}

TEST_CASE("hostile remote: a gzip bomb on the event stream is not decompressed") {
    HostileServer server("gzip-bomb");
    PeakMemory memory;
    Peer peer(server.http_url);
    REQUIRE(peer.initialize().ok());
    check_still_works(peer);  // its answer follows the bomb on the same (plain) stream
    for (const auto& line : peer.received_lines) CHECK(line.find("x/decompressed") == std::string::npos);
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    check_clean(peer);
}

TEST_CASE("hostile remote: a server echoing the request headers never gets the token into logs or statuses") {
    for (bool ws : {false, true}) {
        CAPTURE(ws);
        HostileServer server("echo-headers");
        Peer peer(ws ? server.ws_url : server.http_url);
        REQUIRE(peer.initialize().ok());
        std::vector<std::string> statuses;
        if (!ws) {
            // 500 with the headers as its body: the error's data has them, the token redacted.
            auto failed = peer.try_new_session();
            REQUIRE_FALSE(failed.ok());
            CHECK(failed.status().rpc_data_json().find("Authorization: [redacted]") != std::string::npos);
            CHECK(failed.status().rpc_data_json().find(kToken) == std::string::npos);
            statuses.push_back(failed.status().message());
            // 401 with the same body: the transport closes, its status quoting the body.
            statuses.push_back(peer.try_new_session().status().message());
            CHECK(statuses.back().find("401") != std::string::npos);
        }
        REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
        CHECK(server.requests().find(kToken) != std::string::npos);  // it did get the token
        check_clean(peer, statuses);
    }
}

// --- WebSocket ---------------------------------------------------------------------------

TEST_CASE("hostile remote: a WebSocket message in 1-byte frames arrives whole") {
    HostileServer server("ws-fragmented");
    Peer peer(server.ws_url);
    auto init = peer.initialize();
    REQUIRE_MESSAGE(init.ok(), init.status().to_string());
    check_still_works(peer);
    check_clean(peer);
}

TEST_CASE("hostile remote: a 200 MiB WebSocket message keeps memory bounded and is refused") {
    HostileServer server("ws-huge", {"--bytes=" + std::to_string(200 * kMiB)});
    PeakMemory memory;
    Peer peer(server.ws_url);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.received("x/flood_done"); }));
    CHECK(peer.logged("over the limit of 1048576 bytes"));
    check_still_works(peer);
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    MESSAGE("peak RSS growth with a 200 MiB WebSocket message: " << memory.grown_mib() << " MiB");
    check_clean(peer);
}

TEST_CASE("hostile remote: binary WebSocket frames are refused or read as text and the connection goes on") {
    HostileServer server("ws-binary");
    Peer peer(server.ws_url);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.logged("malformed message from the agent"); }));
    check_still_works(peer);
    check_clean(peer);
}

TEST_CASE("hostile remote: a frame with a reserved opcode closes the WebSocket with a clear status") {
    HostileServer server("ws-reserved-opcode");
    Peer peer(server.ws_url);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
    CHECK(peer.closed->code() == acp::Errc::connection_closed);
    CHECK(peer.closed->message().find("127.0.0.1") != std::string::npos);
    check_clean(peer);
}

TEST_CASE("hostile remote: a close reason with escape sequences does not reach the status") {
    HostileServer server("ws-close-escape");
    Peer peer(server.ws_url);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
    CHECK(peer.closed->code() == acp::Errc::connection_closed);
    CHECK(peer.closed->message().find("4000") != std::string::npos);
    CHECK(peer.closed->message().find("127.0.0.1") != std::string::npos);
    check_clean(peer);
}

TEST_CASE("hostile remote: a flood of 200000 pings keeps memory bounded and the connection working") {
    HostileServer server("ws-ping-flood", {"--count=200000"});
    PeakMemory memory;
    Peer peer(server.ws_url);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.received("x/flood_done"); }));
    check_still_works(peer);
    CHECK(memory.grown_mib() < kMaxGrowthMiB);
    check_clean(peer);
}

TEST_CASE("hostile remote: close finishes in bounded time when the server never answers the close frame") {
    HostileServer server("ws-no-close-ack");
    Peer peer(server.ws_url);
    REQUIRE(peer.initialize().ok());
    const auto start = std::chrono::steady_clock::now();
    peer.client->close();
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }, std::chrono::seconds(15)));
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    MESSAGE("close() without a close answer took " << took.count() << " ms");
    CHECK(took.count() < 6000);
    // And the socket is really gone (the server saw it end), not left to linger.
    REQUIRE(peer.loop.run_until([&] { return server.requests().find("\"eof\"") != std::string::npos; },
                                std::chrono::seconds(8)));
    check_clean(peer);
}

TEST_CASE("hostile remote: close finishes in bounded time when the server stops reading") {
    HostileServer server("ws-no-read");
    Peer peer(server.ws_url, acp::ClientOptions{});
    REQUIRE(peer.initialize().ok());
    // 64 requests of 1 MiB each: far more than the socket buffers take.
    const std::string big_cwd = "/" + std::string(1 * kMiB, 'a');
    for (int i = 0; i < 64; ++i) {
        acp::v2::NewSessionRequest request;
        request.cwd = big_cwd;
        peer.client->new_session(request, [](auto) {});
    }
    peer.loop.run_for(std::chrono::milliseconds(300));
    REQUIRE(peer.client->queued_output_bytes() > 0);  // the writes did back up
    const auto start = std::chrono::steady_clock::now();
    peer.client->close();
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }, std::chrono::seconds(15)));
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    MESSAGE("close() against a server that stopped reading took " << took.count() << " ms");
    CHECK(took.count() < 6000);
    CHECK(peer.logged("were dropped: it did not read them"));  // not lost silently
    check_clean(peer);
}

TEST_CASE("hostile remote: a server that floods requests and never reads is paused, then given up on") {
    HostileServer server("ws-flood-requests");
    acp::ClientOptions options = Peer::small_cap();
    options.max_queued_output_bytes = 256 * 1024;
    options.resume_reading_below_bytes = 64 * 1024;
    options.queued_output_timeout = std::chrono::milliseconds(300);
    Peer peer(server.ws_url, options);
    REQUIRE(peer.initialize().ok());
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }, std::chrono::seconds(20)));
    // Reading paused on the answers it left unread (as for a process), and the end says why.
    CHECK(peer.logged("reading from the agent is paused"));
    CHECK(peer.closed->message().find("the agent did not read its input") != std::string::npos);
    CHECK(peer.closed->message().find("ClientOptions::queued_output_timeout") != std::string::npos);
    check_clean(peer);
}

TEST_CASE("hostile remote: an upgrade answered with 200 fails initialize naming the URL") {
    HostileServer server("ws-upgrade-200");
    Peer peer(server.ws_url);
    auto init = peer.initialize();
    REQUIRE_FALSE(init.ok());
    CHECK(init.status().code() == acp::Errc::connection_closed);
    CHECK(init.status().message().find("127.0.0.1") != std::string::npos);
    REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
    check_clean(peer, {init.status().message()});
}
