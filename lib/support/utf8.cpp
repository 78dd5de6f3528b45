// SPDX-License-Identifier: Apache-2.0
#include "support/utf8.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace acp::detail {

namespace {

// Length of the sequence a lead byte starts, 0 for a byte that cannot start one.
std::size_t sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) return 3;
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    return 0;  // a continuation byte, C0, C1 (overlong) or F5..FF (above U+10FFFF)
}

// Whether byte may follow lead at position 1 of its sequence (Unicode table 3-7: the
// ranges that exclude overlongs, surrogates and code points above U+10FFFF).
bool valid_second(unsigned char lead, unsigned char byte) {
    switch (lead) {
        case 0xE0: return byte >= 0xA0 && byte <= 0xBF;
        case 0xED: return byte >= 0x80 && byte <= 0x9F;
        case 0xF0: return byte >= 0x90 && byte <= 0xBF;
        case 0xF4: return byte >= 0x80 && byte <= 0x8F;
        default: return byte >= 0x80 && byte <= 0xBF;
    }
}

Utf8Step decode(const unsigned char* p, std::size_t left) {
    const unsigned char lead = p[0];
    const std::size_t length = sequence_length(lead);
    if (length == 1) return {lead, 1, true, false};
    if (length == 0) return {0xFFFD, 1, false, false};
    char32_t code = lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
        if (k == left) return {0xFFFD, k, false, true};
        const unsigned char byte = p[k];
        if (k == 1 ? !valid_second(lead, byte) : (byte & 0xC0) != 0x80) return {0xFFFD, k, false, false};
        code = (code << 6) | (byte & 0x3F);
    }
    return {code, length, true, false};
}

}  // namespace

std::size_t utf8_valid_prefix(std::string_view bytes) {
    const auto* const begin = reinterpret_cast<const unsigned char*>(bytes.data());
    const auto* const end = begin + bytes.size();
    const unsigned char* p = begin;
    while (p < end) {
#if defined(__SSE2__)
        // Skip ASCII sixteen bytes at a time: most protocol text is ASCII.
        while (end - p >= 16 && _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))) == 0) {
            p += 16;
        }
#endif
        while (p < end && *p < 0x80) ++p;
        if (p == end) break;
        const Utf8Step step = decode(p, static_cast<std::size_t>(end - p));
        if (!step.valid) return static_cast<std::size_t>(p - begin);
        p += step.length;
    }
    return bytes.size();
}

Utf8Step utf8_decode(std::string_view bytes) {
    return decode(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

std::size_t utf8_incomplete_tail(std::string_view bytes) {
    // A sequence is at most 4 bytes long, so an incomplete one starts in the last 3.
    for (std::size_t back = 1; back <= 3 && back <= bytes.size(); ++back) {
        const auto byte = static_cast<unsigned char>(bytes[bytes.size() - back]);
        if ((byte & 0xC0) == 0x80) continue;  // a continuation byte: its lead is further back
        const Utf8Step step = utf8_decode(bytes.substr(bytes.size() - back));
        return step.truncated && step.length == back ? back : 0;
    }
    return 0;
}

std::string_view utf8_truncate(std::string_view text, std::size_t max) {
    if (text.size() <= max) return text;
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut);
}

void utf8_append_repaired(std::string_view bytes, std::string& out) {
    while (!bytes.empty()) {
        const std::size_t valid = utf8_valid_prefix(bytes);
        out.append(bytes.data(), valid);
        bytes.remove_prefix(valid);
        if (bytes.empty()) break;
        out.append(kUtf8Replacement);
        bytes.remove_prefix(utf8_decode(bytes).length);
    }
}

char* utf8_encode(char32_t code, char* out) {
    if (code < 0x80) {
        *out++ = static_cast<char>(code);
    } else if (code < 0x800) {
        *out++ = static_cast<char>(0xC0 | (code >> 6));
        *out++ = static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        *out++ = static_cast<char>(0xE0 | (code >> 12));
        *out++ = static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        *out++ = static_cast<char>(0x80 | (code & 0x3F));
    } else {
        *out++ = static_cast<char>(0xF0 | (code >> 18));
        *out++ = static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        *out++ = static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        *out++ = static_cast<char>(0x80 | (code & 0x3F));
    }
    return out;
}

}  // namespace acp::detail
