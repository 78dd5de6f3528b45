// SPDX-License-Identifier: Apache-2.0
// A flood agent process for the end-to-end benchmarks: ACP v2 over stdin/stdout, no
// libacp. It answers initialize, session/new and session/prompt; a prompt whose text is
// "flood N" is answered, then followed by a running state, N agent_message_chunk updates of
// one message (tokens of about 30 bytes) and an idle state (end_turn). The flood is built
// in memory before the answer and written in large pieces, so the agent is never what a
// client waits for; with ACP_FLOOD_PREPARE=N in its environment the first prompt's flood
// of N is built at startup, before the client's clock runs. Any other prompt ends its
// turn at once.
//
//   acp_bench_flood_agent            (spawned by bench/python_follow_bench.py, e2e_ts_bench.py)
#include <fcntl.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "request_reader.hpp"

namespace {

void write_all(const std::string& out) {
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, out.data() + done, out.size() - done);
        if (n <= 0) std::exit(0);  // the client went away
        done += static_cast<std::size_t>(n);
    }
}

std::string update(const std::string& session, const std::string& body) {
    return R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":")" + session + R"(","update":)" + body +
           "}}\n";
}

std::string flood(const std::string& session, const std::string& message_id, long count) {
    std::string out = update(session, R"({"sessionUpdate":"state_update","state":"running"})");
    out.reserve(static_cast<std::size_t>(count) * 190);
    for (long i = 0; i < count; ++i) {
        out += update(session, R"({"sessionUpdate":"agent_message_chunk","messageId":")" + message_id +
                                   R"(","content":{"type":"text","text":"token )" + std::to_string(i) +
                                   R"( of a flood, caf)"
                                   "\xC3\xA9"
                                   R"( "}})");
    }
    return out;
}

// The first prompt's flood, built at startup (ACP_FLOOD_PREPARE); session "s1", message "m1".
std::string prepared;
long prepared_count = 0;

void answer(const rapidjson::Document& request, int& prompts) {
    const std::string id = std::to_string(request["id"].GetInt64());
    const std::string method = request["method"].GetString();
    if (method == "initialize") {
        write_all(
            R"({"jsonrpc":"2.0","id":)" + id +
            R"(,"result":{"protocolVersion":2,"info":{"name":"flood-agent","version":"1.0"},"capabilities":{"session":{}}}})"
            "\n");
    } else if (method == "session/new") {
        write_all(R"({"jsonrpc":"2.0","id":)" + id +
                  R"(,"result":{"sessionId":"s1"}})"
                  "\n");
    } else if (method == "session/prompt") {
        const auto& params = request["params"];
        const std::string session = params["sessionId"].GetString();
        const auto& prompt = params["prompt"];
        const std::string text = prompt.Size() > 0 && prompt[0].HasMember("text") ? prompt[0]["text"].GetString() : "";
        const std::string k = std::to_string(++prompts);
        long count = 0;
        std::string body;
        if (std::sscanf(text.c_str(), "flood %ld", &count) == 1 && count > 0) {
            if (prompts == 1 && session == "s1" && count == prepared_count) {
                body.swap(prepared);
            } else {
                body = flood(session, "m" + k, count);
            }
        }
        // Three writes, not one concatenation: a copy of a prepared flood of 1M lines (185 MB,
        // page faults and all) would hold the client's clock for a quarter of a second.
        write_all(R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"messageId":"u)" + k +
                  R"("}})"
                  "\n");
        write_all(body);
        write_all(update(session, R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})"));
    } else {
        write_all(R"({"jsonrpc":"2.0","id":)" + id +
                  R"(,"error":{"code":-32601,"message":"not in the flood agent"}})"
                  "\n");
    }
}

}  // namespace

int main() {
    // A pipe of 64 KiB (Linux's default) wakes the client every 430 lines; with ACP_FLOOD_PIPE_BYTES
    // the agent's stdout pipe holds that much (up to /proc/sys/fs/pipe-max-size), so a
    // client that keeps up sleeps less often. Both clients of a benchmark get the same pipe.
    if (const char* pipe_bytes = std::getenv("ACP_FLOOD_PIPE_BYTES");
        pipe_bytes != nullptr && std::atoi(pipe_bytes) > 0) {
#if defined(F_SETPIPE_SZ)
        (void)::fcntl(STDOUT_FILENO, F_SETPIPE_SZ, std::atoi(pipe_bytes));
#endif
    }
    if (const char* prepare = std::getenv("ACP_FLOOD_PREPARE")) {
        prepared_count = std::atol(prepare);
        if (prepared_count > 0) prepared = flood("s1", "m1", prepared_count);
    }
    int prompts = 0;
    bench::read_requests(STDIN_FILENO, [&](const rapidjson::Document& request) { answer(request, prompts); });
    return 0;
}
