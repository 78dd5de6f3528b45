// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/sse_parser.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using acp::detail::SseParser;
using acp::detail::SseSink;

namespace {

struct Events : SseSink {
    std::vector<std::string> done;
    std::string current;
    void on_sse_data(const char* data, std::size_t size) override { current.append(data, size); }
    void on_sse_event_end() override {
        done.push_back(current);
        current.clear();
    }
};

std::vector<std::string> parse_whole(const std::string& stream) {
    SseParser parser;
    Events events;
    parser.feed(stream.data(), stream.size(), events);
    parser.finish(events);
    return events.done;
}

}  // namespace

TEST_CASE("sse: data events with every line ending while comments and other fields are skipped") {
    const std::string stream =
        ":keep-alive\n\n"
        "data: {\"a\":1}\n\n"
        "event: message\r\nid: 7\r\ndata:{\"b\":2}\r\n\r\n"
        "retry: 10\rdata: {\"c\":3}\r\r";
    CHECK(parse_whole(stream) == std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"});
}

TEST_CASE("sse: several data lines make one event joined by a tab (JSON whitespace)") {
    CHECK(parse_whole("data: {\"a\":\ndata: 1}\n\n") == std::vector<std::string>{"{\"a\":\t1}"});
    // Only one space after the colon is the separator's.
    CHECK(parse_whole("data:  x\n\n") == std::vector<std::string>{" x"});
    CHECK(parse_whole("data\n\n") == std::vector<std::string>{""});
}

TEST_CASE("sse: split anywhere between reads the events are the same") {
    const std::string stream =
        "\xEF\xBB\xBF"
        "data: {\"text\":\"h\xC3\xA9llo\"}\r\n\r\n: ping\n\ndata: {\"n\":2}\n\n";
    const auto whole = parse_whole(stream);
    REQUIRE(whole == std::vector<std::string>{"{\"text\":\"h\xC3\xA9llo\"}", "{\"n\":2}"});
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        CAPTURE(cut);
        SseParser parser;
        Events events;
        parser.feed(stream.data(), cut, events);
        parser.feed(stream.data() + cut, stream.size() - cut, events);
        parser.finish(events);
        CHECK(events.done == whole);
    }
    // A byte at a time.
    SseParser parser;
    Events events;
    for (char c : stream) parser.feed(&c, 1, events);
    parser.finish(events);
    CHECK(events.done == whole);
}

TEST_CASE("sse: an event cut off by the end of the stream is still reported and a blank stream reports nothing") {
    CHECK(parse_whole("data: {\"last\":true}") == std::vector<std::string>{"{\"last\":true}"});
    CHECK(parse_whole("\n\n\n: only comments\n").empty());
}

TEST_CASE("sse: a long field name is skipped and not buffered") {
    std::string stream(100000, 'd');
    stream += ": x\ndata: y\n\n";
    CHECK(parse_whole(stream) == std::vector<std::string>{"y"});
}
