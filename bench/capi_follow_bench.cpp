// SPDX-License-Identifier: Apache-2.0
// Following a streamed reply: a 1 MiB agent message in 64-byte chunks, sent by an
// in-process agent over pipes (streaming_agent.hpp) and followed by a host that appends
// the text each change reports:
//   - through the C API: ACP_EVENT_SESSION_CHANGED from the pull queue, acp_event_appended_text,
//     with ACP_EVENT_SESSION_UPDATE on (the default) and off (acp_client_report_updates:
//     no update decoded or encoded, queued text changes coalesce)
//   - through the C++ observer: SessionStore::subscribe, SessionEvent::appended_text
// The C API's throughput is reported as a ratio to the C++ observer's, measured in the
// same run, and its cost per chunk after 10 and after 1,000 turns of history (which must
// not grow with the history). Run by hand: build/dev/bench/acp_bench_capi_follow
#include <acp/acp.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "acp/client.hpp"
#include "acp/runtime.hpp"
#include "streaming_agent.hpp"

namespace {

// CPU time of the whole process (the host and the in-process agent): on a machine shared
// with other work it varies far less than wall time, and both sides pay for the same agent.
double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

constexpr std::size_t kReplyBytes = 1u << 20;
constexpr std::size_t kChunkBytes = 64;
constexpr int kRuns = 7;

struct Measure {
    double seconds = 0;
    std::size_t chunks = 0;
};

void require(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "bench failed: %s (%s)\n", what, acp_error_last());
    std::exit(1);
}

std::string reply_prompt() { return "reply " + std::to_string(kReplyBytes) + " " + std::to_string(kChunkBytes); }

// --- the C API ------------------------------------------------------------------------------

struct CHost {
    acp_client* client = nullptr;
    std::string session;
    std::string reply;
    std::size_t chunks = 0;

    acp_event* next() {
        acp_event* event = nullptr;
        while (acp_client_next_event(&event, client) != 0) require(acp_client_run_once(client, -1) >= 0, "run_once");
        return event;
    }
    void wait_result(unsigned long request) {
        for (;;) {
            acp_event* event = next();
            const bool done = acp_event_type(event) == ACP_EVENT_RESULT && acp_event_request(event) == request;
            if (done) {
                require(acp_event_status(event)->code == ACP_OK, "a call failed");
                if (acp_event_session_id(event) != nullptr) session = acp_event_session_id(event);
            }
            acp_event_free(event);
            if (done) return;
        }
    }
    // Runs a turn to its end, appending every chunk's text: O(chunk) per event.
    void follow_turn() {
        for (;;) {
            acp_event* event = next();
            bool ended = false;
            if (acp_event_type(event) == ACP_EVENT_SESSION_CHANGED) {
                std::size_t size = 0;
                if (const char* text = acp_event_appended_text(event, &size)) {
                    reply.append(text, size);
                    ++chunks;
                }
                ended = acp_event_change(event) == ACP_CHANGE_TURN_ENDED;
            }
            acp_event_free(event);
            if (ended) return;
        }
    }
};

Measure follow_with_c_api(int history, bool report_updates) {
    acp::bench::StreamingAgent agent;
    acp_client_options options;
    require(acp_client_options_init(&options, ACP_CLIENT_OPTIONS_VERSION) == ACP_OK, "options");
    CHost host;
    require(acp_client_adopt(&host.client, agent.client_read_fd(), agent.client_write_fd(), -1, &options) == ACP_OK,
            "adopt");
    require(acp_client_observe_sessions(host.client, 1) == ACP_OK, "observe");
    require(acp_client_report_updates(host.client, report_updates ? 1 : 0) == ACP_OK, "report updates");
    unsigned long request = 0;
    require(acp_client_initialize(&request, host.client, nullptr, nullptr) == ACP_OK, "initialize");
    host.wait_result(request);
    require(
        acp_client_new_session(&request, host.client, R"({"cwd":"/tmp","mcpServers":[]})", nullptr, nullptr) == ACP_OK,
        "new session");
    host.wait_result(request);
    const std::string history_prompt = "history " + std::to_string(history);
    require(acp_client_prompt_text(nullptr, host.client, host.session.c_str(), history_prompt.c_str(), nullptr,
                                   nullptr) == ACP_OK,
            "history");
    host.follow_turn();
    host.reply.clear();
    host.reply.reserve(kReplyBytes);
    host.chunks = 0;

    const double start = cpu_seconds();
    require(acp_client_prompt_text(nullptr, host.client, host.session.c_str(), reply_prompt().c_str(), nullptr,
                                   nullptr) == ACP_OK,
            "reply");
    host.follow_turn();
    const double seconds = cpu_seconds() - start;
    require(host.reply.size() == kReplyBytes, "the followed reply has the wrong size");
    acp_client_free(host.client);
    return {seconds, host.chunks};
}

// --- the C++ observer -------------------------------------------------------------------------

Measure follow_with_cpp_observer(int history) {
    acp::bench::StreamingAgent agent;
    auto runtime = acp::Runtime::create(acp::HostingMode::polled);
    require(runtime.ok(), "runtime");
    acp::AdoptedFds fds;
    fds.read_fd = agent.client_read_fd();
    fds.write_fd = agent.client_write_fd();
    auto created = acp::Client::adopt((*runtime)->loop(), fds);
    require(created.ok(), "adopt");
    std::unique_ptr<acp::Client> client = std::move(created.value());
    std::string reply;
    std::size_t chunks = 0;
    bool turn_ended = false;
    auto subscription = client->sessions().subscribe([&](const acp::SessionEvent& e) {
        if (e.appended_text) {
            reply.append(e.appended_text->data(), e.appended_text->size());
            ++chunks;
        }
        if (e.type == acp::SessionEvent::Type::turn_ended) turn_ended = true;
    });
    bool answered = false;
    std::string session;
    client->initialize([&](acp::Result<acp::v2::InitializeResponse> r) { answered = r.ok(); });
    require((*runtime)->run_until([&] { return answered; }).ok() && answered, "initialize");
    acp::v2::NewSessionRequest new_session;
    new_session.cwd = "/tmp";
    bool refused = false;
    client->new_session(new_session, [&](acp::Result<acp::v2::NewSessionResponse> r) {
        if (r) session = r->sessionId;
        refused = !r;
    });
    require((*runtime)->run_until([&] { return !session.empty() || refused; }).ok() && !refused, "new session");
    auto prompt = [&](const std::string& text) {
        acp::v2::PromptRequest request;
        request.sessionId = session;
        acp::v2::TextContent content;
        content.text = text;
        request.prompt.push_back(acp::v2::ContentBlock::make_text(std::move(content)));
        turn_ended = false;
        client->prompt(std::move(request),
                       [&](acp::Result<acp::v2::PromptResponse> r) { require(r.ok(), "prompt refused"); });
        require((*runtime)->run_until([&] { return turn_ended; }).ok(), "turn");
    };
    prompt("history " + std::to_string(history));
    reply.clear();
    reply.reserve(kReplyBytes);
    chunks = 0;

    const double start = cpu_seconds();
    prompt(reply_prompt());
    const double seconds = cpu_seconds() - start;
    require(reply.size() == kReplyBytes, "the followed reply has the wrong size");
    bool closed = false;
    client->on_closed([&](const acp::Status&) { closed = true; });
    client->close();
    (void)(*runtime)->run_until([&] { return closed; });
    subscription.reset();
    (*runtime)->shutdown([&] { client.reset(); });
    return {seconds, chunks};
}

void keep_best(Measure& best, const Measure& m) {
    if (best.chunks == 0 || m.seconds < best.seconds) best = m;
}

double ns_per_chunk(const Measure& m) {
    return m.seconds * 1e9 / static_cast<double>(std::max<std::size_t>(m.chunks, 1));
}

}  // namespace

int main() {
    std::printf(
        "a %zu KiB reply in %zu-byte chunks, followed by appended text (CPU time, best of %d interleaved runs)\n",
        kReplyBytes / 1024, kChunkBytes, kRuns);
    // Interleaved, so that both sides meet the same load on a shared machine.
    Measure cpp, cpp1000, c10, c1000, quiet;
    for (int run = 0; run < kRuns; ++run) {
        keep_best(cpp, follow_with_cpp_observer(10));
        keep_best(c10, follow_with_c_api(10, true));
        keep_best(quiet, follow_with_c_api(10, false));
        keep_best(cpp1000, follow_with_cpp_observer(1000));
        keep_best(c1000, follow_with_c_api(1000, true));
    }
    std::printf(
        "  C++ observer (SessionStore::subscribe), 10 turns of history: %7.1f ms  %6.0f ns/chunk  (%zu chunks)\n",
        cpp.seconds * 1e3, ns_per_chunk(cpp), cpp.chunks);
    std::printf("  C++ observer (SessionStore::subscribe), 1000 turns of history: %5.1f ms  %6.0f ns/chunk\n",
                cpp1000.seconds * 1e3, ns_per_chunk(cpp1000));
    std::printf("  C API change events,                   10 turns of history: %7.1f ms  %6.0f ns/chunk\n",
                c10.seconds * 1e3, ns_per_chunk(c10));
    std::printf("  C API change events,                 1000 turns of history: %7.1f ms  %6.0f ns/chunk\n",
                c1000.seconds * 1e3, ns_per_chunk(c1000));
    std::printf("  C API change events, updates off (coalesced), 10 turns: %7.1f ms  (%zu events for %zu chunks)\n",
                quiet.seconds * 1e3, quiet.chunks, cpp.chunks);
    std::printf("  C API throughput / C++ observer throughput: %.2f at 10 turns, %.2f at 1000 (aim >= 0.5)\n",
                cpp.seconds / c10.seconds, cpp1000.seconds / c1000.seconds);
    std::printf("  C API with updates off / C++ observer: %.2f at 10 turns\n", cpp.seconds / quiet.seconds);
    std::printf("  C API cost per chunk, 1000 vs 10 turns of history: %.2f (1.0 = no growth)\n",
                ns_per_chunk(c1000) / ns_per_chunk(c10));
    return 0;
}
