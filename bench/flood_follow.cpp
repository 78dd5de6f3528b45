// SPDX-License-Identifier: Apache-2.0
// The C++ side of the end-to-end follow benchmarks: spawns the flood agent, opens a
// session and follows one "flood N" turn with libacp's C++ API (Client + SessionStore,
// appending the text each change event carries), then prints one JSON line:
//   {"updates": N, "seconds": wall time prompt->idle, "cpu": this process's CPU time in
//    that span, "runqueue_wait": time in that span it was ready to run but had no CPU, "bytes": text followed,
//    "peak_rss_kib": peak RSS of this process (VmHWM), "page_faults": minor page faults of this process in that span}
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

// Peak RSS of this process image: VmHWM, which starts afresh at exec. (getrusage's
// ru_maxrss keeps the RSS of the process that forked it, so under Python's subprocess it
// reads at least Python's own RSS.) Falls back to ru_maxrss where /proc is missing.
long peak_rss_kib() {
    if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
        char line[256];
        long kib = -1;
        while (std::fgets(line, sizeof line, status) != nullptr) {
            if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
        }
        std::fclose(status);
        if (kib >= 0) return kib;
    }
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// Time this thread spent runnable but waiting for a CPU (/proc/thread-self/schedstat,
// second field, ns): wall time minus CPU time minus this is time spent waiting for the
// agent. -1 where the kernel does not report it.
double runqueue_wait_seconds() {
    std::FILE* stat = std::fopen("/proc/thread-self/schedstat", "r");
    if (stat == nullptr) return -1;
    unsigned long long ran = 0, waited = 0;
    const bool read = std::fscanf(stat, "%llu %llu", &ran, &waited) == 2;
    std::fclose(stat);
    return read ? static_cast<double>(waited) * 1e-9 : -1;
}

long minor_page_faults() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
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
    // The model holds the reply; the follower counts what each change appended (a UI
    // would draw it) and checks at the end that the model holds exactly that much, rather
    // than keeping a second copy of the text (ACP_FOLLOW_COPY=1 keeps one, as before).
    const bool copy = std::getenv("ACP_FOLLOW_COPY") != nullptr;
    std::string reply;
    std::size_t followed = 0;
    std::size_t chunks = 0;
    bool turn_ended = false;
    auto subscription = client->sessions().subscribe([&](const acp::SessionEvent& e) {
        if (e.appended_text) {
            followed += e.appended_text->size();
            if (copy) reply.append(e.appended_text->data(), e.appended_text->size());
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
    const double wait_start = runqueue_wait_seconds();
    const long faults_start = minor_page_faults();
    client->prompt(std::move(request), [&](acp::Result<acp::v2::PromptResponse> r) { require(r.ok(), "prompt"); });
    require((*runtime)->run_until([&] { return turn_ended; }).ok(), "turn");
    const double cpu = cpu_seconds() - cpu_start;
    const double runqueue_wait = runqueue_wait_seconds() - wait_start;
    const long page_faults = minor_page_faults() - faults_start;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    require(chunks == static_cast<std::size_t>(updates), "a chunk went missing");
    const acp::SessionState* state = client->sessions().find(session);
    const acp::SessionItem* item = state != nullptr ? state->item(acp::ItemKind::agent_message, "m1") : nullptr;
    const acp::MessageItem* message = item != nullptr ? item->message() : nullptr;
    require(message != nullptr && message->content.size() == 1 && message->content[0].text() != nullptr &&
                message->content[0].text()->text.size() == followed,
            "the model does not hold the text the changes appended");
    require(!copy || reply.size() == followed, "the copy differs");

    std::printf(
        "{\"updates\": %ld, \"seconds\": %.6f, \"cpu\": %.6f, \"runqueue_wait\": %.6f, \"bytes\": %zu, "
        "\"peak_rss_kib\": %ld, \"page_faults\": %ld}\n",
        updates, seconds, cpu, runqueue_wait, followed, peak_rss_kib(), page_faults);
    bool closed = false;
    client->on_closed([&](const acp::Status&) { closed = true; });
    client->close();
    (void)(*runtime)->run_until([&] { return closed; });
    subscription.reset();
    (*runtime)->shutdown([&] { client.reset(); });
    return 0;
}
