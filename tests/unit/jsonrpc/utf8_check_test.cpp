// SPDX-License-Identifier: Apache-2.0
// The whole-line UTF-8 check that replaced RapidJSON's per-string validation must accept
// and refuse exactly what RapidJSON's UTF-8 validator does, at any offset from the 16-byte
// ASCII blocks it skips; and the parser must still refuse invalid UTF-8 in its words.
#include <doctest/doctest.h>
#include <rapidjson/encodings.h>
#include <rapidjson/stream.h>
#include <rapidjson/stringbuffer.h>

#include <random>
#include <string>

#include "jsonrpc/message_parser.hpp"
#include "jsonrpc/utf8_check.hpp"

using acp::detail::first_invalid_utf8;

namespace {

// RapidJSON's own verdict, sequence by sequence. Its validator takes every byte a lead
// byte announces before judging them, so a sequence cut at the end reads up to three bytes
// past it: NUL padding keeps that inside the buffer (NUL is no continuation byte, so the
// verdict is the one a terminated string gets).
bool rapidjson_valid(const std::string& text) {
    const std::string padded = text + std::string(4, '\0');
    rapidjson::StringStream in(padded.c_str());
    rapidjson::StringBuffer out;
    while (in.Tell() < text.size()) {
        if (!rapidjson::UTF8<>::Validate(in, out)) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("utf8 check: random bytes near every boundary agree with RapidJSON's validator") {
    std::mt19937 random(1903);
    const unsigned char interesting[] = {'a',  '"',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                         0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
    for (int round = 0; round < 200000; ++round) {
        std::string text(random() % 24, 'x');  // an ASCII run before, to cross the 16-byte blocks
        const std::size_t tail = random() % 8;
        for (std::size_t i = 0; i < tail; ++i) {
            text += static_cast<char>(interesting[random() % sizeof interesting]);
        }
        text += std::string(random() % 20, 'y');
        const bool valid = first_invalid_utf8(text.data(), text.size()) == text.size();
        REQUIRE_MESSAGE(valid == rapidjson_valid(text), "bytes: " << text);
    }
}

TEST_CASE("utf8 check: the offset names the first bad byte, and valid text of every length passes") {
    const std::string ascii(40, 'a');
    for (std::size_t at = 0; at < 40; ++at) {
        std::string text = ascii;
        text[at] = static_cast<char>(0xFF);
        CHECK(first_invalid_utf8(text.data(), text.size()) == at);
        const std::string cut = ascii.substr(0, at) + "\xE2\x9C";  // a sequence cut by the end
        CHECK(first_invalid_utf8(cut.data(), cut.size()) == at);
        const std::string whole = ascii.substr(0, at) + "caf\xC3\xA9 \xF0\x9F\x98\x80 \xE2\x9C\x93";
        CHECK(first_invalid_utf8(whole.data(), whole.size()) == whole.size());
    }
}

TEST_CASE("utf8 check: the parser refuses invalid UTF-8 anywhere in the line, in RapidJSON's words") {
    acp::detail::MessageParser parser;
    for (std::string line : {std::string("{\"t\":\"\xFF\xFE\"}"), std::string("{\"t\":\"ok\",\"k\xC0\xAF\":1}"),
                             std::string("{\"t\":\"\xED\xA0\x80\"}")}) {
        CHECK(parser.parse(line.data(), line.size()) == nullptr);
        CHECK(parser.error().find("Invalid encoding in string.") == 0);
    }
    std::string fine = "{\"t\":\"caf\xC3\xA9\"}";
    CHECK(parser.parse(fine.data(), fine.size()) != nullptr);
}
