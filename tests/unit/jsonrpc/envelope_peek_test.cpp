// SPDX-License-Identifier: Apache-2.0
#include <doctest/doctest.h>

#include "jsonrpc/envelope_peek.hpp"

using acp::detail::peek_envelope;

TEST_CASE("envelope peek: finds the id and kind of a truncated response") {
    auto peek = peek_envelope(R"({"jsonrpc":"2.0","id":12,"result":{"content":"aaaaaaaa)");
    REQUIRE(peek.id.has_value());
    CHECK(peek.id->as_integer() == 12);
    CHECK(peek.looks_like_response());
    CHECK_FALSE(peek.looks_like_request());
}

TEST_CASE("envelope peek: finds a string id of a request and ignores nested ids") {
    auto peek = peek_envelope(R"({"jsonrpc":"2.0","method":"x","params":{"id":5,"deep":[{"id":6}]},"id":"r-1")");
    REQUIRE(peek.id.has_value());
    CHECK(peek.id->is_string());
    CHECK(peek.id->as_string() == "r-1");
    CHECK(peek.looks_like_request());
}

TEST_CASE("envelope peek: text that is no envelope yields nothing") {
    CHECK_FALSE(peek_envelope("xxxxxxxx").id.has_value());
    CHECK_FALSE(peek_envelope(R"({"jsonrpc":"2.0","method":"n","params":{"id":1)").id.has_value());
}
