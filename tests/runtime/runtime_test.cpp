// SPDX-License-Identifier: Apache-2.0
// acp::Runtime, the hosting modes a C++ host gets (include/acp/runtime.hpp), each driving a
// real agent: the peer on the official TypeScript SDK.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acp/client.hpp"
#include "acp/runtime.hpp"
#include "runtime/pending_watchers.hpp"

namespace acp {

namespace {

using Clock = std::chrono::steady_clock;

SpawnOptions peer() {
    SpawnOptions agent;
    agent.argv = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/agent.mjs"};
    agent.shutdown_grace = std::chrono::milliseconds(3000);
    return agent;
}

// The text of a session's agent messages, from the model.
std::string agent_text(const Client& client, const std::string& session_id) {
    std::string text;
    const SessionState* session = client.sessions().find(session_id);
    if (session == nullptr) return text;
    for (const auto& item : session->items()) {
        if (item.kind() != ItemKind::agent_message) continue;
        for (const auto& block : item.message()->content) {
            if (block.text() != nullptr) text += block.text()->text;
        }
    }
    return text;
}

// A host event loop of its own (think Qt or GLib): it only waits on the runtime's
// descriptor for at most its timeout, then lets it run. Returns false when done() did not
// come within the guard (a hang fails the test instead of stalling it).
bool host_loop_until(Runtime& runtime, const std::function<bool()>& done) {
    const auto guard = Clock::now() + std::chrono::seconds(30);
    while (!done()) {
        if (Clock::now() > guard) return false;
        Result<int> fd = runtime.fd();
        Result<int> timeout = runtime.timeout_ms();
        REQUIRE(fd.ok());
        REQUIRE(timeout.ok());
        pollfd p{*fd, POLLIN, 0};
        // -1 means "until the descriptor is readable": a wrong -1 hangs until the guard.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(guard - Clock::now()).count();
        const int wait = *timeout < 0 || *timeout > left ? static_cast<int>(left) : *timeout;
        (void)::poll(&p, 1, wait < 0 ? 0 : wait);
        REQUIRE(runtime.run_nowait().ok());
    }
    return true;
}

// One whole conversation driven from the host's loop: initialize, a session, a prompt
// whose reply streams in chunks, then an orderly close.
void converse_through_the_descriptor(Runtime& runtime) {
    // The peer says "ready" on stderr before anyone writes to it: the host waits for that
    // with nothing else to do, so the streams the spawn started must be watched already.
    bool ready = false;
    ClientOptions options;
    options.log = [&](const LogRecord& r) {
        if (r.source == log_source::agent_stderr && r.message.find("ready") != std::string_view::npos) ready = true;
    };
    auto created = Client::spawn(runtime.loop(), peer(), options);
    REQUIRE(created.ok());
    std::unique_ptr<Client> client = std::move(created.value());
    bool closed = false;
    client->on_closed([&](const Status&) { closed = true; });
    REQUIRE(host_loop_until(runtime, [&] { return ready; }));

    std::optional<Result<v2::InitializeResponse>> initialized;
    client->initialize([&](Result<v2::InitializeResponse> r) { initialized.emplace(std::move(r)); });
    REQUIRE(host_loop_until(runtime, [&] { return initialized.has_value(); }));
    REQUIRE(initialized->ok());

    std::optional<Result<v2::NewSessionResponse>> session;
    v2::NewSessionRequest request;
    request.cwd = "/tmp";
    client->new_session(request, [&](Result<v2::NewSessionResponse> r) { session.emplace(std::move(r)); });
    REQUIRE(host_loop_until(runtime, [&] { return session.has_value(); }));
    REQUIRE(session->ok());
    const std::string id = (*session)->sessionId;

    bool turn_ended = false;
    auto subscription = client->sessions().subscribe([&](const SessionEvent& e) {
        if (e.type == SessionEvent::Type::turn_ended) turn_ended = true;
    });
    v2::PromptRequest prompt;
    prompt.sessionId = id;
    v2::TextContent text;
    text.text = "hello";
    prompt.prompt.push_back(v2::ContentBlock::make_text(text));
    client->prompt(prompt, [](Result<v2::PromptResponse>) {});
    REQUIRE(host_loop_until(runtime, [&] { return turn_ended; }));
    CHECK(agent_text(*client, id) == "Hello, world!");

    client->close();
    REQUIRE(host_loop_until(runtime, [&] { return closed; }));
    runtime.shutdown([&] { client.reset(); });
}

}  // namespace

// A read started inside an I/O callback (here: reading stream B once stream A had data)
// is only queued by libuv; waiting on the backend descriptor before it is registered
// would wait for ever although B's data is there.
void watcher_started_in_a_callback_is_watched(Runtime& runtime) {
    int a[2];
    int b[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0);
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, b) == 0);
    struct Streams {
        uv_pipe_t a, b;
        bool b_read = false;
    } streams;
    uv_pipe_init(runtime.loop(), &streams.a, 0);
    uv_pipe_init(runtime.loop(), &streams.b, 0);
    uv_pipe_open(&streams.a, a[0]);
    uv_pipe_open(&streams.b, b[0]);
    streams.a.data = &streams;
    streams.b.data = &streams;
    auto alloc = [](uv_handle_t*, std::size_t, uv_buf_t* buf) {
        static char storage[64];
        *buf = uv_buf_init(storage, sizeof storage);
    };
    uv_read_start(reinterpret_cast<uv_stream_t*>(&streams.a), alloc, [](uv_stream_t* s, ssize_t n, const uv_buf_t*) {
        if (n <= 0) return;
        auto* st = static_cast<Streams*>(s->data);
        uv_read_stop(s);
        uv_read_start(
            reinterpret_cast<uv_stream_t*>(&st->b),
            [](uv_handle_t*, std::size_t, uv_buf_t* buf) {
                static char storage[64];
                *buf = uv_buf_init(storage, sizeof storage);
            },
            [](uv_stream_t* b_stream, ssize_t read, const uv_buf_t*) {
                if (read > 0) static_cast<Streams*>(b_stream->data)->b_read = true;
            });
    });
    REQUIRE(::write(b[1], "b", 1) == 1);  // B's data is there before anyone reads B
    REQUIRE(host_loop_until(runtime, [] { return true; }));
    REQUIRE(::write(a[1], "a", 1) == 1);
    CHECK(host_loop_until(runtime, [&] { return streams.b_read; }));
    uv_close(reinterpret_cast<uv_handle_t*>(&streams.a), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&streams.b), nullptr);
    REQUIRE(runtime.run_nowait().ok());
    ::close(a[1]);
    ::close(b[1]);
}

// Each way the runtime can learn about such watchers: the libuv it runs on picks one
// (automatic); the others are what older or unknown libuv versions get.
TEST_CASE("a polled runtime watches what a callback started before the host waits") {
    for (auto probe : {detail::WatcherProbe::automatic, detail::WatcherProbe::public_timeout,
                       detail::WatcherProbe::private_queue, detail::WatcherProbe::blind}) {
        CAPTURE(static_cast<int>(probe));
        detail::set_watcher_probe(probe);
        auto runtime = Runtime::create(HostingMode::polled);
        REQUIRE(runtime.ok());
        watcher_started_in_a_callback_is_watched(**runtime);
    }
    detail::set_watcher_probe(detail::WatcherProbe::automatic);
}

TEST_CASE("a C++ host drives a polled runtime through its descriptor and timeout") {
    auto runtime = Runtime::create(HostingMode::polled);
    REQUIRE(runtime.ok());
    CHECK((*runtime)->mode() == HostingMode::polled);
    CHECK((*runtime)->on_loop_thread());
    converse_through_the_descriptor(**runtime);
}

TEST_CASE("a polled runtime that cannot see libuv's unregistered watchers still never stalls") {
    // The public-API fallback for a libuv whose private layout is unknown: no wait longer
    // than a short cap, so a watcher started by a callback is registered soon, not never.
    detail::set_watcher_probe(detail::WatcherProbe::blind);
    auto runtime = Runtime::create(HostingMode::polled);
    REQUIRE(runtime.ok());
    converse_through_the_descriptor(**runtime);
    detail::set_watcher_probe(detail::WatcherProbe::automatic);
}

TEST_CASE("hosting calls made in the wrong mode or on the wrong thread are refused") {
    auto threaded = Runtime::create(HostingMode::own_thread);
    REQUIRE(threaded.ok());
    CHECK((*threaded)->fd().status().code() == Errc::invalid_argument);
    CHECK((*threaded)->run_nowait().status().code() == Errc::invalid_argument);
    CHECK_FALSE((*threaded)->on_loop_thread());
    CHECK((*threaded)->run_until([] { return true; }).ok());  // from a host thread: fine
    auto polled = Runtime::create(HostingMode::polled);
    REQUIRE(polled.ok());
    std::thread other([&] { CHECK((*polled)->run_nowait().status().code() == Errc::invalid_argument); });
    other.join();
    CHECK(Runtime::create(HostingMode::host_loop).status().code() == Errc::invalid_argument);
}

TEST_CASE("a host on its own thread calls into an own-thread runtime from other threads") {
    auto created = Runtime::create(HostingMode::own_thread);
    REQUIRE(created.ok());
    Runtime& runtime = **created;
    std::unique_ptr<Client> client;
    std::thread::id loop_thread;
    REQUIRE(runtime
                .call([&] {
                    loop_thread = std::this_thread::get_id();
                    auto spawned = Client::spawn(runtime.loop(), peer());
                    REQUIRE(spawned.ok());
                    client = std::move(spawned.value());
                })
                .ok());
    CHECK((loop_thread != std::this_thread::get_id()));

    // Loop-thread state, only touched there: callbacks and dispatched functions alike.
    std::vector<std::string> sessions;
    bool initialized = false;
    bool callbacks_on_loop_thread = true;
    REQUIRE(runtime
                .dispatch([&] {
                    client->initialize([&](Result<v2::InitializeResponse> r) {
                        callbacks_on_loop_thread =
                            callbacks_on_loop_thread && runtime.on_loop_thread() && runtime.inside_loop();
                        initialized = r.ok();
                    });
                })
                .ok());
    REQUIRE(runtime.run_until([&] { return initialized; }).ok());

    // Several host threads at once, each through the one entry; what they dispatch runs
    // on the loop thread, never on theirs.
    std::atomic<bool> dispatched_on_loop_thread{true};
    std::vector<std::thread> hosts;
    for (int i = 0; i < 3; ++i) {
        hosts.emplace_back([&] {
            CHECK(runtime
                      .dispatch([&] {
                          if (std::this_thread::get_id() != loop_thread) dispatched_on_loop_thread = false;
                          v2::NewSessionRequest request;
                          request.cwd = "/tmp";
                          client->new_session(request, [&](Result<v2::NewSessionResponse> r) {
                              callbacks_on_loop_thread = callbacks_on_loop_thread && runtime.on_loop_thread();
                              if (r) sessions.push_back(r->sessionId);
                          });
                      })
                      .ok());
        });
    }
    for (auto& host : hosts) host.join();
    REQUIRE(runtime.run_until([&] { return sessions.size() == 3; }).ok());
    CHECK(callbacks_on_loop_thread);
    CHECK(dispatched_on_loop_thread);

    // call() hands back what was computed on the loop thread.
    int version = 0;
    REQUIRE(runtime.call([&] { version = client->negotiated_version(); }).ok());
    CHECK(version == 2);

    // run_until from the loop thread itself would wait for ever: refused.
    Status from_inside;
    REQUIRE(runtime.call([&] { from_inside = runtime.run_until([] { return true; }); }).ok());
    CHECK(from_inside.code() == Errc::invalid_argument);

    bool closed = false;
    REQUIRE(runtime
                .dispatch([&] {
                    client->on_closed([&](const Status&) { closed = true; });
                    client->close();
                })
                .ok());
    REQUIRE(runtime.run_until([&] { return closed; }).ok());
    std::thread::id teardown_thread;
    runtime.shutdown([&] {
        teardown_thread = std::this_thread::get_id();
        client.reset();
    });
    CHECK((teardown_thread == loop_thread));
    CHECK(runtime.dispatch([] {}).code() == Errc::connection_closed);
    CHECK(runtime.call([] {}).code() == Errc::connection_closed);
    runtime.shutdown();  // idempotent
}

TEST_CASE("a host loop runtime runs functions from other threads on the host's loop thread") {
    uv_loop_t loop;
    REQUIRE(uv_loop_init(&loop) == 0);
    {
        auto created = Runtime::create(HostingMode::host_loop, &loop);
        REQUIRE(created.ok());
        Runtime& runtime = **created;
        CHECK(runtime.loop() == &loop);
        std::atomic<bool> ran{false};
        std::thread::id ran_on;
        // The host keeps its loop alive with a timer of its own, as an editor would.
        uv_timer_t keep_alive;
        uv_timer_init(&loop, &keep_alive);
        uv_timer_start(
            &keep_alive, [](uv_timer_t*) {}, 50, 50);
        std::atomic<bool> dispatched_here{false};
        const std::thread::id host_thread = std::this_thread::get_id();
        std::thread other([&] {
            CHECK(runtime.dispatch([&] { dispatched_here = std::this_thread::get_id() == host_thread; }).ok());
            CHECK(runtime
                      .call([&] {
                          ran_on = std::this_thread::get_id();
                          ran = true;
                      })
                      .ok());
        });
        const auto guard = Clock::now() + std::chrono::seconds(30);
        while (!ran && Clock::now() < guard) uv_run(&loop, UV_RUN_ONCE);
        other.join();
        CHECK(ran);
        CHECK((ran_on == std::this_thread::get_id()));
        CHECK(dispatched_here);
        // A post from the loop thread runs on a later turn even with nothing else alive.
        uv_timer_stop(&keep_alive);
        uv_close(reinterpret_cast<uv_handle_t*>(&keep_alive), nullptr);
        bool posted = false;
        REQUIRE(runtime.post([&] { posted = true; }).ok());
        CHECK_FALSE(posted);
        REQUIRE(runtime.run_until([&] { return posted; }).ok());
        CHECK(posted);
        runtime.shutdown();
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
}

}  // namespace acp
