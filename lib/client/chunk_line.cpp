// SPDX-License-Identifier: Apache-2.0
#include "client/chunk_line.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include "support/utf8.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace acp::detail {

namespace {

// Bytes that end a run of plain string content: the quote, the backslash and the control
// characters JSON forbids in strings. NUL is one, so the line's terminator stops a scan.
constexpr std::array<bool, 256> kStringStop = [] {
    std::array<bool, 256> stop{};
    for (int c = 0; c < 0x20; ++c) stop[static_cast<std::size_t>(c)] = true;
    stop['"'] = true;
    stop['\\'] = true;
    return stop;
}();

// Bytes a and b, n of them (a length the compiler knows), equal: as whole words, the last
// word overlapping the one before it.
template <std::size_t N>
bool same_bytes(const char* a, const char* b) {
    if constexpr (N >= 8) {
        std::uint64_t x = 0, y = 0;
        for (std::size_t i = 0; i + 8 < N; i += 8) {
            std::memcpy(&x, a + i, 8);
            std::memcpy(&y, b + i, 8);
            if (x != y) return false;
        }
        std::memcpy(&x, a + N - 8, 8);
        std::memcpy(&y, b + N - 8, 8);
        return x == y;
    } else if constexpr (N >= 4) {
        std::uint32_t x = 0, y = 0, z = 0, w = 0;
        std::memcpy(&x, a, 4);
        std::memcpy(&y, b, 4);
        std::memcpy(&z, a + N - 4, 4);
        std::memcpy(&w, b + N - 4, 4);
        return x == y && z == w;
    } else {
        for (std::size_t i = 0; i < N; ++i) {
            if (a[i] != b[i]) return false;
        }
        return true;
    }
}

// A name or value against a literal (this runs for every member of every line).
template <std::size_t N>
bool is(std::string_view text, const char (&literal)[N]) {
    return text.size() == N - 1 && same_bytes<N - 1>(text.data(), literal);
}

// The first byte at or after p that ends plain string content (kStringStop); end is the
// line's NUL. Sixteen bytes at a time while they lie inside the line. high stays zero
// while every byte looked at is ASCII.
char* skip_plain_bytes(char* p, const char* end, unsigned& high) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i last_control = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        high |= static_cast<unsigned>(_mm_movemask_epi8(bytes));
        // max(byte, 0x1F) == 0x1F exactly for the control characters 0x00..0x1F.
        const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(bytes, last_control), last_control);
        const __m128i stop =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)), control);
        const int mask = _mm_movemask_epi8(stop);
        if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
        p += 16;
    }
#endif
    while (!kStringStop[static_cast<unsigned char>(*p)]) high |= static_cast<unsigned char>(*p++) >> 7;
    return p;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Four hex digits at p (stops at the first non-digit, so never past the line's NUL).
bool read_hex4(const char* p, unsigned& code) {
    code = 0;
    for (int i = 0; i < 4; ++i) {
        const int digit = hex_digit(p[i]);
        if (digit < 0) return false;
        code = code * 16 + static_cast<unsigned>(digit);
    }
    return true;
}

// A cursor over the NUL-terminated line. Every step reads at most up to the NUL.
class Scanner {
public:
    Scanner(char* line, std::size_t size) : p_(line), end_(line + size) {}

    bool take(char c) {
        skip_space();
        if (*p_ != c) return false;
        ++p_;
        return true;
    }

    bool at_end() {
        skip_space();
        return p_ == end_;
    }

    // Whether every byte inside the strings read so far was ASCII (non-ASCII bytes
    // outside strings are no JSON token, so the line was declined for them).
    bool all_ascii() const { return high_ == 0; }

    // A string without escapes (names, ids, tags, base64): its bytes.
    bool plain_string(char*& begin, std::size_t& size) {
        if (!open_string(begin)) return false;
        if (*p_ != '"') return false;  // an escape, a control character or the line's end
        size = static_cast<std::size_t>(p_ - begin);
        ++p_;
        return true;
    }

    bool plain_string(std::string_view& out) {
        char* begin = nullptr;
        std::size_t size = 0;
        if (!plain_string(begin, size)) return false;
        out = std::string_view(begin, size);
        return true;
    }

    template <std::size_t N>
    bool literal(const char (&expected)[N]) {
        std::string_view text;
        return plain_string(text) && is(text, expected);
    }

    // A string that may hold escapes, checked but not decoded. Surrogate escapes are
    // declined: joining or replacing them is the full path's work.
    bool text_string(char*& begin, std::size_t& size, bool& escaped) {
        if (!open_string(begin)) return false;
        while (*p_ != '"') {
            if (*p_ != '\\') return false;  // a control character or the line's end
            const char kind = p_[1];
            if (kind == 'u') {
                unsigned code = 0;
                if (!read_hex4(p_ + 2, code) || (code >= 0xD800 && code <= 0xDFFF)) return false;
                p_ += 6;
            } else if (kind == '"' || kind == '\\' || kind == '/' || kind == 'b' || kind == 'f' || kind == 'n' ||
                       kind == 'r' || kind == 't') {
                p_ += 2;
            } else {
                return false;
            }
            escaped = true;
            skip_plain();
        }
        size = static_cast<std::size_t>(p_ - begin);
        ++p_;
        return true;
    }

private:
    void skip_space() {
        if (static_cast<unsigned char>(*p_) > ' ') return;  // the usual case: no whitespace
        while (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n') ++p_;
    }

    void skip_plain() { p_ = skip_plain_bytes(p_, end_, high_); }

    // Past the opening quote and the plain bytes after it.
    bool open_string(char*& begin) {
        if (!take('"')) return false;
        begin = p_;
        skip_plain();
        return true;
    }

    char* p_;
    char* const end_;
    unsigned high_ = 0;
};

// {"name": value, ...}: member(name) reads each value. Names must be plain strings.
template <class Member>
bool object(Scanner& scanner, Member&& member) {
    if (!scanner.take('{')) return false;
    if (scanner.take('}')) return true;
    do {
        std::string_view name;
        if (!scanner.plain_string(name) || !scanner.take(':') || !member(name)) return false;
    } while (scanner.take(','));
    return scanner.take('}');
}

// First time a member is seen: true. A repeated member declines the line.
bool first(bool& seen) { return !std::exchange(seen, true); }

ItemKind chunk_kind(std::string_view tag) {
    if (is(tag, "agent_message_chunk")) return ItemKind::agent_message;
    if (is(tag, "agent_thought_chunk")) return ItemKind::agent_thought;
    if (is(tag, "user_message_chunk")) return ItemKind::user_message;
    return ItemKind::unknown;
}

// {"type":"text","text":"..."} and nothing else.
bool text_block(Scanner& scanner, ChunkLine& chunk) {
    bool type = false;
    bool text = false;
    return object(scanner,
                  [&](std::string_view name) {
                      if (is(name, "type")) return first(type) && scanner.literal("text");
                      if (is(name, "text")) {
                          return first(text) && scanner.text_string(chunk.payload, chunk.payload_size, chunk.escaped);
                      }
                      return false;
                  }) &&
           type && text;
}

// {sessionUpdate, messageId, content} or {sessionUpdate, terminalId, data}.
bool update(Scanner& scanner, ChunkLine& chunk) {
    std::string_view tag;
    bool has_tag = false, message_id = false, content = false, terminal_id = false, has_data = false;
    const bool read = object(scanner, [&](std::string_view name) {
        if (is(name, "sessionUpdate")) return first(has_tag) && scanner.plain_string(tag);
        if (is(name, "messageId")) return first(message_id) && scanner.plain_string(chunk.item_id);
        if (is(name, "content")) return first(content) && text_block(scanner, chunk);
        if (is(name, "terminalId")) return first(terminal_id) && scanner.plain_string(chunk.item_id);
        if (is(name, "data")) return first(has_data) && scanner.plain_string(chunk.payload, chunk.payload_size);
        return false;
    });
    if (!read || !has_tag) return false;
    if (message_id && content && !terminal_id && !has_data) {
        chunk.kind = chunk_kind(tag);
        return chunk.kind != ItemKind::unknown;
    }
    if (terminal_id && has_data && !message_id && !content && is(tag, "terminal_output_chunk")) {
        chunk.terminal = true;
        return true;
    }
    return false;
}

bool params(Scanner& scanner, ChunkLine& chunk) {
    bool session_id = false;
    bool has_update = false;
    return object(scanner,
                  [&](std::string_view name) {
                      if (is(name, "sessionId")) return first(session_id) && scanner.plain_string(chunk.session_id);
                      if (is(name, "update")) return first(has_update) && update(scanner, chunk);
                      return false;
                  }) &&
           session_id && has_update;
}

char unescaped(char kind) {
    switch (kind) {
        case 'b': return '\b';
        case 'f': return '\f';
        case 'n': return '\n';
        case 'r': return '\r';
        case 't': return '\t';
        default: return kind;  // '"', '\\' or '/'
    }
}

}  // namespace

std::optional<ChunkLine> scan_chunk_line(char* line, std::size_t size) {
    Scanner scanner(line, size);
    ChunkLine chunk;
    bool version = false, method = false, has_params = false;
    const bool read = object(scanner, [&](std::string_view name) {
        if (is(name, "jsonrpc")) return first(version) && scanner.literal("2.0");
        if (is(name, "method")) return first(method) && scanner.literal("session/update");
        if (is(name, "params")) return first(has_params) && params(scanner, chunk);
        return false;  // an id (a request), or anything else
    });
    if (!read || !version || !method || !has_params || !scanner.at_end()) return std::nullopt;
    // Names and literals matched ASCII exactly; what else came from the agent is checked
    // when any of it was not ASCII.
    if (!scanner.all_ascii() &&
        (!utf8_valid(chunk.session_id) || !utf8_valid(chunk.item_id) || !utf8_valid(chunk.data()))) {
        return std::nullopt;
    }
    return chunk;
}

std::string_view decode_text(ChunkLine& chunk) {
    if (chunk.escaped) {
        // The scan checked every escape: each is complete and no surrogate.
        const char* in = chunk.payload;
        const char* const end = in + chunk.payload_size;
        char* out = chunk.payload;
        while (in < end) {
            const char* escape = static_cast<const char*>(std::memchr(in, '\\', static_cast<std::size_t>(end - in)));
            const char* run_end = escape != nullptr ? escape : end;
            std::memmove(out, in, static_cast<std::size_t>(run_end - in));
            out += run_end - in;
            in = run_end;
            if (in == end) break;
            if (in[1] == 'u') {
                unsigned code = 0;
                (void)read_hex4(in + 2, code);
                out = utf8_encode(code, out);  // below U+D800 or above U+DFFF
                in += 6;
            } else {
                *out++ = unescaped(in[1]);
                in += 2;
            }
        }
        chunk.payload_size = static_cast<std::size_t>(out - chunk.payload);
        chunk.escaped = false;
    }
    return chunk.data();
}

}  // namespace acp::detail
