// SPDX-License-Identifier: Apache-2.0
// Small helpers for writing JSON text by hand (the demo agent builds its updates as text,
// keeps them as text in its history and replays them verbatim).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace demo {

// A JSON string literal with everything escaping requires.
inline std::string quote(std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size() + 2);
    out.push_back('"');
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (u < 0x20) {
                    out += "\\u00";
                    out.push_back(hex[u >> 4]);
                    out.push_back(hex[u & 15]);
                } else {
                    out.push_back(c);
                }
        }
    }
    out.push_back('"');
    return out;
}

inline std::string base64(std::string_view bytes) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8) |
                           uint32_t(uint8_t(bytes[i + 2]));
        out += {table[n >> 18], table[(n >> 12) & 63], table[(n >> 6) & 63], table[n & 63]};
    }
    if (i + 1 == bytes.size()) {
        const uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
        out += {table[n >> 18], table[(n >> 12) & 63], '=', '='};
    } else if (i + 2 == bytes.size()) {
        const uint32_t n = (uint32_t(uint8_t(bytes[i])) << 16) | (uint32_t(uint8_t(bytes[i + 1])) << 8);
        out += {table[n >> 18], table[(n >> 12) & 63], table[(n >> 6) & 63], '='};
    }
    return out;
}

// The bytes of base64 text this agent wrote itself (padding and no line breaks).
inline std::string unbase64(std::string_view text) {
    auto value = [](char c) -> uint32_t {
        if (c >= 'A' && c <= 'Z') return uint32_t(c - 'A');
        if (c >= 'a' && c <= 'z') return uint32_t(c - 'a' + 26);
        if (c >= '0' && c <= '9') return uint32_t(c - '0' + 52);
        return c == '+' ? 62u : 63u;
    };
    std::string out;
    for (std::size_t i = 0; i + 3 < text.size(); i += 4) {
        const uint32_t n = (value(text[i]) << 18) | (value(text[i + 1]) << 12) |
                           (text[i + 2] == '=' ? 0 : value(text[i + 2]) << 6) |
                           (text[i + 3] == '=' ? 0 : value(text[i + 3]));
        out.push_back(static_cast<char>(n >> 16));
        if (text[i + 2] != '=') out.push_back(static_cast<char>((n >> 8) & 0xFF));
        if (text[i + 3] != '=') out.push_back(static_cast<char>(n & 0xFF));
    }
    return out;
}

inline std::string string_array(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ",";
        out += quote(items[i]);
    }
    return out + "]";
}

}  // namespace demo
