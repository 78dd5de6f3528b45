// SPDX-License-Identifier: Apache-2.0
// acp-chat's sanitiser (samples/chat/sanitize.hpp): what an agent sends can never reach the
// terminal as a control, also when a sequence is split across the chunks of a stream.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../../samples/chat/sanitize.hpp"

using chat::Lines;
using chat::sanitize;
using chat::sanitize_lines;
using chat::Sanitizer;

namespace {

// The stream cut at every possible place into two pieces, and byte by byte: always the same.
void check_every_split(const std::string& stream, const std::string& expected, Lines lines = Lines::keep) {
    CHECK((lines == Lines::keep ? sanitize_lines(stream) : sanitize(stream)) == expected);
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        Sanitizer s(lines);
        std::string out = s.feed(stream.substr(0, cut));
        out += s.feed(stream.substr(cut));
        CHECK_MESSAGE(out == expected, "cut at " << cut);
    }
    Sanitizer s(lines);
    std::string out;
    for (char c : stream) s.feed(std::string_view(&c, 1), out);
    CHECK(out == expected);
}

}  // namespace

TEST_CASE("sanitiser: text, newline, tab and UTF-8 pass") {
    check_every_split("plain\ttext\nnext line: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                      "plain\ttext\nnext line: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST_CASE("sanitiser: C0 controls, carriage return and DEL are dropped") {
    check_every_split(std::string("a\x00"
                                  "b\x07"
                                  "c\x08"
                                  "d\re\x7f"
                                  "f\x1a",
                                  12),
                      "abcdef");
}

TEST_CASE("sanitiser: CSI and other escape sequences are dropped whole") {
    check_every_split(
        "a\x1b[2J\x1b[H\x1b[1;31mb\x1b[0mc\x1b"
        "cd\x1b(Be\x1b[?1049hf",
        "abcdef");
}

TEST_CASE("sanitiser: OSC 52 clipboard and window title strings are dropped up to their terminator") {
    check_every_split(
        "a\x1b]52;c;cm0gLXJmIH4=\x07"
        "b\x1b]0;pwned\x1b\\c\x1b]2;title\xc2\x9c"
        "d",
        "abcd");
    // DCS, APC and PM strings too, with ESC inside them not ending them.
    check_every_split(
        "a\x1bPq#0\x1b[2J\x1b\\b\x1b_app\x07"
        "c\x1b^pm\x1b\\d",
        "abcd");
}

TEST_CASE("sanitiser: C1 controls and 8-bit introducers (as UTF-8) are dropped with their sequences") {
    // U+009B is CSI, U+009D OSC, U+0085 NEL: none reaches the terminal.
    check_every_split(
        "a\xc2\x9b"
        "2Jb\xc2\x9d"
        "0;title\x07"
        "c\xc2\x85"
        "d\xc2\x90q\xc2\x9c"
        "e",
        "abcde");
}

TEST_CASE("sanitiser: bytes that are not UTF-8 are dropped") {
    // A raw 8-bit CSI byte, a lone continuation byte, an overlong ESC, a truncated character.
    check_every_split(
        "a\x9b"
        "2Jb\x80"
        "c\xc0\x9b"
        "d\xe2\x82"
        "e",
        "a2Jbcde");
}

TEST_CASE("sanitiser: an unterminated string swallows what follows, and reset ends it") {
    Sanitizer s(Lines::keep);
    CHECK(s.feed("a\x1b]52;c;") == "a");
    CHECK(s.feed("more\n") == "");
    s.reset();
    CHECK(s.feed("b\n") == "b\n");
}

TEST_CASE("sanitiser: one line shows every line break escaped, so nothing starts a line of its own") {
    // LF, CR, VT, FF, NEL (U+0085), LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029):
    // what a title, an option name or a notice could use to print a line that looks like
    // acp-chat's own ("-> Reject", "permission: ...", "the agent exited").
    check_every_split(
        "Allow\n-> Reject\r\nthe agent exited\x0b"
        "a\x0c"
        "b\xc2\x85"
        "c\xe2\x80\xa8"
        "d\xe2\x80\xa9"
        "e",
        "Allow\\n-> Reject\\r\\nthe agent exited\\va\\fb\\u0085c\\u2028d\\u2029e", Lines::escape);
    // The same text printed as lines keeps the newline only (and U+2028/2029, which no
    // terminal breaks a line at).
    check_every_split(
        "Allow\n-> Reject\r\nthe agent exited\x0b"
        "a\x0c"
        "b\xc2\x85"
        "c\xe2\x80\xa8"
        "d",
        "Allow\n-> Reject\nthe agent exitedabc\xe2\x80\xa8"
        "d",
        Lines::keep);
    // A break right after an escape sequence, or ending one, is still shown.
    check_every_split("a\x1b[31\nb\x1b\nc", "a\\nb\\nc", Lines::escape);
    // Everything else is as in a line: sequences dropped, tab and UTF-8 kept.
    check_every_split("t\x1b]0;pwned\x07\tcaf\xc3\xa9", "t\tcaf\xc3\xa9", Lines::escape);
    CHECK(sanitize("a\nb") == "a\\nb");
    CHECK(sanitize_lines("a\nb") == "a\nb");
}
