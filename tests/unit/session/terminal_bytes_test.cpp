// SPDX-License-Identifier: Apache-2.0
// Terminal output decoding: base64 per chunk and UTF-8 across chunk boundaries.
#include <doctest/doctest.h>

#include <string>

#include "session/terminal_bytes.hpp"

using acp::detail::base64_decode_append;
using acp::detail::utf8_decode_append;

TEST_CASE("terminal bytes: base64 decodes with and without padding") {
    std::string out;
    CHECK(base64_decode_append("aGk=", out));
    CHECK(base64_decode_append("aGk", out));
    CHECK(base64_decode_append("", out));
    CHECK(out == "hihi");
}

TEST_CASE("terminal bytes: text that is not base64 is refused and appends nothing") {
    std::string out = "x";
    CHECK_FALSE(base64_decode_append("a*b=", out));
    CHECK_FALSE(base64_decode_append("a", out));
    CHECK_FALSE(base64_decode_append("aGk===", out));
    CHECK(out == "x");
}

TEST_CASE("terminal bytes: UTF-8 decodes the same however the bytes are split") {
    // CLIENT-MUST-54
    const std::string bytes = "a\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xFF z \xE2\x82 q \xED\xA0\x80";
    std::string whole_pending;
    std::string whole;
    utf8_decode_append(bytes, whole_pending, whole);
    CHECK(whole_pending.empty());
    for (std::size_t step = 1; step <= 5; ++step) {
        std::string pending;
        std::string text;
        for (std::size_t i = 0; i < bytes.size(); i += step) utf8_decode_append(bytes.substr(i, step), pending, text);
        CHECK(pending.empty());
        CHECK(text == whole);
    }
    CHECK(whole ==
          "a\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBD z \xEF\xBF\xBD q \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("terminal bytes: an incomplete sequence at the end waits for the next chunk") {
    std::string pending;
    std::string text;
    utf8_decode_append("x\xF0\x9F", pending, text);
    CHECK(text == "x");
    CHECK(pending == "\xF0\x9F");
    utf8_decode_append("\x98", pending, text);
    CHECK(text == "x");
    utf8_decode_append("\x80!", pending, text);
    CHECK(text == "x\xF0\x9F\x98\x80!");
    CHECK(pending.empty());
}

TEST_CASE("terminal bytes: base64 encodes with padding, and decodes back") {
    using acp::detail::base64_encode;
    CHECK(base64_encode("") == "");
    CHECK(base64_encode("f") == "Zg==");
    CHECK(base64_encode("fo") == "Zm8=");
    CHECK(base64_encode("foobar") == "Zm9vYmFy");
    const std::string bytes("\x00\xff\xe2\x9c\x93 ok\r\n", 9);
    std::string back;
    REQUIRE(base64_decode_append(base64_encode(bytes), back));
    CHECK(back == bytes);
}
