// SPDX-License-Identifier: Apache-2.0
#include "wrap.hpp"

#include <cwchar>

namespace chat {

namespace {

// Columns of one UTF-8 character (a character that cannot be sized counts one).
std::size_t columns_of(const std::string& character) {
    std::mbstate_t state{};
    wchar_t c;
    const std::size_t n = std::mbrtowc(&c, character.data(), character.size(), &state);
    if (n == 0 || n == static_cast<std::size_t>(-1) || n == static_cast<std::size_t>(-2)) return 1;
    const int w = wcwidth(c);
    return w < 0 ? 1 : static_cast<std::size_t>(w);
}

std::size_t utf8_length(unsigned char lead) {
    if (lead >= 0xF0) return 4;
    if (lead >= 0xE0) return 3;
    if (lead >= 0xC0) return 2;
    return 1;
}

}  // namespace

void Wrapper::place_word(std::size_t width, std::string& out) {
    if (word_.empty()) return;
    if (width != 0 && column_ != 0 && !long_word_ && column_ + spaces_ + word_columns_ > width) {
        out += '\n';  // the spaces before it end the line unprinted
        column_ = 0;
    } else {
        out.append(spaces_, ' ');
        column_ += spaces_;
    }
    spaces_ = 0;
    out += word_;
    column_ += word_columns_;
    if (width != 0 && column_ > width) column_ %= width;  // the terminal wrapped a long word
    word_.clear();
    word_columns_ = 0;
}

void Wrapper::feed(std::string_view text, std::size_t width, std::string& out) {
    width_ = width;
    if (width == 0) {  // not wrapped: nothing is held
        flush(out);
        out.append(text.data(), text.size());
        const std::size_t nl = text.rfind('\n');
        column_ = nl == std::string_view::npos ? column_ + text.size() : text.size() - nl - 1;
        return;
    }
    for (const char ch : text) {
        const auto byte = static_cast<unsigned char>(ch);
        if (escape_) {
            word_ += ch;
            if (byte >= 0x40 && byte <= 0x7E && ch != '[') escape_ = false;
        } else if (ch == '\x1b') {
            word_ += ch;
            escape_ = true;
        } else if (!utf8_.empty() || byte >= 0x80) {
            utf8_ += ch;
            if (utf8_.size() >= utf8_length(static_cast<unsigned char>(utf8_[0]))) {
                word_ += utf8_;
                word_columns_ += columns_of(utf8_);
                utf8_.clear();
            }
        } else if (ch == '\n') {
            place_word(width, out);
            long_word_ = false;
            spaces_ = 0;
            out += '\n';
            column_ = 0;
        } else if (ch == ' ') {
            place_word(width, out);
            long_word_ = false;
            ++spaces_;
        } else {
            word_ += ch;
            word_columns_ += ch == '\t' ? 8 : 1;
        }
        // A word longer than a line is the terminal's to break: out now, not held (an
        // agent's text without a space is bounded here by the width, not by its length).
        if (word_columns_ > width && utf8_.empty() && !escape_) {
            place_word(width, out);
            long_word_ = true;
        }
    }
}

void Wrapper::flush(std::string& out) {
    word_ += utf8_;
    utf8_.clear();
    place_word(width_, out);
    if (spaces_ != 0 && (width_ == 0 || column_ + spaces_ <= width_)) {
        out.append(spaces_, ' ');
        column_ += spaces_;
        spaces_ = 0;
    }
}

}  // namespace chat
