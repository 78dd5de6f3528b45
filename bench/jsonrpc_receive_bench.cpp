// SPDX-License-Identifier: Apache-2.0
// Benchmark: the receive hot path (framing + in-place, arena-backed parsing) against a
// baseline measured in the same run: plain RapidJSON Document::Parse of the same lines
// (its default allocators, a fresh document per line, lines already split).
//
//   build/bench/acp_bench_jsonrpc [MESSAGES]     (default 1,000,000)
//
// Prints throughput for both and the ratio; machines are noisy, so compare ratios.
#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "jsonrpc/message_parser.hpp"
#include "transport/line_framer.hpp"

using namespace acp::detail;
using Clock = std::chrono::steady_clock;

namespace {

// A stream of realistic session/update notifications: mostly small text chunks.
std::string make_stream(std::size_t messages) {
    std::string stream;
    for (std::size_t i = 0; i < messages; ++i) {
        stream +=
            R"({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m)";
        stream += std::to_string(i / 50);
        stream += R"(","content":{"type":"text","text":"token )" + std::to_string(i) +
                  R"( of a streamed reply \u00e9\n"}}}})";
        stream += '\n';
    }
    return stream;
}

struct CountingSink : LineSink {
    MessageParser parser;
    std::size_t parsed = 0;
    void on_line(char* line, std::size_t size) override {
        if (parser.parse(line, size) != nullptr) ++parsed;
    }
    void on_oversized_line(std::string_view, std::size_t) override {}
};

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

int main(int argc, char** argv) {
    const std::size_t messages = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
    const std::string stream = make_stream(messages);
    const double megabytes = static_cast<double>(stream.size()) / (1024.0 * 1024.0);

    // Baseline: split lines up front, then parse each with a fresh default Document.
    std::vector<std::string> lines;
    lines.reserve(messages);
    for (std::size_t pos = 0; pos < stream.size();) {
        std::size_t end = stream.find('\n', pos);
        lines.emplace_back(stream, pos, end - pos);
        pos = end + 1;
    }
    auto start = Clock::now();
    std::size_t baseline_parsed = 0;
    for (const auto& line : lines) {
        rapidjson::Document document;
        document.Parse(line.c_str(), line.size());
        if (!document.HasParseError()) ++baseline_parsed;
    }
    const double baseline = seconds_since(start);

    // libacp: the framer over 64 KiB reads, each line parsed in place with validation.
    std::string copy = stream;
    LineFramer framer;
    CountingSink sink;
    start = Clock::now();
    for (std::size_t pos = 0; pos < copy.size(); pos += 65536) {
        framer.feed(&copy[pos], std::min<std::size_t>(65536, copy.size() - pos), sink);
    }
    const double ours = seconds_since(start);

    if (sink.parsed != messages || baseline_parsed != messages) {
        std::fprintf(stderr, "parsed %zu / %zu of %zu messages\n", sink.parsed, baseline_parsed, messages);
        return 1;
    }
    std::printf("messages: %zu (%.1f MiB)\n", messages, megabytes);
    std::printf("baseline  RapidJSON Parse per line:        %8.0f msg/s %7.1f MiB/s\n", messages / baseline,
                megabytes / baseline);
    std::printf("libacp    framing + in-place arena parse:  %8.0f msg/s %7.1f MiB/s\n", messages / ours,
                megabytes / ours);
    std::printf("ratio     libacp / baseline throughput:    %.2f\n", baseline / ours);
    return 0;
}
