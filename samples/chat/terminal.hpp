// SPDX-License-Identifier: Apache-2.0
// Output helpers for acp-chat: ANSI colours that switch off when stdout is not a terminal
// (or NO_COLOR is set), and text made safe to print (agent-controlled control sequences
// stripped).
#pragma once

#include <string>
#include <string_view>

namespace chat {

enum class Color { none, dim, bold, red, green, yellow, blue, magenta, cyan };

class Style {
public:
    explicit Style(bool enabled) : enabled_(enabled) {}
    bool enabled() const { return enabled_; }
    // text wrapped in the colour's escape sequences, or text itself when colours are off.
    std::string paint(Color color, std::string_view text) const;

private:
    bool enabled_;
};

// Drops escape sequences and control characters except newline and tab; a carriage
// return before a newline is dropped too, so terminal output prints as plain lines.
std::string sanitize(std::string_view text);

// text as a JSON string literal.
std::string json_string(std::string_view text);

}  // namespace chat
