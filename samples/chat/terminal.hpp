// SPDX-License-Identifier: Apache-2.0
// Output helpers for acp-chat: ANSI colours that switch off when stdout is not a terminal
// (or NO_COLOR is set), and JSON string literals. Agent text is made safe to print by
// sanitize.hpp.
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

// text as a JSON string literal.
std::string json_string(std::string_view text);

}  // namespace chat
