// SPDX-License-Identifier: Apache-2.0
// The one sanitiser for everything the agent sends that acp-chat prints: nothing in it can
// move the cursor, clear the screen, set the window title or the clipboard, or start a
// device string. It keeps newline and tab, and drops
//   - the other C0 controls (carriage return included) and DEL,
//   - C1 controls U+0080-U+009F, and the sequences that their 8-bit introducers start,
//   - escape sequences: CSI (ESC [ ... final byte), ESC + intermediates + final byte,
//     and whole OSC/DCS/APC/PM/SOS strings up to their terminator (BEL, ESC \ or U+009C),
//   - bytes that are not valid UTF-8.
// It is stateful: a sequence or a UTF-8 character split across chunks of a stream is still
// recognised, so a stream can be cleaned one appended piece at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace chat {

class Sanitizer {
public:
    // The printable part of the next piece of the stream, appended to out.
    void feed(std::string_view piece, std::string& out);
    std::string feed(std::string_view piece) {
        std::string out;
        feed(piece, out);
        return out;
    }
    // Forgets any unfinished sequence (the stream was replaced or ended).
    void reset() { *this = Sanitizer(); }

private:
    enum class State : std::uint8_t {
        text,          // printing
        escape,        // after ESC
        escape_tail,   // ESC and intermediate bytes, until a final byte
        csi,           // control sequence, until a final byte
        string,        // OSC/DCS/APC/PM/SOS body, until its terminator
        string_escape  // ESC inside a string: "\" ends it
    };
    void code_point(char32_t c, std::string_view bytes, std::string& out);

    State state_ = State::text;
    char utf8_[4] = {};       // an incomplete UTF-8 character from the previous piece
    std::uint8_t have_ = 0;   // bytes of it held
    std::uint8_t need_ = 0;   // bytes it has in all
};

// A whole agent-controlled string, cleaned by a fresh Sanitizer.
std::string sanitize(std::string_view text);

}  // namespace chat
