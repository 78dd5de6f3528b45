// SPDX-License-Identifier: Apache-2.0
#include "jsonrpc/utf8_check.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace acp::detail {

namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid sequence starting at p (p[0] >= 0x80), or 0.
std::size_t sequence_length(const unsigned char* p, const unsigned char* end) {
    const unsigned char lead = p[0];
    const std::size_t left = static_cast<std::size_t>(end - p);
    if (lead >= 0xC2 && lead <= 0xDF) return left >= 2 && continuation(p[1]) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        if (left < 3 || !continuation(p[1]) || !continuation(p[2])) return 0;
        if (lead == 0xE0 && p[1] < 0xA0) return 0;  // overlong
        if (lead == 0xED && p[1] > 0x9F) return 0;  // a surrogate
        return 3;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        if (left < 4 || !continuation(p[1]) || !continuation(p[2]) || !continuation(p[3])) return 0;
        if (lead == 0xF0 && p[1] < 0x90) return 0;  // overlong
        if (lead == 0xF4 && p[1] > 0x8F) return 0;  // above U+10FFFF
        return 4;
    }
    return 0;  // a continuation byte, C0, C1 or F5..FF
}

}  // namespace

std::size_t first_invalid_utf8(const char* data, std::size_t size) {
    const auto* const begin = reinterpret_cast<const unsigned char*>(data);
    const auto* const end = begin + size;
    const unsigned char* p = begin;
    while (p < end) {
#if defined(__SSE2__)
        // Skip ASCII sixteen bytes at a time.
        while (end - p >= 16 &&
               _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))) == 0) {
            p += 16;
        }
#endif
        while (p < end && *p < 0x80) ++p;
        if (p == end) break;
        const std::size_t length = sequence_length(p, end);
        if (length == 0) return static_cast<std::size_t>(p - begin);
        p += length;
    }
    return size;
}

}  // namespace acp::detail
