// SPDX-License-Identifier: Apache-2.0
// JSON text in and out of the C API (internal): typed values encoded in their wire shape,
// the host's JSON decoded into request types (ACP_EINVAL naming the problem otherwise).
#pragma once

#include <rapidjson/error/en.h>

#include <optional>
#include <string>

#include "acp/acp.h"
#include "acp/json.hpp"
#include "capi/core.hpp"
#include "jsonrpc/json.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v2/codec.hpp"

namespace acp::capi {

template <class T>
std::string encode_json(const T& value) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    v2::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

template <class T>
std::string encode_v1_json(const T& value) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    v1::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

// Parses and decodes JSON text into a request type; ACP_EINVAL naming the problem otherwise.
template <class T>
int decode_json(const char* json, T& out, const char* what) {
    if (json == nullptr) return fail(ACP_EINVAL, std::string(what) + " is NULL");
    rapidjson::Document document;
    // Validated here, so a string that is not UTF-8 (or a lone surrogate escape, what a
    // Python str from a Latin-1 path becomes) is refused at once, with the reason.
    document.Parse<rapidjson::kParseValidateEncodingFlag>(json);
    if (document.HasParseError()) {
        return fail(ACP_EINVAL, std::string(what) + " is not valid JSON text in UTF-8: " +
                                    rapidjson::GetParseError_En(document.GetParseError()) + " (at byte " +
                                    std::to_string(document.GetErrorOffset()) + ")");
    }
    if (Status s = v2::codec::decode(document, out); !s) {
        return fail(ACP_EINVAL, std::string(what) + ": " + s.message());
    }
    return ACP_OK;
}

// NULL (out unchanged) or a JSON object, as RawJson.
int object_json(const char* json, RawJson& out, const char* what);

// A copy for the host to free with acp_string_free (throws std::bad_alloc).
char* copy_string(const std::string& text);

std::optional<std::string> string_member(const rapidjson::Value& object, const char* key);
std::optional<std::string> json_member(const rapidjson::Value& object, const char* key);

}  // namespace acp::capi
