// SPDX-License-Identifier: Apache-2.0
// A JSON-RPC request id: a 64-bit integer or a string, with its JSON type kept, because
// 7 and "7" are different ids and a response must echo the id as it came.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "jsonrpc/json.hpp"

namespace acp::detail {

class RequestId {
public:
    static RequestId integer(int64_t value) { return RequestId(value, {}, false); }
    static RequestId string(std::string value) { return RequestId(0, std::move(value), true); }
    // A request id from the wire: string or integer; null, fractional or out-of-range
    // numbers and other types are not ids.
    static std::optional<RequestId> from_json(const JsonValue& value) {
        if (value.IsString()) return string(std::string(value.GetString(), value.GetStringLength()));
        if (value.IsInt64()) return integer(value.GetInt64());
        return std::nullopt;
    }

    bool is_string() const { return is_string_; }
    int64_t as_integer() const { return number_; }
    const std::string& as_string() const { return text_; }

    void write(JsonWriter& writer) const {
        if (is_string_) {
            write_string(writer, text_);
        } else {
            writer.Int64(number_);
        }
    }
    std::string to_string() const { return is_string_ ? "\"" + text_ + "\"" : std::to_string(number_); }

    bool operator==(const RequestId& other) const {
        return is_string_ == other.is_string_ && number_ == other.number_ && text_ == other.text_;
    }
    bool operator!=(const RequestId& other) const { return !(*this == other); }

private:
    RequestId(int64_t number, std::string text, bool is_string)
        : number_(number), text_(std::move(text)), is_string_(is_string) {}

    int64_t number_;
    std::string text_;
    bool is_string_;
};

struct RequestIdHash {
    std::size_t operator()(const RequestId& id) const {
        return id.is_string() ? std::hash<std::string>()(id.as_string()) ^ 0x9e3779b97f4a7c15ULL
                              : std::hash<int64_t>()(id.as_integer());
    }
};

}  // namespace acp::detail
