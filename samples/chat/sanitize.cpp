// SPDX-License-Identifier: Apache-2.0
#include "sanitize.hpp"

namespace chat {

namespace {

constexpr char32_t kEsc = 0x1b, kBel = 0x07, kDel = 0x7f;
constexpr char32_t kNel = 0x85, kLineSeparator = 0x2028, kParagraphSeparator = 0x2029;
// 8-bit introducers and terminator (ECMA-48): CSI, DCS, SOS, OSC, PM, APC, ST.
constexpr char32_t kCsi8 = 0x9b, kDcs8 = 0x90, kSos8 = 0x98, kOsc8 = 0x9d, kPm8 = 0x9e, kApc8 = 0x9f, kSt8 = 0x9c;

// Bytes a UTF-8 character has, from its lead byte; 0 when the byte cannot lead one.
unsigned utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) return 3;
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    return 0;
}

// Whether byte can follow the bytes held so far (overlong forms and surrogates refused).
bool continues(const char* held, unsigned have, unsigned char byte) {
    if ((byte & 0xC0) != 0x80) return false;
    if (have != 1) return true;
    const auto lead = static_cast<unsigned char>(held[0]);
    if (lead == 0xE0) return byte >= 0xA0;
    if (lead == 0xED) return byte < 0xA0;
    if (lead == 0xF0) return byte >= 0x90;
    if (lead == 0xF4) return byte < 0x90;
    return true;
}

char32_t decode(const char* bytes, unsigned length) {
    const auto b = [&](unsigned i) { return static_cast<char32_t>(static_cast<unsigned char>(bytes[i])); };
    switch (length) {
        case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
        case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
        default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

// How a line break shows on one line; nullptr for a code point that breaks no line.
const char* escaped_break(char32_t c) {
    switch (c) {
        case '\n': return "\\n";
        case '\r': return "\\r";
        case 0x0b: return "\\v";
        case 0x0c: return "\\f";
        case kNel: return "\\u0085";
        case kLineSeparator: return "\\u2028";
        case kParagraphSeparator: return "\\u2029";
        default: return nullptr;
    }
}

}  // namespace

void Sanitizer::feed(std::string_view piece, std::string& out) {
    out.reserve(out.size() + piece.size());
    for (std::size_t i = 0; i < piece.size(); ++i) {
        const auto byte = static_cast<unsigned char>(piece[i]);
        if (have_ > 0) {
            if (!continues(utf8_, have_, byte)) {
                have_ = 0;  // a broken character is dropped; this byte starts afresh
                --i;
                continue;
            }
            utf8_[have_++] = static_cast<char>(byte);
            if (have_ == need_) {
                code_point(decode(utf8_, need_), std::string_view(utf8_, need_), out);
                have_ = 0;
            }
            continue;
        }
        // The common case, plain ASCII text, without the state machine.
        if (state_ == State::text && byte >= 0x20 && byte < kDel) {
            out.push_back(static_cast<char>(byte));
            continue;
        }
        const unsigned length = utf8_length(byte);
        if (length == 0) continue;  // not UTF-8
        if (length == 1) {
            code_point(byte, piece.substr(i, 1), out);
        } else {
            utf8_[0] = static_cast<char>(byte);
            have_ = 1;
            need_ = static_cast<std::uint8_t>(length);
        }
    }
}

void Sanitizer::code_point(char32_t c, std::string_view bytes, std::string& out) {
    switch (state_) {
        case State::text:
            if (lines_ == Lines::escape) {
                if (const char* shown = escaped_break(c)) {
                    out += shown;
                    return;
                }
            }
            if (c == kEsc) {
                state_ = State::escape;
            } else if (c == kCsi8) {
                state_ = State::csi;
            } else if (c == kDcs8 || c == kSos8 || c == kOsc8 || c == kPm8 || c == kApc8) {
                state_ = State::string;
            } else if (c == '\n' || c == '\t' || (c >= 0x20 && c != kDel && !(c >= 0x80 && c <= 0x9f))) {
                out.append(bytes);
            }
            return;
        case State::escape:
            if (c == '[') {
                state_ = State::csi;
            } else if (c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X') {
                state_ = State::string;
            } else if (c >= 0x20 && c <= 0x2f) {
                state_ = State::escape_tail;
            } else if (c != kEsc) {
                state_ = State::text;
                // A control ends the sequence and counts on its own; a final byte is dropped.
                if (c < 0x20 || c >= kDel) code_point(c, bytes, out);
            }
            return;
        case State::escape_tail:
        case State::csi: {
            const char32_t last_middle = state_ == State::csi ? 0x3f : 0x2f;
            if (c >= 0x20 && c <= last_middle) return;
            state_ = State::text;
            if (!(c > last_middle && c <= 0x7e)) code_point(c, bytes, out);
            return;
        }
        case State::string:
            if (c == kBel || c == kSt8) {
                state_ = State::text;
            } else if (c == kEsc) {
                state_ = State::string_escape;
            }
            return;
        case State::string_escape:
            // ESC \ ends the string; anything else stays inside it (dropped).
            state_ = c == '\\' ? State::text : c == kEsc ? State::string_escape : State::string;
            return;
    }
}

std::string sanitize(std::string_view text) {
    Sanitizer sanitizer(Lines::escape);
    return sanitizer.feed(text);
}

std::string sanitize_lines(std::string_view text) {
    Sanitizer sanitizer(Lines::keep);
    return sanitizer.feed(text);
}

}  // namespace chat
