// SPDX-License-Identifier: Apache-2.0
// UTF-8 validation, decoding and repair: the one place libacp judges bytes as UTF-8
// (internal).
//
// The rules are RFC 3629's (and RapidJSON's): no overlong forms, no encoded surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF. Repair has one policy: each maximal subpart of
// an ill-formed sequence becomes one U+FFFD (Unicode's "best practice", the WHATWG
// decoder's), so a repaired text does not depend on where a stream was cut into chunks.
//
//   if (!utf8_valid(line)) ...                      // the framer, the chunk-line scanner
//   std::string text; utf8_append_repaired(body, text);  // bytes for a log or an error
//   const std::size_t tail = utf8_incomplete_tail(chunk);  // keep for the next chunk
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace acp::detail {

inline constexpr std::string_view kUtf8Replacement = "\xEF\xBF\xBD";  // U+FFFD

// The offset of the first byte that is not part of valid UTF-8, or bytes.size() when all
// are. A sequence cut off by the end counts as invalid. ASCII is skipped 16 bytes at a time.
std::size_t utf8_valid_prefix(std::string_view bytes);
inline bool utf8_valid(std::string_view bytes) { return utf8_valid_prefix(bytes) == bytes.size(); }

// One step of decoding at the start of bytes (not empty).
struct Utf8Step {
    char32_t code;       // the code point, or U+FFFD when !valid
    std::size_t length;  // bytes taken: the sequence, or the maximal invalid subpart (>= 1)
    bool valid;
    bool truncated;  // !valid only because bytes ended inside a sequence that could be valid
};
Utf8Step utf8_decode(std::string_view bytes);

// How many bytes at the end of bytes start a sequence that more bytes could complete
// (0..3): what a stream decoder keeps for the next chunk.
std::size_t utf8_incomplete_tail(std::string_view bytes);

// The longest prefix of text of at most max bytes that does not end inside a character
// (it backs up over continuation bytes only, so invalid bytes do not make it shorter).
std::string_view utf8_truncate(std::string_view text, std::size_t max);

// Appends bytes to out with each maximal invalid subpart (a truncated tail included)
// replaced by U+FFFD.
void utf8_append_repaired(std::string_view bytes, std::string& out);

// Writes code (at most U+10FFFF) as UTF-8 at out and returns the end. A surrogate gets its
// 3-byte WTF-8 form, which is not UTF-8: callers that hold one know why.
char* utf8_encode(char32_t code, char* out);

}  // namespace acp::detail
