// SPDX-License-Identifier: Apache-2.0
// acp-chat's word wrapping of streamed agent text (samples/chat/wrap.hpp).
#include <doctest/doctest.h>

#include <clocale>
#include <string>

#include "../../samples/chat/wrap.hpp"

namespace {

std::string wrapped(std::initializer_list<const char*> chunks, std::size_t width) {
    chat::Wrapper wrap;
    std::string out;
    for (const char* chunk : chunks) wrap.feed(chunk, width, out);
    wrap.flush(out);
    return out;
}

}  // namespace

TEST_CASE("wrap: lines break between words at the width, also when a word is split across chunks") {
    CHECK(wrapped({"one two three four"}, 9) == "one two\nthree\nfour");
    CHECK(wrapped({"one tw", "o thr", "ee four"}, 9) == "one two\nthree\nfour");
    CHECK(wrapped({"one two\nthree four"}, 9) == "one two\nthree\nfour");
}

TEST_CASE("wrap: colours take no columns, a word longer than a line is left whole") {
    CHECK(wrapped({"\x1b[1mbold\x1b[0m text here"}, 9) == "\x1b[1mbold\x1b[0m text\nhere");
    // The terminal breaks the long word; what follows goes on after its last row.
    CHECK(wrapped({"a verylongword b"}, 5) == "a\nverylongword b");
    // Not held whole: what is past a line's width is out before the word ends.
    chat::Wrapper wrap;
    std::string out;
    wrap.feed(std::string(1000, 'x'), 60, out);
    CHECK(out.size() >= 940);
}

TEST_CASE("wrap: width 0 leaves the text as it is, wide characters count two columns") {
    CHECK(wrapped({"one two three four"}, 0) == "one two three four");
    REQUIRE(std::setlocale(LC_CTYPE, "C.UTF-8") != nullptr);  // as acp-chat's main() ensures
    CHECK(wrapped({"ab \xe3\x81\x82\xe3\x81\x82 cd"}, 6) == "ab\n\xe3\x81\x82\xe3\x81\x82\ncd");
}
