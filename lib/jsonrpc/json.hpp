// SPDX-License-Identifier: Apache-2.0
// The JSON vocabulary of the JSON-RPC layer and the layers above it (internal).
//
// Incoming messages are parsed in place into a Document whose memory is recycled after
// each message; a const Value& handed to a handler is valid only during that call, so
// whatever must outlive it is copied. Outgoing messages are written by a WriteFn straight
// into the connection's reused output buffer.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <functional>
#include <string>
#include <string_view>

namespace acp::detail {

using JsonValue = rapidjson::Value;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;
// Writes exactly one JSON value (for params and results: an object).
using WriteFn = std::function<void(JsonWriter&)>;

// The member named key of an object value, or nullptr (also when value is no object).
inline const JsonValue* find_member(const JsonValue& value, std::string_view key) {
    if (!value.IsObject()) return nullptr;
    // A Value name, not a const char*: the key need not be NUL-terminated (the const char*
    // overload would measure it with strlen).
    const rapidjson::Value name(rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size())));
    auto it = value.FindMember(name);
    return it == value.MemberEnd() ? nullptr : &it->value;
}

inline std::string_view string_view_of(const JsonValue& value) {
    return std::string_view(value.GetString(), value.GetStringLength());
}

// Serializes a value compactly (for error data, logs, unknown payloads).
inline std::string to_json_text(const JsonValue& value) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    value.Accept(writer);
    return std::string(buffer.GetString(), buffer.GetSize());
}

// Writes a string_view as a JSON string.
inline void write_string(JsonWriter& writer, std::string_view text) {
    writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// Writes already-serialized JSON text as a value (it must be valid JSON).
inline void write_raw_json(JsonWriter& writer, std::string_view json, rapidjson::Type type) {
    writer.RawValue(json.data(), json.size(), type);
}

}  // namespace acp::detail
