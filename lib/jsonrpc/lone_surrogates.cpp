// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/lone_surrogates.hpp"

#include <cstring>

namespace acp::detail {

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The four hex digits at text as a number, or -1 (too short or not hex).
int hex4(const char* text, const char* end) {
    if (end - text < 4) return -1;
    int value = 0;
    for (int i = 0; i < 4; ++i) {
        const int digit = hex_digit(text[i]);
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

bool is_high(int code) { return code >= 0xD800 && code <= 0xDBFF; }
bool is_low(int code) { return code >= 0xDC00 && code <= 0xDFFF; }

}  // namespace

bool has_surrogate_escape(const char* line, std::size_t size) {
    const char* end = line + size;
    const char* p = line;
    // Walks escape by escape, so the `u` of an escaped backslash followed by "u" is text.
    while (p < end) {
        p = static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(end - p)));
        if (p == nullptr || end - p < 2) return false;
        if (p[1] != 'u') {
            p += 2;
            continue;
        }
        if (end - p >= 4 && (p[2] == 'd' || p[2] == 'D') && hex_digit(p[3]) >= 8) return true;
        p += end - p >= 6 ? 6 : end - p;
    }
    return false;
}

void rewrite_lone_surrogates(char* line, std::size_t size, std::vector<StringEdgeSurrogates>& edges) {
    char* const end = line + size;
    bool in_string = false;
    StringEdgeSurrogates current;
    for (char* p = line; p < end;) {
        const char c = *p;
        if (!in_string) {
            if (c == '"') {
                in_string = true;
                current = StringEdgeSurrogates{p + 1, 0, 0};
            }
            ++p;
            continue;
        }
        if (c == '"') {
            in_string = false;
            if (current.leading_low != 0 || current.trailing_high != 0) edges.push_back(current);
            ++p;
            continue;
        }
        if (c != '\\') {
            ++p;
            continue;
        }
        if (end - p < 2) break;
        const int code = p[1] == 'u' ? hex4(p + 2, end) : -1;
        if (code < 0xD800 || code > 0xDFFF) {
            // Any other escape, or a broken one the parser will report.
            p += code < 0 ? 2 : 6;
            continue;
        }
        if (is_high(code)) {
            const bool escape_follows = end - p >= 8 && p[6] == '\\' && p[7] == 'u';
            if (escape_follows && is_low(hex4(p + 8, end))) {
                p += 12;  // a valid pair
                continue;
            }
            if (end - p > 6 && p[6] == '"') current.trailing_high = static_cast<std::uint16_t>(code);
        } else if (p == current.start) {
            current.leading_low = static_cast<std::uint16_t>(code);
        }
        std::memcpy(p + 2, "FFFD", 4);
        p += 6;
    }
}

}  // namespace acp::detail
