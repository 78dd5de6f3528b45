// SPDX-License-Identifier: Apache-2.0
// Lone UTF-16 surrogates in JSON `\u` escapes (internal).
//
// JavaScript agents write them when they cut a string between the two halves of a
// surrogate pair (an emoji split across two streamed chunks). RapidJSON refuses a lone
// high surrogate (the whole message would be lost) and turns a lone low one into bytes
// that are not UTF-8. Before parsing, every lone surrogate escape is rewritten in place to
// `\uFFFD` (same length), so the document holds only valid UTF-8. A lone high surrogate
// at the very end of a string, or a lone low one at its very start, is also recorded with
// the string it sits in: the session layer can join such halves across two chunks of one
// message into the character a JavaScript client would show.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace acp::detail {

// What a string lost at its edges. `start` is where the string's text begins in the line
// (just after its opening quote): after an in-place parse that is the string value's
// GetString(). A value of 0 means none.
struct StringEdgeSurrogates {
    const char* start = nullptr;
    std::uint16_t leading_low = 0;    // the string began with this lone low surrogate
    std::uint16_t trailing_high = 0;  // the string ended with this lone high surrogate
};

// True when the line has any `\uD800`..`\uDFFF` escape (paired or not): the cheap test
// that keeps the common line on the fast path.
bool has_surrogate_escape(const char* line, std::size_t size);

// Rewrites every lone surrogate escape of the line to `\uFFFD` and appends the edges of
// the strings that had one at an edge. Valid pairs are left as they are. The line keeps
// its length; bytes outside escapes are not touched.
void rewrite_lone_surrogates(char* line, std::size_t size, std::vector<StringEdgeSurrogates>& edges);

}  // namespace acp::detail
