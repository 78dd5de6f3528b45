// SPDX-License-Identifier: Apache-2.0
// The one sanitiser for everything the agent sends that acp-chat prints: nothing in it can
// move the cursor, clear the screen, set the window title or the clipboard, or start a
// device string. It keeps tab and drops
//   - the other C0 controls and DEL (but see line breaks below),
//   - C1 controls U+0080-U+009F, and the sequences that their 8-bit introducers start,
//   - escape sequences: CSI (ESC [ ... final byte), ESC + intermediates + final byte,
//     and whole OSC/DCS/APC/PM/SOS strings up to their terminator (BEL, ESC \ or U+009C),
//   - bytes that are not valid UTF-8.
// Line breaks depend on what the text is. Message text and terminal output are printed as
// lines (Lines::keep): newline is kept, the other breaks (CR, VT, FF, NEL) are dropped.
// Everything else (titles, option names, commands, paths, plan entries, notices, names,
// ids, errors) is one line on screen (Lines::escape, and sanitize()): every line break -
// LF, CR, VT, FF, NEL, U+2028 and U+2029 - is shown as a visible escape ("\n", "\r",
// "\u2028", ...), so no agent string can start a line that looks like acp-chat's own (a
// fake permission block, a fake "-> Reject", a fake "the agent exited").
// It is stateful: a sequence or a UTF-8 character split across chunks of a stream is still
// recognised, so a stream can be cleaned one appended piece at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace chat {

enum class Lines : std::uint8_t {
    keep,   // text printed as lines: newline kept
    escape  // one line on screen: every line break escaped visibly
};

class Sanitizer {
public:
    explicit Sanitizer(Lines lines) : lines_(lines) {}
    // The printable part of the next piece of the stream, appended to out.
    void feed(std::string_view piece, std::string& out);
    std::string feed(std::string_view piece) {
        std::string out;
        feed(piece, out);
        return out;
    }
    // Forgets any unfinished sequence (the stream was replaced or ended).
    void reset() { *this = Sanitizer(lines_); }

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

    Lines lines_;
    State state_ = State::text;
    char utf8_[4] = {};      // an incomplete UTF-8 character from the previous piece
    std::uint8_t have_ = 0;  // bytes of it held
    std::uint8_t need_ = 0;  // bytes it has in all
};

// A whole agent-controlled string as one line (Lines::escape): the default for everything
// that is not message text or terminal output.
std::string sanitize(std::string_view text);
// A whole agent-controlled text printed as lines (Lines::keep), each under a prefix of
// acp-chat's (render.cpp's gutter), never at the start of a line on its own.
std::string sanitize_lines(std::string_view text);

}  // namespace chat
