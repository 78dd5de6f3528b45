// SPDX-License-Identifier: Apache-2.0
// libacp's one UTF-8 module (support/utf8.hpp). Validation must accept and refuse exactly
// what RapidJSON's UTF-8 validator does (the parser relies on it instead of RapidJSON's
// slower per-string flag), at any offset from the 16-byte ASCII blocks it skips; decoding,
// repair and the chunk-boundary helpers follow Unicode's maximal-subpart rule.
#include <doctest/doctest.h>
#include <rapidjson/encodings.h>
#include <rapidjson/stream.h>
#include <rapidjson/stringbuffer.h>

#include <random>
#include <string>

#include "support/utf8.hpp"
#include "support/utf8_check.hpp"

using namespace acp::detail;

namespace {
std::size_t first_invalid_utf8(const char* data, std::size_t size) { return utf8_valid_prefix({data, size}); }
}  // namespace

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

TEST_CASE("utf8: random bytes near every boundary agree with RapidJSON's validator") {
    std::mt19937 random(1903);
    const unsigned char interesting[] = {'a',  '"',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                         0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
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

TEST_CASE("utf8: the offset names the first bad byte, and valid text of every length passes") {
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

TEST_CASE("utf8: decode takes one code point, or the maximal invalid subpart as U+FFFD") {
    struct Case {
        std::string bytes;
        char32_t code;
        std::size_t length;
        bool valid;
        bool truncated;
    };
    const Case cases[] = {
        {"A", U'A', 1, true, false},
        {"\xC3\xA9", 0xE9, 2, true, false},
        {"\xE2\x82\xAC", 0x20AC, 3, true, false},
        {"\xF0\x9F\x98\x80", 0x1F600, 4, true, false},
        {"\xF4\x8F\xBF\xBF", 0x10FFFF, 4, true, false},
        {"\xED\x9F\xBF", 0xD7FF, 3, true, false},
        {"\xEE\x80\x80", 0xE000, 3, true, false},
        // Overlongs: C0/C1 never start anything; E0 and F0 need a high enough second byte.
        {"\xC0\xAF", 0xFFFD, 1, false, false},
        {"\xC1\xBF", 0xFFFD, 1, false, false},
        {"\xE0\x80\xAF", 0xFFFD, 1, false, false},
        {"\xF0\x8F\xBF\xBF", 0xFFFD, 1, false, false},
        // Surrogates D800..DFFF (ED A0..BF) are no characters.
        {"\xED\xA0\x80", 0xFFFD, 1, false, false},
        {"\xED\xBF\xBF", 0xFFFD, 1, false, false},
        // Above U+10FFFF.
        {"\xF4\x90\x80\x80", 0xFFFD, 1, false, false},
        {"\xF5\x80\x80\x80", 0xFFFD, 1, false, false},
        {"\xFF", 0xFFFD, 1, false, false},
        {"\x80", 0xFFFD, 1, false, false},
        // A valid start broken off by another byte: the start is one subpart.
        {"\xE2\x82"
         "A",
         0xFFFD, 2, false, false},
        {"\xF0\x9F\x98"
         "A",
         0xFFFD, 3, false, false},
        // Cut off by the end.
        {"\xE2\x82", 0xFFFD, 2, false, true},
        {"\xF0\x9F\x98", 0xFFFD, 3, false, true},
        {"\xC3", 0xFFFD, 1, false, true},
    };
    for (const Case& c : cases) {
        const Utf8Step step = utf8_decode(c.bytes);
        CAPTURE(c.bytes);
        CHECK(step.code == c.code);
        CHECK(step.length == c.length);
        CHECK(step.valid == c.valid);
        CHECK(step.truncated == c.truncated);
    }
}

TEST_CASE("utf8: repair replaces each maximal invalid subpart with one U+FFFD and keeps the rest") {
    const auto repaired = [](std::string_view bytes) {
        std::string out;
        utf8_append_repaired(bytes, out);
        return out;
    };
    CHECK(repaired("caf\xC3\xA9") == "caf\xC3\xA9");
    CHECK(repaired("a\xFF"
                   "b") ==
          "a\xEF\xBF\xBD"
          "b");
    CHECK(repaired("\xE2\x82"
                   "A") ==
          "\xEF\xBF\xBD"
          "A");                                                                 // one, not two
    CHECK(repaired("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate: three
    CHECK(repaired("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");
    CHECK(repaired("ok\xF0\x9F\x98") == "ok\xEF\xBF\xBD");  // a truncated tail
    std::mt19937 random(28);
    for (int round = 0; round < 20000; ++round) {
        std::string bytes(random() % 40, '\0');
        for (char& byte : bytes) byte = static_cast<char>(random() % 3 == 0 ? random() % 256 : 'a' + random() % 26);
        const std::string out = repaired(bytes);
        REQUIRE(acp::test::is_valid_utf8(out));
        if (acp::test::is_valid_utf8(bytes)) REQUIRE(out == bytes);
    }
}

TEST_CASE("utf8: the incomplete tail is what a later chunk could still complete") {
    CHECK(utf8_incomplete_tail("") == 0);
    CHECK(utf8_incomplete_tail("abc") == 0);
    CHECK(utf8_incomplete_tail("ab\xC3") == 1);
    CHECK(utf8_incomplete_tail("ab\xE2\x82") == 2);
    CHECK(utf8_incomplete_tail("\xF0\x9F\x98") == 3);
    CHECK(utf8_incomplete_tail("\xF0\x9F\x98\x80") == 0);  // complete
    CHECK(utf8_incomplete_tail("\xED\xA0") == 0);          // a surrogate never completes
    CHECK(utf8_incomplete_tail("\xE0\x80") == 0);          // nor an overlong
    CHECK(utf8_incomplete_tail("\x80\x80\x80") == 0);
    CHECK(utf8_incomplete_tail("\xF5") == 0);
}

TEST_CASE("utf8: truncation never ends inside a character") {
    const std::string text =
        "ab\xE2\x82\xAC"
        "cd";
    CHECK(utf8_truncate(text, 100) == text);
    CHECK(utf8_truncate(text, 2) == "ab");
    CHECK(utf8_truncate(text, 3) == "ab");
    CHECK(utf8_truncate(text, 4) == "ab");
    CHECK(utf8_truncate(text, 5) == "ab\xE2\x82\xAC");
    CHECK(utf8_truncate("\x80\x80\x80", 2).empty());
}

TEST_CASE("utf8: encoding round-trips through decoding at every length boundary") {
    for (char32_t code : {0x0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xD7FFu, 0xE000u, 0xFFFFu, 0x10000u, 0x10FFFFu}) {
        char buffer[4];
        const char* end = utf8_encode(code, buffer);
        const Utf8Step step = utf8_decode(std::string_view(buffer, static_cast<std::size_t>(end - buffer)));
        CAPTURE(static_cast<unsigned>(code));
        CHECK(step.valid);
        CHECK(step.code == code);
        CHECK(step.length == static_cast<std::size_t>(end - buffer));
    }
}
