// SPDX-License-Identifier: Apache-2.0
// The agent's text on a terminal, wrapped at word boundaries to the terminal's width as it
// streams in: a word is held until the space or line end after it shows whether it still
// fits on the line; one longer than a line is left to the terminal and not held. The text is already
// sanitised (and maybe styled by markdown.cpp): the only escape sequences in it are
// acp-chat's own colours, which take no columns.
//   Wrapper wrap;
//   std::string out;
//   wrap.feed("some streamed text", 60, out);   // out: what can be printed now
//   wrap.flush(out);                            // the end of the stream: the held word too
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace chat {

class Wrapper {
public:
    // Appends to out the text wrapped at width columns (0: as it is).
    void feed(std::string_view text, std::size_t width, std::string& out);
    // The held word (wrapped as if it ended here) and the spaces that still fit.
    void flush(std::string& out);
    // Something of the current line is printed or held (the stream's line is open).
    bool open() const { return column_ != 0 || !word_.empty() || !utf8_.empty(); }
    void reset() { *this = Wrapper(); }

private:
    void place_word(std::size_t width, std::string& out);

    std::string word_;  // the word being read (with its escape sequences)
    std::size_t word_columns_ = 0;
    std::size_t spaces_ = 0;  // spaces before it, not printed yet
    std::size_t column_ = 0;  // of the printed part of the line
    std::size_t width_ = 0;   // the last feed's
    bool escape_ = false;     // inside an escape sequence (ESC [ ... final byte)
    bool long_word_ = false;  // the word goes on from one longer than a line: no break
    std::string utf8_;        // an incomplete UTF-8 character
};

}  // namespace chat
