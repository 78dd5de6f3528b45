// SPDX-License-Identifier: Apache-2.0
// MessageParser: lone UTF-16 surrogate escapes never drop a message and never put
// invalid UTF-8 into the document; string edges that lost half of a pair are reported.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "jsonrpc/lone_surrogates.hpp"
#include "jsonrpc/message_parser.hpp"
#include "support/utf8_check.hpp"

using namespace acp::detail;
using acp::test::is_valid_utf8;

namespace {

const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD

struct Parsed {
    MessageParser parser;
    std::vector<char> buffer;
    const JsonValue* value = nullptr;

    explicit Parsed(const std::string& line) {
        buffer.assign(line.begin(), line.end());
        buffer.push_back('\0');
        value = parser.parse(buffer.data(), line.size());
    }
    std::string text(const char* key) const {
        const JsonValue* member = find_member(*value, key);
        REQUIRE(member != nullptr);
        REQUIRE(member->IsString());
        return std::string(string_view_of(*member));
    }
    const StringEdgeSurrogates* edges(const char* key) const {
        return parser.edge_surrogates(*find_member(*value, key));
    }
};

}  // namespace

TEST_CASE("a valid surrogate pair decodes to its character and reports no edge") {
    Parsed parsed(R"({"t":"a\uD83D\uDE00b"})");
    REQUIRE(parsed.value != nullptr);
    CHECK(parsed.text("t") ==
          "a\xF0\x9F\x98\x80"
          "b");
    CHECK(parsed.edges("t") == nullptr);
}

TEST_CASE("a lone high surrogate inside a string becomes U+FFFD instead of failing the message") {
    Parsed parsed(R"({"t":"a\uD83Db","u":"\ud800x"})");
    REQUIRE(parsed.value != nullptr);
    CHECK(parsed.text("t") == "a" + replacement + "b");
    CHECK(parsed.text("u") == replacement + "x");
    CHECK(parsed.edges("t") == nullptr);
    CHECK(parsed.edges("u") == nullptr);  // a high surrogate at the start joins nothing
}

TEST_CASE("a lone low surrogate becomes U+FFFD, not the invalid UTF-8 RapidJSON would write") {
    Parsed parsed(R"({"t":"x\uDE00y"})");
    REQUIRE(parsed.value != nullptr);
    CHECK(parsed.text("t") == "x" + replacement + "y");
    CHECK(is_valid_utf8(parsed.text("t")));
}

TEST_CASE("a high surrogate ending a string and a low one starting it are reported as edges") {
    Parsed parsed(R"({"end":"hi \uD83D","start":"\uDE00 there","both":"\uDE01\uD83E","mid":"\uD83D\uD83D"})");
    REQUIRE(parsed.value != nullptr);
    CHECK(parsed.text("end") == "hi " + replacement);
    const StringEdgeSurrogates* end = parsed.edges("end");
    REQUIRE(end != nullptr);
    CHECK(end->trailing_high == 0xD83D);
    CHECK(end->leading_low == 0);

    CHECK(parsed.text("start") == replacement + " there");
    const StringEdgeSurrogates* start = parsed.edges("start");
    REQUIRE(start != nullptr);
    CHECK(start->leading_low == 0xDE00);
    CHECK(start->trailing_high == 0);

    CHECK(parsed.text("both") == replacement + replacement);
    const StringEdgeSurrogates* both = parsed.edges("both");
    REQUIRE(both != nullptr);
    CHECK(both->leading_low == 0xDE01);
    CHECK(both->trailing_high == 0xD83E);

    // Two highs: the first is interior, only the last one ends the string.
    const StringEdgeSurrogates* mid = parsed.edges("mid");
    REQUIRE(mid != nullptr);
    CHECK(mid->trailing_high == 0xD83D);
}

TEST_CASE("lone surrogates in keys, ids and nested values all become U+FFFD") {
    Parsed parsed(R"({"k\uDC00":{"id":"\uD800","list":["\uDBFF\u0041",1]}})");
    REQUIRE(parsed.value != nullptr);
    const JsonValue& root = *parsed.value;
    REQUIRE(root.MemberCount() == 1);
    CHECK(string_view_of(root.MemberBegin()->name) == "k" + replacement);
    const JsonValue& inner = root.MemberBegin()->value;
    CHECK(string_view_of(*find_member(inner, "id")) == replacement);
    CHECK(string_view_of((*find_member(inner, "list"))[0]) == replacement + "A");
}

TEST_CASE("an escaped backslash followed by uD83D is text, not an escape") {
    Parsed parsed(R"({"t":"\\uD83D","u":"\\\uD83D"})");
    REQUIRE(parsed.value != nullptr);
    CHECK(parsed.text("t") == "\\uD83D");
    CHECK(parsed.text("u") == "\\" + replacement);
    CHECK(!has_surrogate_escape(R"("\\uD83D")", 9));
}

TEST_CASE("a surrogate escape cut short by the end of the line is a parse error, not a crash") {
    for (const char* line :
         {R"({"t":"\uD83)", R"({"t":"\uD83D\u)", R"({"t":"\uD83D\uDE)", R"({"t":"\)", R"({"t":"\uD83D)", R"(\uD)"}) {
        Parsed parsed(line);
        CHECK(parsed.value == nullptr);
        CHECK(!parsed.parser.error().empty());
    }
}

TEST_CASE("edges belong to the last parsed message only") {
    MessageParser parser;
    std::string first = R"({"t":"\uD83D"})";
    REQUIRE(parser.parse(first.data(), first.size()) != nullptr);
    std::string second = R"({"t":"plain"})";
    const JsonValue* value = parser.parse(second.data(), second.size());
    REQUIRE(value != nullptr);
    CHECK(parser.edge_surrogates(*find_member(*value, "t")) == nullptr);
}

TEST_CASE("parser: refuses invalid UTF-8 anywhere in the line, in RapidJSON's words") {
    acp::detail::MessageParser parser;
    for (std::string line : {std::string("{\"t\":\"\xFF\xFE\"}"), std::string("{\"t\":\"ok\",\"k\xC0\xAF\":1}"),
                             std::string("{\"t\":\"\xED\xA0\x80\"}")}) {
        CHECK(parser.parse(line.data(), line.size()) == nullptr);
        CHECK(parser.error().find("Invalid encoding in string.") == 0);
    }
    std::string fine = "{\"t\":\"caf\xC3\xA9\"}";
    CHECK(parser.parse(fine.data(), fine.size()) != nullptr);
}
