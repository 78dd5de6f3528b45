// SPDX-License-Identifier: Apache-2.0
// acp-chat's Markdown for the terminal (samples/chat/markdown.hpp): the same screen however
// the reply is cut into chunks, only our own colours added, the held line bounded.
#include <doctest/doctest.h>

#include <string>

#include "../../samples/chat/markdown.hpp"

using chat::MarkdownStream;

namespace {

const std::string kReply =
    "# Title\n"
    "Some **bold** and `code`.\n"
    "- item one\n"
    "  - nested item\n"
    "```sh\n"
    "echo *not emphasis*\n"
    "```\n"
    "[a link](https://example.com) done";

std::string render_whole(const std::string& text, bool color) {
    MarkdownStream stream(color);
    std::string out;
    stream.feed(text, out);
    stream.flush(out);
    return out;
}

}  // namespace

TEST_CASE("markdown: headings, emphasis, lists, fenced code and links without colours") {
    CHECK(render_whole(kReply, false) ==
          "# Title\n"
          "Some bold and code.\n"
          "\xe2\x80\xa2 item one\n"
          "  \xe2\x80\xa2 nested item\n"
          "  echo *not emphasis*\n"
          "a link (https://example.com) done");
}

TEST_CASE("markdown: with colours, only SGR sequences are added") {
    const std::string out = render_whole(kReply, true);
    CHECK(out.find("\x1b[0;1mbold") != std::string::npos);
    CHECK(out.find("  \x1b[36mecho *not emphasis*\x1b[0m") != std::string::npos);
    for (std::size_t at = out.find('\x1b'); at != std::string::npos; at = out.find('\x1b', at + 1)) {
        const std::size_t end = out.find('m', at);
        REQUIRE(end != std::string::npos);
        CHECK(out.compare(at, 2, "\x1b[") == 0);
        CHECK(out.find_first_not_of("0123456789;", at + 2) == end);
    }
}

TEST_CASE("markdown: the screen is the same however the reply is cut into chunks") {
    const std::string whole = render_whole(kReply, true);
    for (std::size_t cut = 0; cut <= kReply.size(); ++cut) {
        MarkdownStream stream(true);
        std::string out;
        stream.feed(kReply.substr(0, cut), out);
        stream.feed(kReply.substr(cut), out);
        stream.flush(out);
        CHECK_MESSAGE(out == whole, "cut at " << cut);
    }
}

TEST_CASE("markdown: a completed line is printed at once, the line still arriving is held") {
    MarkdownStream stream(false);
    std::string out;
    stream.feed("**one**\ntw", out);
    CHECK(out == "one\n");
    stream.feed("o\n", out);
    CHECK(out == "one\ntwo\n");
}

TEST_CASE("markdown: a line without end is not held beyond 64 KiB") {
    MarkdownStream stream(false);
    std::string out;
    const std::string chunk(1024, 'x');
    for (int i = 0; i < 100; ++i) stream.feed(chunk, out);
    // Printed as it came once it passed the bound, and from then on until its newline.
    CHECK(out.size() >= 64u * 1024u);
    CHECK(out.size() == 100u * 1024u);
    stream.feed("*end*\n", out);
    CHECK(out.substr(out.size() - 6) == "*end*\n");
    stream.feed("*next*\n", out);
    CHECK(out.substr(out.size() - 5) == "next\n");
}
