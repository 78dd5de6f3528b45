// SPDX-License-Identifier: Apache-2.0
// The C++ side of the end-to-end follow benchmarks: spawns the flood agent, opens a
// session and follows one "flood N" turn with libacp's C++ API (Client + SessionStore,
// appending the text each change event carries), then prints one JSON line:
//   {"updates": N, "seconds": wall time prompt->idle, "cpu": this process's CPU time in
//    that span, "bytes": text followed, "peak_rss_kib": peak RSS of this process}
//
//   acp_bench_flood_follow AGENT N [AGENT ARGS...]   (run by bench/python_follow_bench.py,
//                                                      e2e_ts_bench.py, remote_flood_bench.py)
// AGENT may be a ws://, wss://, http:// or https:// URL: the agent on the network.
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "acp/client.hpp"
#include "acp/runtime.hpp"

namespace {

double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

void require(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "acp_bench_flood_follow failed: %s\n", what);
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: acp_bench_flood_follow AGENT N [AGENT ARGS...]\n");
        return 2;
    }
    const long updates = std::atol(argv[2]);
    auto runtime = acp::Runtime::create(acp::HostingMode::polled);
    require(runtime.ok(), "runtime");
    const std::string target = argv[1];
    acp::Result<std::unique_ptr<acp::Client>> created = acp::Status(acp::Errc::invalid_argument, "no agent");
    if (target.find("://") != std::string::npos) {
        acp::RemoteOptions remote;
        remote.url = target;
        created = acp::Client::connect((*runtime)->loop(), remote);
    } else {
        acp::SpawnOptions agent;
        agent.argv = {target};
        for (int i = 3; i < argc; ++i) agent.argv.emplace_back(argv[i]);
        created = acp::Client::spawn((*runtime)->loop(), agent);
    }
    require(created.ok(), "spawn or connect");
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
    client->initialize([&](acp::Result<acp::v2::InitializeResponse> r) { answered = r.ok(); });
    require((*runtime)->run_until([&] { return answered; }).ok() && answered, "initialize");
    std::string session;
    bool refused = false;
    acp::v2::NewSessionRequest new_session;
    new_session.cwd = "/tmp";
    client->new_session(new_session, [&](acp::Result<acp::v2::NewSessionResponse> r) {
        if (r) session = r->sessionId;
        refused = !r;
    });
    require((*runtime)->run_until([&] { return !session.empty() || refused; }).ok() && !refused, "new session");

    acp::v2::PromptRequest request;
    request.sessionId = session;
    acp::v2::TextContent content;
    content.text = "flood " + std::to_string(updates);
    request.prompt.push_back(acp::v2::ContentBlock::make_text(std::move(content)));
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    client->prompt(std::move(request), [&](acp::Result<acp::v2::PromptResponse> r) { require(r.ok(), "prompt"); });
    require((*runtime)->run_until([&] { return turn_ended; }).ok(), "turn");
    const double cpu = cpu_seconds() - cpu_start;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    require(chunks == static_cast<std::size_t>(updates), "a chunk went missing");

    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("{\"updates\": %ld, \"seconds\": %.6f, \"cpu\": %.6f, \"bytes\": %zu, \"peak_rss_kib\": %ld}\n", updates,
                seconds, cpu, reply.size(), usage.ru_maxrss);
    bool closed = false;
    client->on_closed([&](const acp::Status&) { closed = true; });
    client->close();
    (void)(*runtime)->run_until([&] { return closed; });
    subscription.reset();
    (*runtime)->shutdown([&] { client.reset(); });
    return 0;
}
