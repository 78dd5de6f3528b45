// SPDX-License-Identifier: Apache-2.0
// acp-chat following a long reply, against a bare host on the public API in the same run.
//
// Both spawn the same minimal agent (chat_stream_agent.cpp), start a session and send one
// prompt:
//   - "reply B C": one agent message of B bytes in chunks of C bytes;
//   - "terminal B C": a display terminal's output of B bytes without a newline, in chunks
//     of C bytes (acp-chat once took 60 s for 8 MiB: it searched the whole held line for
//     a newline at every chunk);
//   - "images N": one agent message of N image chunks (acp-chat once took 26 s for 20,000:
//     it rebuilt the whole message's text at every chunk).
// The bare host prints (to /dev/null, through stdio like acp-chat) what the session
// model's events say was appended: a message's or terminal's appended text, "[image]" for
// each new non-text block. acp-chat (scripted, stdout a pipe this program drains and
// counts) sanitises and prints it. Measured: the CPU time of the whole run (spawn to exit)
// of the host and its agent process - the bare host's own and its agent's, acp-chat's and
// its agent's (not this program's reading of acp-chat's output) - so that a loaded machine
// changes little; wall time is printed too. Best of 3 interleaved runs; the ratio is the
// bare host's CPU time over acp-chat's (1.0 = acp-chat costs nothing extra; aim >= 0.5,
// that is acp-chat within 2x of the bare host).
//
//   acp_bench_chat [--quick] [--chat PATH]
// The paths of acp-chat and the agent are built in; --chat runs another acp-chat build
// (an older one, to compare) against the same bare host.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>
#include <acp/client.hpp>
#include <acp/session.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

std::string chat_path = ACP_CHAT;  // --chat

struct Measure {
    double cpu = 0;   // seconds of CPU, host and agent
    double wall = 0;  // seconds
};

double cpu_seconds(int who) {
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void require(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "acp_bench_chat: %s failed\n", what);
        std::exit(1);
    }
}

// A run: the prompt, the character that counts what reached the screen, and how many of it.
struct Workload {
    std::string prompt;
    char counted;
    std::size_t expected;
};

// The reply's printable bytes: every 64th is a newline.
Workload reply(std::size_t bytes, std::size_t chunk) {
    return {"reply " + std::to_string(bytes) + " " + std::to_string(chunk), 'x', bytes - bytes / 64};
}
Workload terminal_output(std::size_t bytes, std::size_t chunk) {
    return {"terminal " + std::to_string(bytes) + " " + std::to_string(chunk), '#', bytes};
}
Workload image_chunks(std::size_t count) { return {"images " + std::to_string(count), '[', count}; }

std::size_t count_of(char c, const char* data, std::size_t size) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < size; ++i) n += data[i] == c;
    return n;
}

Measure bare_host(const Workload& work) {
    const auto start = Clock::now();
    const double cpu_start = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
    std::FILE* out = std::fopen("/dev/null", "w");
    require(out != nullptr, "opening /dev/null");
    uv_loop_t loop;
    uv_loop_init(&loop);
    acp::SpawnOptions agent;
    agent.argv = {ACP_BENCH_AGENT};
    auto created = acp::Client::spawn(&loop, agent);
    require(created.ok(), "spawning the agent");
    std::unique_ptr<acp::Client> client = std::move(created.value());
    std::size_t counted = 0;
    std::unordered_map<std::string, std::size_t> blocks_seen;  // per message: its content blocks seen
    const auto print = [&](std::string_view text) {
        std::fwrite(text.data(), 1, text.size(), out);
        counted += count_of(work.counted, text.data(), text.size());
    };
    bool ended = false;
    acp::SessionSubscription subscription = client->sessions().subscribe([&](const acp::SessionEvent& e) {
        if (e.type == acp::SessionEvent::Type::item_inserted || e.type == acp::SessionEvent::Type::item_changed) {
            const acp::SessionItem& item = e.session->items()[e.index];
            if (e.appended_text) print(*e.appended_text);
            if (const acp::MessageItem* message = item.message()) {
                // Text came as appended_text; a new block without text is printed as its type.
                std::size_t& seen = blocks_seen[item.id()];
                for (; seen < message->content.size(); ++seen) {
                    const acp::v2::ContentBlock& block = message->content[seen];
                    if (block.text() == nullptr) print("[" + block.tag() + "]");
                }
            }
        }
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
            text.text = work.prompt;
            prompt.prompt.push_back(acp::v2::ContentBlock::make_text(std::move(text)));
            client->prompt(prompt, [](acp::Result<acp::v2::PromptResponse> p) { require(p.ok(), "prompt"); });
        });
    });
    uv_run(&loop, UV_RUN_DEFAULT);
    subscription.reset();
    client.reset();
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    std::fclose(out);
    Measure m;
    m.cpu = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN) - cpu_start;
    m.wall = std::chrono::duration<double>(Clock::now() - start).count();
    require(ended && counted == work.expected, "the bare host's output");
    return m;
}

Measure through_acp_chat(const Workload& work, bool markdown) {
    const std::string input_path = "/tmp/acp_bench_chat_input." + std::to_string(getpid());
    {
        std::FILE* input = std::fopen(input_path.c_str(), "w");
        require(input != nullptr, "writing the input");
        std::fprintf(input, "%s\n", work.prompt.c_str());
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
    std::vector<std::string> args = {chat_path, "--cwd", "/tmp"};
    if (markdown) args.push_back("--markdown");  // rendered as on a terminal (stdout is a pipe here)
    args.insert(args.end(), {"--", ACP_BENCH_AGENT});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    require(posix_spawn(&pid, chat_path.c_str(), &actions, nullptr, argv.data(), environ) == 0, "spawning acp-chat");
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::size_t counted = 0;
    std::vector<char> buffer(1 << 16);
    for (ssize_t n; (n = read(out[0], buffer.data(), buffer.size())) > 0;) {
        counted += count_of(work.counted, buffer.data(), static_cast<std::size_t>(n));
    }
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    Measure m;
    m.cpu = cpu_seconds(RUSAGE_CHILDREN) - cpu_start;
    m.wall = std::chrono::duration<double>(Clock::now() - start).count();
    std::remove(input_path.c_str());
    require(WIFEXITED(status) && WEXITSTATUS(status) == 0, "acp-chat's exit");
    require(counted == work.expected, "acp-chat's output");
    return m;
}

// markdown: acp-chat also with --markdown (rendered as on a terminal; stdout is a pipe here).
void compare(const std::string& what, const Workload& work, bool markdown) {
    Measure bare{1e30, 1e30}, chat{1e30, 1e30}, rendered{1e30, 1e30};
    for (int run = 0; run < 3; ++run) {  // interleaved: all meet the same machine load
        const Measure b = bare_host(work);
        const Measure c = through_acp_chat(work, false);
        if (b.cpu < bare.cpu) bare = b;
        if (c.cpu < chat.cpu) chat = c;
        if (!markdown) continue;
        const Measure m = through_acp_chat(work, true);
        if (m.cpu < rendered.cpu) rendered = m;
    }
    std::printf("  %-44s CPU bare host %7.1f ms, acp-chat %7.1f ms, ratio %.2f (aim >= 0.5); wall %.0f ms, %.0f ms\n",
                what.c_str(), bare.cpu * 1e3, chat.cpu * 1e3, bare.cpu / chat.cpu, bare.wall * 1e3, chat.wall * 1e3);
    if (!markdown) return;
    std::printf("  %-44s acp-chat %7.1f ms, ratio %.2f; wall %.0f ms\n", "  with --markdown (63-byte lines)",
                rendered.cpu * 1e3, bare.cpu / rendered.cpu, rendered.wall * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") {
            quick = true;
        } else if (arg == "--chat" && i + 1 < argc) {
            chat_path = argv[++i];
        } else {
            std::fprintf(stderr, "usage: acp_bench_chat [--quick] [--chat PATH]\n");
            return 2;
        }
    }
    std::printf("%s vs a bare host on the public API (CPU time of host + agent, spawn to exit, best of 3)\n",
                chat_path.c_str());
    compare("reply, 1 MiB in 64-byte chunks", reply(1u << 20, 64), true);
    compare("terminal, 8 MiB, no newline, 64-byte chunks", terminal_output(8u << 20, 64), false);
    compare("terminal, 8 MiB, no newline, 4 KiB chunks", terminal_output(8u << 20, 4096), false);
    compare("images, 20,000 chunks in one message", image_chunks(20000), false);
    // The 100 MiB run takes a while; "--quick" leaves it out.
    if (!quick) compare("reply, 100 MiB in 1 MiB chunks", reply(100u << 20, 1u << 20), true);
    return 0;
}
