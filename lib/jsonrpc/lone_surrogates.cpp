// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/lone_surrogates.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// A `\uD8`..`\uDF` escape starts at p: an even number of backslashes before it (an escaped
// backslash followed by "u" is text).
bool surrogate_escape_at(const char* line, const char* p, const char* end) {
    if (end - p < 4 || hex_digit(p[3]) < 8) return false;
    const char* before = p;
    while (before > line && before[-1] == '\\') --before;
    return (p - before) % 2 == 0;
}

// `\u` followed by d or D at p (p[0..2] readable).
bool candidate_at(const char* p) { return p[0] == '\\' && p[1] == 'u' && (p[2] | 0x20) == 'd'; }

}  // namespace

bool has_surrogate_escape(const char* line, std::size_t size) {
    const char* const end = line + size;
    const char* p = line;
#if defined(__SSE2__)
    // Sixteen positions at a time: only `\ud` / `\uD` stops the scan, so text full of
    // other escapes (newlines, quotes) costs no more than plain text.
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i u = _mm_set1_epi8('u');
    const __m128i d = _mm_set1_epi8('d');
    const __m128i lower = _mm_set1_epi8(0x20);
    for (; end - p >= 18; p += 16) {
        const __m128i at0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i at1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
        const __m128i at2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 2));
        const __m128i hits = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(at0, backslash), _mm_cmpeq_epi8(at1, u)),
                                           _mm_cmpeq_epi8(_mm_or_si128(at2, lower), d));
        for (unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hits)); mask != 0; mask &= mask - 1) {
            if (surrogate_escape_at(line, p + __builtin_ctz(mask), end)) return true;
        }
    }
#endif
    for (; end - p >= 3; ++p) {
        if (candidate_at(p) && surrogate_escape_at(line, p, end)) return true;
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
