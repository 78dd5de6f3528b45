// Benchmark: the session model (parse + decode + SessionStore::apply) on a generated stream
// of realistic session/update lines, against baselines measured in the same run on the
// same lines: a bare RapidJSON parse (a fresh Document per line), and parse + decode
// without applying. Also the heap the model holds per byte of text it holds, and peak RSS.
//
//   build/release/bench/acp_bench_session [UPDATES]     (default 1,000,000)
//
// Machines are noisy, so compare ratios.
#include <rapidjson/document.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "acp/session.hpp"
#include "protocol/v2/codec.hpp"
#include "support/base64.hpp"

using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::size_t heap_in_use() {
#if defined(__GLIBC__)
    return mallinfo2().uordblks;
#else
    return 0;
#endif
}

struct Stream {
    std::vector<std::string> lines;
    std::size_t json_bytes = 0;
    std::size_t text_bytes = 0;  // message text and terminal output the model ends up holding
};

using acp::test::base64;

// Turns of a coding agent: a user message, thoughts, a streamed reply of many text chunks,
// tool calls that stream content and terminal output, plan updates, state snapshots.
Stream make_stream(std::size_t count) {
    Stream s;
    s.lines.reserve(count);
    const std::string head = R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":)";
    auto add = [&](const std::string& update) {
        s.lines.push_back(head + update + "}}");
        s.json_bytes += s.lines.back().size() + 1;
    };
    std::size_t turn = 0;
    while (s.lines.size() < count) {
        const std::string t = std::to_string(turn++);
        add(R"({"sessionUpdate":"state_update","state":"running"})");
        add(R"({"sessionUpdate":"user_message","messageId":"u)" + t + R"(","content":[{"type":"text","text":"Please fix the flaky test in src/net"}]})");
        s.text_bytes += 36;
        for (int i = 0; i < 20; ++i) {
            add(R"({"sessionUpdate":"agent_thought_chunk","messageId":"th)" + t + R"(","content":{"type":"text","text":"thinking about step )" +
                std::to_string(i) + R"( "}})");
            s.text_bytes += 20 + std::to_string(i).size();
        }
        for (int call = 0; call < 3; ++call) {
            const std::string id = "c" + t + "-" + std::to_string(call);
            add(R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id + R"(","title":"Run the tests","kind":"execute","status":"pending","rawInput":{"command":"make test"}})");
            add(R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id + R"(","status":"in_progress","content":[{"type":"terminal","terminalId":"t)" + id + R"("}]})");
            for (int out = 0; out < 8; ++out) {
                const std::string bytes = "PASS test_" + std::to_string(out) + " (0.0" + std::to_string(out) + "s) \xE2\x9C\x93\n";
                add(R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t)" + id + R"(","data":")" + base64(bytes) + R"("})");
                s.text_bytes += bytes.size();
            }
            add(R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":")" + id + R"(","content":{"type":"content","content":{"type":"text","text":"8 passed"}}})");
            add(R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id + R"(","status":"completed","rawOutput":{"exitCode":0}})");
        }
        add(R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p)" + t + R"(","entries":[{"content":"Reproduce","priority":"high","status":"completed"},{"content":"Fix","priority":"high","status":"in_progress"},{"content":"Verify","priority":"medium","status":"pending"}]}})");
        for (int i = 0; i < 300; ++i) {
            const std::string token = "token " + std::to_string(i) + " of a streamed reply, caf\xC3\xA9 ";
            add(R"({"sessionUpdate":"agent_message_chunk","messageId":"a)" + t + R"(","content":{"type":"text","text":")" + token + R"("}})");
            s.text_bytes += token.size();
        }
        add(R"({"sessionUpdate":"usage_update","used":12000,"size":200000})");
        add(R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})");
    }
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const Stream stream = make_stream(count);
    const std::size_t n = stream.lines.size();
    const double megabytes = static_cast<double>(stream.json_bytes) / (1024.0 * 1024.0);

    // Baseline 1: bare parse, a fresh default Document per line.
    auto start = Clock::now();
    std::size_t parsed = 0;
    for (const auto& line : stream.lines) {
        rapidjson::Document document;
        document.Parse(line.c_str(), line.size());
        if (!document.HasParseError()) ++parsed;
    }
    const double parse_seconds = seconds_since(start);

    // Baseline 2: parse + decode into the typed notification, nothing kept.
    start = Clock::now();
    std::size_t decoded = 0;
    for (const auto& line : stream.lines) {
        rapidjson::Document document;
        document.Parse(line.c_str(), line.size());
        acp::v2::UpdateSessionNotification notification;
        if (acp::v2::codec::decode(document["params"], notification).ok()) ++decoded;
    }
    const double decode_seconds = seconds_since(start);

    // The model: parse + decode + apply.
    const std::size_t heap_before = heap_in_use();
    acp::SessionStore store;
    start = Clock::now();
    std::size_t applied = 0;
    for (const auto& line : stream.lines) {
        rapidjson::Document document;
        document.Parse(line.c_str(), line.size());
        acp::v2::UpdateSessionNotification notification;
        if (!acp::v2::codec::decode(document["params"], notification).ok()) continue;
        if (store.apply(notification).ok()) ++applied;
    }
    const double model_seconds = seconds_since(start);
    const std::size_t heap_after = heap_in_use();

    if (parsed != n || decoded != n || applied != n) {
        std::fprintf(stderr, "parsed %zu, decoded %zu, applied %zu of %zu\n", parsed, decoded, applied, n);
        return 1;
    }
    const double apply_seconds = model_seconds - decode_seconds;
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const acp::SessionState* session = store.find("sess-1");

    std::printf("updates: %zu (%.1f MiB of JSON, %.1f MiB of text held), items in the model: %zu\n", n, megabytes,
                static_cast<double>(stream.text_bytes) / (1024.0 * 1024.0), session ? session->items().size() : 0);
    std::printf("bare parse (RapidJSON Document per line): %9.0f upd/s %7.1f MiB/s\n", n / parse_seconds, megabytes / parse_seconds);
    std::printf("parse + decode (no model):                %9.0f upd/s %7.1f MiB/s\n", n / decode_seconds, megabytes / decode_seconds);
    std::printf("parse + decode + apply (the model):       %9.0f upd/s %7.1f MiB/s\n", n / model_seconds, megabytes / model_seconds);
    std::printf("apply alone (model - decode):             %9.0f upd/s %7.1f MiB/s\n", n / apply_seconds, megabytes / apply_seconds);
    std::printf("ratio apply alone / bare parse throughput: %.2f\n", parse_seconds / apply_seconds);
    std::printf("ratio whole model path / bare parse:       %.2f\n", parse_seconds / model_seconds);
    if (heap_after > heap_before) {
        std::printf("model heap: %.1f MiB, %.2f bytes per byte of text held\n",
                    static_cast<double>(heap_after - heap_before) / (1024.0 * 1024.0),
                    static_cast<double>(heap_after - heap_before) / static_cast<double>(stream.text_bytes));
    }
    std::printf("peak RSS: %.1f MiB (includes the %.1f MiB of input lines)\n", usage.ru_maxrss / 1024.0, megabytes);
    return 0;
}
