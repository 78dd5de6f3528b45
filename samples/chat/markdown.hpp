// SPDX-License-Identifier: Apache-2.0
// The agent's Markdown for the terminal (md4c parses it): headings, emphasis, code spans
// and blocks, lists, quotes, links, rules.
//
// A reply streams in, so it is rendered one completed line at a time: each line is parsed
// once and printed once (linear in the reply), and only the open tail, the line still
// arriving, is held back. The rendering keeps the agent's line breaks; a fenced code block
// is tracked across lines. The input is text the sanitiser already cleaned: the only
// escape sequences in the output are our own SGR colours (none when colours are off).
#pragma once

#include <string>
#include <string_view>

namespace chat {

class MarkdownStream {
public:
    explicit MarkdownStream(bool color) : color_(color) {}
    // Appends the rendering of the lines that text completes to out.
    void feed(std::string_view text, std::string& out);
    // The held tail as it is (the message ended, or something else is printed now).
    void flush(std::string& out);
    // Renders one line of Markdown outside any code block (no newline at its end).
    static std::string render_line(std::string_view line, bool color);

private:
    // False for a line that shows nothing (a code fence): no newline after it either.
    bool line(std::string_view text, std::string& out);

    bool color_;
    std::string tail_;       // the line still arriving
    bool raw_rest_ = false;  // the tail got too long to hold: the rest of its line as is
    std::string fence_;      // the fence of the open code block ("" = none)
};

}  // namespace chat
