// SPDX-License-Identifier: Apache-2.0
// acp-chat following a long reply, against a bare host on the public API in the same run.
//
// Both spawn the same minimal agent (chat_stream_agent.cpp), start a session and send
// "reply B C": one agent message of B bytes in chunks of C bytes. The bare host appends the
// session model's appended text to a string; acp-chat (scripted, stdout a pipe this program
// drains and counts) sanitises and prints it. Measured: the CPU time of the whole run
// (spawn to exit) of the host and its agent process - the bare host's own and its agent's,
// acp-chat's and its agent's (not this program's reading of acp-chat's output) - so that
// a loaded machine changes little; wall time is printed too. Best of 3 interleaved runs;
// the ratio is the bare host's CPU time over acp-chat's (1.0 = acp-chat costs nothing
// extra; aim >= 0.5).
//
//   acp_bench_chat   (paths of acp-chat and the agent are built in)
#include <acp/client.hpp>
#include <acp/session.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

struct Measure {
    double cpu = 0;   // seconds of CPU, host and agent
    double wall = 0;  // seconds
};

double cpu_seconds(int who) {
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void require(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "acp_bench_chat: %s failed\n", what);
        std::exit(1);
    }
}

// The printable bytes of the reply: every 64th is a newline.
std::size_t expected_x(std::size_t bytes) { return bytes - bytes / 64; }

Measure bare_host(std::size_t bytes, std::size_t chunk) {
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
    uv_loop_t loop;
    uv_loop_init(&loop);
    acp::SpawnOptions agent;
    agent.argv = {ACP_BENCH_AGENT};
    auto created = acp::Client::spawn(&loop, agent);
    require(created.ok(), "spawning the agent");
    std::unique_ptr<acp::Client> client = std::move(created.value());
    std::string reply;
    bool ended = false;
    acp::SessionSubscription subscription = client->sessions().subscribe([&](const acp::SessionEvent& e) {
        if (e.appended_text) reply.append(e.appended_text->data(), e.appended_text->size());
        if (e.type == acp::SessionEvent::Type::turn_ended && !ended) {
            ended = true;
            client->close();
        }
    });
    client->initialize([&](acp::Result<acp::v2::InitializeResponse> r) {
        require(r.ok(), "initialize");
        acp::v2::NewSessionRequest request;
        request.cwd = "/tmp";
        client->new_session(request, [&](acp::Result<acp::v2::NewSessionResponse> s) {
            require(s.ok(), "session/new");
            acp::v2::PromptRequest prompt;
            prompt.sessionId = s->sessionId;
            acp::v2::TextContent text;
            text.text = "reply " + std::to_string(bytes) + " " + std::to_string(chunk);
            prompt.prompt.push_back(acp::v2::ContentBlock::make_text(std::move(text)));
            client->prompt(prompt, [](acp::Result<acp::v2::PromptResponse> p) { require(p.ok(), "prompt"); });
        });
    });
    uv_run(&loop, UV_RUN_DEFAULT);
    subscription.reset();
    client.reset();
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    Measure m;
    m.cpu = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN) - cpu_start;
    m.wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::size_t x = 0;
    for (char c : reply) x += c == 'x';
    require(ended && x == expected_x(bytes), "the bare host's reply");
    return m;
}

Measure through_acp_chat(std::size_t bytes, std::size_t chunk, bool markdown) {
    const std::string input_path = "/tmp/acp_bench_chat_input." + std::to_string(getpid());
    {
        std::FILE* input = std::fopen(input_path.c_str(), "w");
        require(input != nullptr, "writing the input");
        std::fprintf(input, "reply %zu %zu\n", bytes, chunk);
        std::fclose(input);
    }
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds(RUSAGE_CHILDREN);  // acp-chat and, reaped by it, its agent
    int out[2];
    require(pipe(out) == 0, "pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    posix_spawn_file_actions_addclose(&actions, out[1]);
    std::vector<std::string> args = {ACP_CHAT, "--cwd", "/tmp"};
    if (markdown) args.push_back("--markdown");  // rendered as on a terminal (stdout is a pipe here)
    args.insert(args.end(), {"--", ACP_BENCH_AGENT});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    require(posix_spawn(&pid, ACP_CHAT, &actions, nullptr, argv.data(), environ) == 0, "spawning acp-chat");
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::size_t x = 0;
    std::vector<char> buffer(1 << 16);
    for (ssize_t n; (n = read(out[0], buffer.data(), buffer.size())) > 0;) {
        for (ssize_t i = 0; i < n; ++i) x += buffer[static_cast<std::size_t>(i)] == 'x';
    }
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    Measure m;
    m.cpu = cpu_seconds(RUSAGE_CHILDREN) - cpu_start;
    m.wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::remove(input_path.c_str());
    require(WIFEXITED(status) && WEXITSTATUS(status) == 0, "acp-chat's exit");
    require(x == expected_x(bytes), "acp-chat's output");
    return m;
}

void compare(std::size_t bytes, std::size_t chunk) {
    Measure bare{1e30, 1e30}, chat{1e30, 1e30}, markdown{1e30, 1e30};
    for (int run = 0; run < 3; ++run) {  // interleaved: all meet the same machine load
        const Measure b = bare_host(bytes, chunk);
        const Measure c = through_acp_chat(bytes, chunk, false);
        const Measure m = through_acp_chat(bytes, chunk, true);
        if (b.cpu < bare.cpu) bare = b;
        if (c.cpu < chat.cpu) chat = c;
        if (m.cpu < markdown.cpu) markdown = m;
    }
    std::printf("  %6zu KiB in %7zu-byte chunks: CPU bare host %7.1f ms, acp-chat %7.1f ms, ratio %.2f (aim >= 0.5);"
                " wall %.0f ms, %.0f ms\n",
                bytes / 1024, chunk, bare.cpu * 1e3, chat.cpu * 1e3, bare.cpu / chat.cpu, bare.wall * 1e3,
                chat.wall * 1e3);
    std::printf("  %6s     with --markdown (a line of 63 bytes at a time): acp-chat %7.1f ms, ratio %.2f; wall %.0f ms\n",
                "", markdown.cpu * 1e3, bare.cpu / markdown.cpu, markdown.wall * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
    std::printf("acp-chat vs a bare host on the public API (CPU time of host + agent, spawn to exit, best of 3)\n");
    compare(1u << 20, 64);
    // The 100 MiB run takes a while; "--quick" leaves it out.
    if (!(argc > 1 && std::string(argv[1]) == "--quick")) compare(100u << 20, 1u << 20);
    return 0;
}
