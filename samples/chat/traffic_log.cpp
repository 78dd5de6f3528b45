// SPDX-License-Identifier: Apache-2.0
#include "traffic_log.hpp"

#include <cstdint>

namespace chat {

namespace {

// A recursive-descent check of the JSON grammar; no values are built.
class JsonChecker {
public:
    explicit JsonChecker(std::string_view text) : text_(text) {}

    bool check() {
        space();
        if (!value(0)) return false;
        space();
        return pos_ == text_.size();
    }

private:
    static constexpr int kMaxDepth = 512;

    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    void space() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
    }
    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }
    bool value(int depth) {
        if (depth > kMaxDepth) return false;
        switch (peek()) {
            case '{': return object(depth + 1);
            case '[': return array(depth + 1);
            case '"': return string();
            case 't': return literal("true");
            case 'f': return literal("false");
            case 'n': return literal("null");
            default: return number();
        }
    }
    bool object(int depth) {
        ++pos_;
        space();
        if (peek() == '}') return ++pos_, true;
        for (;;) {
            space();
            if (peek() != '"' || !string()) return false;
            space();
            if (peek() != ':') return false;
            ++pos_;
            space();
            if (!value(depth)) return false;
            space();
            if (peek() == '}') return ++pos_, true;
            if (peek() != ',') return false;
            ++pos_;
        }
    }
    bool array(int depth) {
        ++pos_;
        space();
        if (peek() == ']') return ++pos_, true;
        for (;;) {
            space();
            if (!value(depth)) return false;
            space();
            if (peek() == ']') return ++pos_, true;
            if (peek() != ',') return false;
            ++pos_;
        }
    }
    static bool hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
    bool string() {
        ++pos_;
        while (!at_end()) {
            const auto c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"') return ++pos_, true;
            if (c < 0x20) return false;
            if (c == '\\') {
                ++pos_;
                const char e = peek();
                if (e == 'u') {
                    for (int i = 1; i <= 4; ++i) {
                        if (pos_ + i >= text_.size() || !hex(text_[pos_ + i])) return false;
                    }
                    pos_ += 5;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                           e == 't') {
                    ++pos_;
                } else {
                    return false;
                }
                continue;
            }
            if (c < 0x80) {
                ++pos_;
                continue;
            }
            const std::size_t length = utf8_length(text_.substr(pos_));
            if (length == 0) return false;
            pos_ += length;
        }
        return false;
    }
    bool digits() {
        const std::size_t start = pos_;
        while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
        return pos_ > start;
    }
    bool number() {
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
        } else if (!digits()) {
            return false;
        }
        if (peek() == '.') {
            ++pos_;
            if (!digits()) return false;
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            if (!digits()) return false;
        }
        return true;
    }

public:
    // Bytes of the valid UTF-8 character (2-4 bytes) at the start of text, else 0.
    static std::size_t utf8_length(std::string_view text) {
        const auto b = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u; };
        const unsigned lead = b(0);
        const auto cont = [&](std::size_t i) { return (b(i) & 0xC0u) == 0x80u; };
        if (lead >= 0xC2 && lead <= 0xDF) return cont(1) ? 2 : 0;
        if (lead >= 0xE0 && lead <= 0xEF) {
            if (!cont(1) || !cont(2)) return 0;
            if (lead == 0xE0 && b(1) < 0xA0) return 0;   // overlong
            if (lead == 0xED && b(1) >= 0xA0) return 0;  // surrogate
            return 3;
        }
        if (lead >= 0xF0 && lead <= 0xF4) {
            if (!cont(1) || !cont(2) || !cont(3)) return 0;
            if (lead == 0xF0 && b(1) < 0x90) return 0;
            if (lead == 0xF4 && b(1) >= 0x90) return 0;
            return 4;
        }
        return 0;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;
};

}  // namespace

bool is_one_json_value(std::string_view text) { return JsonChecker(text).check(); }

std::string json_string_of_bytes(std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    std::string out = "\"";
    out.reserve(text.size() + 2);
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20 || c == 0x7f) {
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        } else if (c >= 0x80) {
            const std::size_t length = JsonChecker::utf8_length(text.substr(i));
            if (length == 0) {
                out += "\\ufffd";
                ++i;
            } else {
                out.append(text.substr(i, length));
                i += length;
            }
            continue;
        } else {
            out += static_cast<char>(c);
        }
        ++i;
    }
    return out + "\"";
}

bool TrafficLog::open(const std::string& path) {
    out_.open(path, std::ios::trunc);
    return static_cast<bool>(out_);
}

void TrafficLog::message(acp::Direction direction, std::string_view line) {
    if (!out_.is_open()) return;
    const char* dir = direction == acp::Direction::outgoing ? "in" : "out";
    // What acp-chat sends is its own JSON; what the agent sends is checked first.
    if (direction == acp::Direction::outgoing || is_one_json_value(line)) {
        out_ << "{\"dir\":\"" << dir << "\",\"msg\":" << line << "}\n";
    } else {
        out_ << "{\"dir\":\"" << dir << "\",\"raw\":" << json_string_of_bytes(line) << "}\n";
    }
    out_.flush();
}

void TrafficLog::log(const acp::LogRecord& record) {
    if (!out_.is_open()) return;
    out_ << "{\"dir\":\"log\",\"level\":\"" << acp::log_level_name(record.level)
         << "\",\"source\":" << json_string_of_bytes(record.source)
         << ",\"text\":" << json_string_of_bytes(record.message) << "}\n";
    out_.flush();
}

}  // namespace chat
