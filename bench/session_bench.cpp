// SPDX-License-Identifier: Apache-2.0
// Benchmark: the session model on generated streams of realistic session/update lines, a
// flood (nothing but agent_message_chunk text) and a mixed stream (a coding agent's turns).
// The model path is the Client's receive path: a line that is a plain text chunk or a
// terminal output chunk goes from the raw line into the model without a parse
// (client/chunk_line.hpp, SessionStore::apply_text_chunk / apply_terminal_chunk); any
// other line is parsed in place by MessageParser, decoded and SessionStore::apply'd.
// Baselines measured in the same run on the same lines: a bare RapidJSON parse (a fresh
// Document per line), libacp's parse alone, parse + decode without applying, and the
// typed path for every line (decode + apply: what the receive path did before the fast
// path, and still does when the host installs on_session_update). Also the heap the model
// holds per byte of text it holds, and peak RSS.
//
//   build/release/bench/acp_bench_session [UPDATES] [ROUNDS] [--only=PHASE]   (default 1,000,000 and 3)
//
// --only=model|parse|bare runs nothing but that phase over the mixed stream, ROUNDS
// times: for a profiler. bench/session_profile.sh counts the instructions of each with
// callgrind (repeatable on a loaded machine, where CPU times are not).
//
// Machines are noisy, so compare ratios; every phase runs ROUNDS times, interleaved, and
// the best time of each is reported (the thread's CPU time, not wall time).
#include <rapidjson/document.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "acp/session.hpp"
#include "client/chunk_line.hpp"
#include "jsonrpc/json.hpp"
#include "jsonrpc/message_parser.hpp"
#include "protocol/v2/codec.hpp"
#include "support/base64.hpp"

namespace {

// The CPU time of this thread: on a machine shared with other work it varies far less
// than wall time, and every phase runs on this one thread.
double thread_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

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
        add(R"({"sessionUpdate":"user_message","messageId":"u)" + t +
            R"(","content":[{"type":"text","text":"Please fix the flaky test in src/net"}]})");
        s.text_bytes += 36;
        for (int i = 0; i < 20; ++i) {
            add(R"({"sessionUpdate":"agent_thought_chunk","messageId":"th)" + t +
                R"(","content":{"type":"text","text":"thinking about step )" + std::to_string(i) + R"( "}})");
            s.text_bytes += 20 + std::to_string(i).size();
        }
        for (int call = 0; call < 3; ++call) {
            const std::string id = "c" + t + "-" + std::to_string(call);
            add(R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id +
                R"(","title":"Run the tests","kind":"execute","status":"pending","rawInput":{"command":"make test"}})");
            add(R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id +
                R"(","status":"in_progress","content":[{"type":"terminal","terminalId":"t)" + id + R"("}]})");
            for (int out = 0; out < 8; ++out) {
                const std::string bytes =
                    "PASS test_" + std::to_string(out) + " (0.0" + std::to_string(out) + "s) \xE2\x9C\x93\n";
                add(R"({"sessionUpdate":"terminal_output_chunk","terminalId":"t)" + id + R"(","data":")" +
                    base64(bytes) + R"("})");
                s.text_bytes += bytes.size();
            }
            add(R"({"sessionUpdate":"tool_call_content_chunk","toolCallId":")" + id +
                R"(","content":{"type":"content","content":{"type":"text","text":"8 passed"}}})");
            add(R"({"sessionUpdate":"tool_call_update","toolCallId":")" + id +
                R"(","status":"completed","rawOutput":{"exitCode":0}})");
        }
        add(R"({"sessionUpdate":"plan_update","plan":{"type":"items","planId":"p)" + t +
            R"(","entries":[{"content":"Reproduce","priority":"high","status":"completed"},{"content":"Fix","priority":"high","status":"in_progress"},{"content":"Verify","priority":"medium","status":"pending"}]}})");
        for (int i = 0; i < 300; ++i) {
            const std::string token = "token " + std::to_string(i) + " of a streamed reply, caf\xC3\xA9 ";
            add(R"({"sessionUpdate":"agent_message_chunk","messageId":"a)" + t +
                R"(","content":{"type":"text","text":")" + token + R"("}})");
            s.text_bytes += token.size();
        }
        add(R"({"sessionUpdate":"usage_update","used":12000,"size":200000})");
        add(R"({"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"})");
    }
    return s;
}

// A flood: one reply after another, each of 10,000 agent_message_chunk tokens.
Stream make_flood(std::size_t count) {
    Stream s;
    s.lines.reserve(count);
    const std::string head = R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":)";
    for (std::size_t i = 0; s.lines.size() < count; ++i) {
        const std::string token = "token " + std::to_string(i % 10000) + " of a flood, caf\xC3\xA9 ";
        s.lines.push_back(head + R"({"sessionUpdate":"agent_message_chunk","messageId":"m)" +
                          std::to_string(i / 10000) + R"(","content":{"type":"text","text":")" + token + R"("}}}})");
        s.json_bytes += s.lines.back().size() + 1;
        s.text_bytes += token.size();
    }
    return s;
}

// One timed pass over every line; returns seconds, or a negative value if a line failed.
template <class PerLine>
double timed_pass(const Stream& stream, PerLine&& per_line) {
    const double start = thread_cpu_seconds();
    for (const auto& line : stream.lines) {
        if (!per_line(line)) return -1.0;
    }
    return thread_cpu_seconds() - start;
}

// The receive path as the Client runs it: the framer hands out a writable NUL-terminated
// line, MessageParser parses it in place, the notification is decoded.
struct ReceivePath {
    acp::detail::MessageParser parser;
    std::vector<char> buffer;
    acp::v2::UpdateSessionNotification notification;

    const acp::detail::JsonValue* parse(const std::string& line) {
        buffer.assign(line.begin(), line.end());
        buffer.push_back('\0');
        return parser.parse(buffer.data(), line.size());
    }
    // What the Client does with a session/update: a line that is a plain text chunk or a
    // terminal output chunk goes into the model from the raw line, unparsed
    // (client/chunk_line.hpp); anything else is parsed and decoded first.
    std::string session_id, item_id;
    bool receive(const std::string& line, acp::SessionStore& store) {
        buffer.assign(line.begin(), line.end());
        buffer.push_back('\0');
        if (std::optional<acp::detail::ChunkLine> chunk = acp::detail::scan_chunk_line(buffer.data(), line.size())) {
            session_id.assign(chunk->session_id);
            item_id.assign(chunk->item_id);
            if (chunk->terminal) return store.apply_terminal_chunk(session_id, item_id, chunk->data()).ok();
            return store.apply_text_chunk(session_id, chunk->kind, item_id, acp::detail::decode_text(*chunk)).ok();
        }
        const acp::detail::JsonValue* message = parser.parse(buffer.data(), line.size());
        if (message == nullptr) return false;
        const acp::detail::JsonValue* params = acp::detail::find_member(*message, "params");
        return params != nullptr && acp::v2::codec::decode(*params, notification).ok() &&
               store.apply(notification).ok();
    }
    bool decode(const std::string& line) {
        const acp::detail::JsonValue* message = parse(line);
        if (message == nullptr) return false;
        const acp::detail::JsonValue* params = acp::detail::find_member(*message, "params");
        return params != nullptr && acp::v2::codec::decode(*params, notification).ok();
    }
};

// SessionStore::apply alone: lines are decoded in untimed batches, then only the applies
// of each batch are timed (a whole decoded stream would not fit the memory comfortably).
double apply_alone(const Stream& stream, ReceivePath& path) {
    constexpr std::size_t kBatch = 10000;
    std::vector<acp::v2::UpdateSessionNotification> batch;
    batch.reserve(kBatch);
    acp::SessionStore store;
    double seconds = 0;
    auto run_batch = [&] {
        const double start = thread_cpu_seconds();
        for (const auto& notification : batch) {
            if (!store.apply(notification).ok()) return false;
        }
        seconds += thread_cpu_seconds() - start;
        batch.clear();
        return true;
    };
    for (const auto& line : stream.lines) {
        if (!path.decode(line)) return -1.0;
        batch.push_back(std::move(path.notification));
        if (batch.size() == kBatch && !run_batch()) return -1.0;
    }
    return run_batch() ? seconds : -1.0;
}

struct Best {
    double bare_parse = 1e30, libacp_parse = 1e30, libacp_decode = 1e30, typed = 1e30, model = 1e30, apply = 1e30;
    std::size_t model_heap = 0, items = 0;
};

// One round of every phase over one stream; false if a line failed.
bool run_round(const Stream& stream, Best& best) {
    // Baseline: bare RapidJSON parse, a fresh default Document per line.
    const double bare = timed_pass(stream, [](const std::string& line) {
        rapidjson::Document document;
        document.Parse(line.c_str(), line.size());
        return !document.HasParseError();
    });

    ReceivePath path;
    const double parse_only = timed_pass(stream, [&](const std::string& line) { return path.parse(line) != nullptr; });
    const double decode_only = timed_pass(stream, [&](const std::string& line) { return path.decode(line); });
    double typed = 0;
    {
        acp::SessionStore store;
        typed = timed_pass(
            stream, [&](const std::string& line) { return path.decode(line) && store.apply(path.notification).ok(); });
    }

    // The model as the Client builds it.
    const std::size_t heap_before = heap_in_use();
    acp::SessionStore store;
    const double whole = timed_pass(stream, [&](const std::string& line) { return path.receive(line, store); });
    const std::size_t heap_after = heap_in_use();
    const double apply_only = apply_alone(stream, path);

    if (bare < 0 || parse_only < 0 || decode_only < 0 || typed < 0 || whole < 0 || apply_only < 0) return false;
    best.bare_parse = std::min(best.bare_parse, bare);
    best.libacp_parse = std::min(best.libacp_parse, parse_only);
    best.libacp_decode = std::min(best.libacp_decode, decode_only);
    best.typed = std::min(best.typed, typed);
    best.model = std::min(best.model, whole);
    best.apply = std::min(best.apply, apply_only);
    if (heap_after > heap_before) best.model_heap = heap_after - heap_before;
    if (const acp::SessionState* session = store.find("sess-1")) best.items = session->items().size();
    return true;
}

void report(const char* name, const Stream& stream, const Best& best, int rounds) {
    const std::size_t n = stream.lines.size();
    const double megabytes = static_cast<double>(stream.json_bytes) / (1024.0 * 1024.0);
    auto row = [&](const char* what, double seconds) {
        std::printf("  %-52s %9.0f upd/s %7.1f MiB/s\n", what, n / seconds, megabytes / seconds);
    };
    std::printf(
        "%s: %zu updates (%.1f MiB of JSON, %.1f MiB of text held), items in the model: %zu, best of %d rounds\n", name,
        n, megabytes, static_cast<double>(stream.text_bytes) / (1024.0 * 1024.0), best.items, rounds);
    row("bare parse (RapidJSON Document per line):", best.bare_parse);
    row("libacp parse (MessageParser, in place):", best.libacp_parse);
    row("libacp parse + decode:", best.libacp_decode);
    row("typed path: parse + decode + apply, every line:", best.typed);
    row("the model: the Client's receive path:", best.model);
    row("apply alone (SessionStore::apply, timed apart):", best.apply);
    std::printf("  ratio whole model path / bare parse:       %.2f\n", best.bare_parse / best.model);
    std::printf("  ratio typed path / bare parse:             %.2f\n", best.bare_parse / best.typed);
    std::printf("  ratio apply alone / bare parse:            %.2f\n", best.bare_parse / best.apply);
    std::printf("  ratio whole model path / libacp parse:     %.2f\n", best.libacp_parse / best.model);
    if (best.model_heap > 0) {
        std::printf("  model heap: %.1f MiB, %.2f bytes per byte of text held\n",
                    static_cast<double>(best.model_heap) / (1024.0 * 1024.0),
                    static_cast<double>(best.model_heap) / static_cast<double>(stream.text_bytes));
    }
}

// One phase alone over the mixed stream (--only=model, --only=parse, --only=bare): for a
// profiler (perf record, valgrind --tool=callgrind), whose samples are then all that phase's.
int run_only(std::size_t count, int rounds, const std::string& phase) {
    const Stream stream = make_stream(count);
    ReceivePath path;
    for (int round = 0; round < rounds; ++round) {
        acp::SessionStore store;
        double seconds = -1;
        if (phase == "model") {
            seconds = timed_pass(stream, [&](const std::string& line) { return path.receive(line, store); });
        } else if (phase == "parse") {
            seconds = timed_pass(stream, [&](const std::string& line) { return path.parse(line) != nullptr; });
        } else if (phase == "bare") {
            seconds = timed_pass(stream, [](const std::string& line) {
                rapidjson::Document document;
                document.Parse(line.c_str(), line.size());
                return !document.HasParseError();
            });
        } else {
            std::fprintf(stderr, "--only=model, parse or bare\n");
            return 2;
        }
        if (seconds < 0) return 1;
        std::printf("mixed, %s: %.0f upd/s\n", phase.c_str(), static_cast<double>(stream.lines.size()) / seconds);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    if (argc > 3 && std::string(argv[3]).rfind("--only=", 0) == 0) return run_only(count, rounds, argv[3] + 7);
    // One stream in memory at a time; the phases of a stream run interleaved, `rounds`
    // times each, and the best time of each counts: other processes on a shared machine
    // then slow every phase alike or not at all.
    struct Kind {
        const char* name;
        Stream (*make)(std::size_t);
    };
    for (const Kind& kind : {Kind{"flood", &make_flood}, Kind{"mixed", &make_stream}}) {
        const Stream stream = kind.make(count);
        Best best;
        for (int round = 0; round < rounds; ++round) {
            if (!run_round(stream, best)) {
                std::fprintf(stderr, "a line failed to parse, decode or apply\n");
                return 1;
            }
        }
        report(kind.name, stream, best, rounds);
    }
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("peak RSS: %.1f MiB (includes the input lines of the larger stream)\n", usage.ru_maxrss / 1024.0);
    return 0;
}
