// SPDX-License-Identifier: Apache-2.0
#include "session/terminal_bytes.hpp"

#include <array>
#include <cstdint>

#include "support/utf8.hpp"

namespace acp::detail {

namespace {

constexpr std::array<int8_t, 256> make_base64_table() {
    std::array<int8_t, 256> table{};
    for (auto& entry : table) entry = -1;
    constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i) {
        table[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
    }
    return table;
}

constexpr std::array<int8_t, 256> base64_table = make_base64_table();

}  // namespace

bool base64_decode_append(std::string_view base64, std::string& out) {
    std::size_t length = base64.size();
    while (length > 0 && base64[length - 1] == '=') --length;
    if (base64.size() - length > 2 || length % 4 == 1) return false;
    const std::size_t start = out.size();
    out.reserve(start + length * 3 / 4);
    uint32_t buffer = 0;
    int bits = 0;
    for (std::size_t i = 0; i < length; ++i) {
        const int8_t value = base64_table[static_cast<unsigned char>(base64[i])];
        if (value < 0) {
            out.resize(start);
            return false;
        }
        buffer = (buffer << 6) | static_cast<uint32_t>(value);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
        }
    }
    return true;
}

void utf8_decode_append(std::string_view bytes, std::string& pending, std::string& text) {
    if (!pending.empty()) {
        // Finish the sequence the previous chunk cut off: pending holds its valid start, so
        // the step over it and what follows takes all of pending and maybe some of bytes.
        const std::size_t held = pending.size();
        pending.append(bytes.substr(0, 4 - held));
        const Utf8Step step = utf8_decode(pending);
        if (step.truncated && step.length == pending.size()) return;  // still incomplete
        text.append(step.valid ? std::string_view(pending).substr(0, step.length) : kUtf8Replacement);
        bytes.remove_prefix(step.length - held);
        pending.clear();
    }
    const std::size_t tail = utf8_incomplete_tail(bytes);
    utf8_append_repaired(bytes.substr(0, bytes.size() - tail), text);
    pending.assign(bytes.substr(bytes.size() - tail));
}

std::string base64_encode(std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    auto byte = [bytes](std::size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[at])); };
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned n = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
        out += {alphabet[n >> 18], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], alphabet[n & 63]};
    }
    if (bytes.size() - i == 1) {
        const unsigned n = byte(i) << 16;
        out += {alphabet[n >> 18], alphabet[(n >> 12) & 63], '=', '='};
    } else if (bytes.size() - i == 2) {
        const unsigned n = (byte(i) << 16) | (byte(i + 1) << 8);
        out += {alphabet[n >> 18], alphabet[(n >> 12) & 63], alphabet[(n >> 6) & 63], '='};
    }
    return out;
}

}  // namespace acp::detail
