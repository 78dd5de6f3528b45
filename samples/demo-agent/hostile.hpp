// SPDX-License-Identifier: Apache-2.0
// The demo agent's --hostile mode: every text it sends carries terminal control sequences
// a client must never let through (CLIENT-GUIDE: agent text is untrusted). acp-chat's tests
// run it and look for any of them on the screen.
#pragma once

#include <string>
#include <vector>

namespace demo {

// Clear screen + cursor home, an OSC 52 clipboard write ("pwned"), a window title (OSC 0,
// ended by ESC \), an 8-bit CSI (U+009B) clearing the screen, an 8-bit OSC (U+009D) title
// ended by the 8-bit ST (U+009C), and a bell.
inline constexpr const char* kHostileSequences =
    "\x1b[2J\x1b[H"
    "\x1b]52;c;cHduZWQ=\x07"
    "\x1b]0;pwned\x1b\\"
    "\xc2\x9b"
    "2J"
    "\xc2\x9d"
    "0;pwned\xc2\x9c"
    "\x07";

// text with the sequences around it when on, else text.
inline std::string hostile(bool on, const std::string& text) {
    return on ? kHostileSequences + text + kHostileSequences : text;
}

// text in pieces of a few characters (never inside a UTF-8 character), so that the
// sequences arrive split across the chunks of a stream.
inline std::vector<std::string> small_pieces(const std::string& text, std::size_t size = 5) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = start + size < text.size() ? start + size : text.size();
        while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
        out.push_back(text.substr(start, end - start));
        start = end;
    }
    return out;
}

}  // namespace demo
