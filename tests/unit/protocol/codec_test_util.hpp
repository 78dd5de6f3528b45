// SPDX-License-Identifier: Apache-2.0
// Helpers of the protocol codec tests: decode a JSON text, encode a value, compare JSON.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "protocol/v2/codec.hpp"

namespace codec_test {

inline rapidjson::Document parse(std::string_view text) {
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    REQUIRE_MESSAGE(!document.HasParseError(), "test JSON does not parse: " << text);
    return document;
}

template <class T>
acp::Status decode(std::string_view text, T& out) {
    rapidjson::Document document = parse(text);
    return acp::v2::codec::decode(document, out);
}

template <class T>
T decode_ok(std::string_view text) {
    T out;
    acp::Status status = decode(text, out);
    REQUIRE_MESSAGE(status.ok(), status.to_string());
    return out;
}

template <class T>
std::string encode(const T& value) {
    rapidjson::StringBuffer buffer;
    acp::detail::JsonWriter writer(buffer);
    acp::v2::codec::encode(writer, value);
    REQUIRE(writer.IsComplete());
    return std::string(buffer.GetString(), buffer.GetSize());
}

// Same JSON value; members of an object may come in any order.
inline bool same_json(std::string_view a, std::string_view b) { return parse(a) == parse(b); }

// Decodes text as T, encodes it again and returns the result.
template <class T>
std::string round_trip(std::string_view text) {
    return encode(decode_ok<T>(text));
}

// The error message decoding text as T fails with ("" when it succeeds).
template <class T>
std::string decode_error(std::string_view text) {
    T out;
    acp::Status status = decode(text, out);
    if (status.ok()) return "";
    CHECK(status.code() == acp::Errc::protocol_error);
    CHECK(status.rpc_code() == -32602);
    return status.message();
}

}  // namespace codec_test

#define CHECK_ROUND_TRIP(Type, text)                                      \
    do {                                                                  \
        const std::string input_ = (text);                                \
        const std::string output_ = codec_test::round_trip<Type>(input_); \
        INFO("input:  " << input_);                                       \
        INFO("output: " << output_);                                      \
        CHECK(codec_test::same_json(input_, output_));                    \
    } while (false)
