// SPDX-License-Identifier: Apache-2.0
#include "terminal.hpp"

namespace chat {

std::string Style::paint(Color color, std::string_view text) const {
    if (!enabled_ || color == Color::none) return std::string(text);
    const char* code = "";
    switch (color) {
        case Color::none: break;
        case Color::dim: code = "2"; break;
        case Color::bold: code = "1"; break;
        case Color::red: code = "31"; break;
        case Color::green: code = "32"; break;
        case Color::yellow: code = "33"; break;
        case Color::blue: code = "34"; break;
        case Color::magenta: code = "35"; break;
        case Color::cyan: code = "36"; break;
    }
    return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

std::string json_string(std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

}  // namespace chat
