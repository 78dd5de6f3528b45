// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "transport/line_framer.hpp"

using acp::detail::LineFramer;
using acp::detail::LineSink;

namespace {

struct CollectingSink : LineSink {
    std::vector<std::string> lines;
    std::vector<std::pair<std::string, std::size_t>> oversized;

    void on_line(char* line, std::size_t size) override {
        CHECK(line[size] == '\0');  // handed out NUL-terminated for in-place parsing
        lines.emplace_back(line, size);
    }
    void on_oversized_line(std::string_view head, std::size_t total_size) override {
        oversized.emplace_back(std::string(head), total_size);
    }
};

void feed(LineFramer& framer, const std::string& bytes, LineSink& sink) {
    std::string copy = bytes;  // the framer writes into the buffer it is given
    framer.feed(&copy[0], copy.size(), sink);
}

}  // namespace

TEST_CASE("framer: every split point of a multi-message buffer yields the same lines") {
    // The reading side of one message per line: any read boundary yields the same lines.
    // (CLIENT-MUST-01 binds what the client writes: client_untrusted_test checks that.)
    const std::string stream = "{\"a\":1}\n{\"b\":\"two\"}\r\n\n{\"c\":[3]}\n\r\n{\"d\":4}\n";
    const std::vector<std::string> expected = {"{\"a\":1}", "{\"b\":\"two\"}", "{\"c\":[3]}", "{\"d\":4}"};
    for (std::size_t first = 0; first <= stream.size(); ++first) {
        for (std::size_t second = first; second <= stream.size(); ++second) {
            LineFramer framer(1024);
            CollectingSink sink;
            feed(framer, stream.substr(0, first), sink);
            feed(framer, stream.substr(first, second - first), sink);
            feed(framer, stream.substr(second), sink);
            INFO("split at " << first << " and " << second);
            CHECK(sink.lines == expected);
            CHECK(sink.oversized.empty());
            CHECK(framer.buffered_bytes() == 0);
        }
    }
}

TEST_CASE("framer: one byte at a time") {
    const std::string stream = "{\"x\":\"\xC3\xA9\"}\r\n{}\n";
    LineFramer framer(64);
    CollectingSink sink;
    for (char c : stream) feed(framer, std::string(1, c), sink);
    CHECK(sink.lines == std::vector<std::string>{"{\"x\":\"\xC3\xA9\"}", "{}"});
}

TEST_CASE("framer: a line over the limit inside one read is skipped and reported, the next survives") {
    LineFramer framer(16);
    CollectingSink sink;
    const std::string big = "{\"id\":7,\"result\":\"" + std::string(100, 'x') + "\"}";
    feed(framer, "{\"ok\":1}\n" + big + "\n{\"ok\":2}\n", sink);
    CHECK(sink.lines == std::vector<std::string>{"{\"ok\":1}", "{\"ok\":2}"});
    REQUIRE(sink.oversized.size() == 1);
    CHECK(sink.oversized[0].second == big.size());
    CHECK(sink.oversized[0].first.rfind("{\"id\":7", 0) == 0);  // the head starts the line
}

TEST_CASE("framer: an oversized line across many reads is never buffered whole") {
    LineFramer framer(1024);
    CollectingSink sink;
    feed(framer, "{\"before\":true}\n{\"id\":3,", sink);
    std::size_t total = std::string("{\"id\":3,").size();
    for (int i = 0; i < 1000; ++i) {
        const std::string chunk(4096, 'y');
        feed(framer, chunk, sink);
        total += chunk.size();
        // Only the head is kept while skipping.
        CHECK(framer.buffered_bytes() <= LineFramer::kOversizedHeadBytes);
    }
    feed(framer, "\n{\"after\":true}\n", sink);
    CHECK(sink.lines == std::vector<std::string>{"{\"before\":true}", "{\"after\":true}"});
    REQUIRE(sink.oversized.size() == 1);
    CHECK(sink.oversized[0].second == total);
    CHECK(sink.oversized[0].first.rfind("{\"id\":3,", 0) == 0);
}

TEST_CASE("framer: a line exactly at the limit passes, with or without CR") {
    LineFramer framer(8);
    CollectingSink sink;
    feed(framer, "12345678\n12345678\r\n123456789\n", sink);
    CHECK(sink.lines == std::vector<std::string>{"12345678", "12345678"});
    REQUIRE(sink.oversized.size() == 1);
    CHECK(sink.oversized[0].second == 9);
}

TEST_CASE("framer: invalid UTF-8 is passed through untouched for the parser to reject") {
    LineFramer framer(64);
    CollectingSink sink;
    const std::string bad = "{\"t\":\"\xFF\xFE\xC3\"}";
    feed(framer, bad + "\n", sink);
    CHECK(sink.lines == std::vector<std::string>{bad});
}

TEST_CASE("framer: a last line without newline is delivered at end of stream") {
    LineFramer framer(64);
    CollectingSink sink;
    feed(framer, "{\"a\":1}\n{\"b\":", sink);
    feed(framer, "2}", sink);
    CHECK(sink.lines.size() == 1);
    framer.finish(sink);
    CHECK(sink.lines == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"});
}

TEST_CASE("framer: stops handing out lines when the sink asks") {
    struct StoppingSink : CollectingSink {
        bool stopped() const override { return lines.size() >= 1; }
    } sink;
    LineFramer framer(64);
    feed(framer, "{\"a\":1}\n{\"b\":2}\n", sink);
    CHECK(sink.lines == std::vector<std::string>{"{\"a\":1}"});
}
