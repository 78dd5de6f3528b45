// SPDX-License-Identifier: Apache-2.0
#include "session/terminal_bytes.hpp"

#include <array>
#include <cstdint>

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

constexpr std::string_view replacement = "\xEF\xBF\xBD";

// Length of the sequence a lead byte starts, 0 for a byte that cannot start one.
int sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) return 3;
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    return 0;
}

// Whether byte may follow the lead at position 1 of its sequence (Unicode table 3-7:
// excludes overlongs, surrogates and code points above U+10FFFF).
bool valid_second(unsigned char lead, unsigned char byte) {
    switch (lead) {
        case 0xE0: return byte >= 0xA0 && byte <= 0xBF;
        case 0xED: return byte >= 0x80 && byte <= 0x9F;
        case 0xF0: return byte >= 0x90 && byte <= 0xBF;
        case 0xF4: return byte >= 0x80 && byte <= 0x8F;
        default: return byte >= 0x80 && byte <= 0xBF;
    }
}

// Decodes [data, data+size); returns how many trailing bytes form an incomplete (but so
// far valid) sequence and were not consumed.
std::size_t decode(const unsigned char* data, std::size_t size, std::string& text) {
    std::size_t i = 0;
    while (i < size) {
        const unsigned char lead = data[i];
        if (lead < 0x80) {
            // ASCII runs are the common case: copy them in one go.
            std::size_t end = i + 1;
            while (end < size && data[end] < 0x80) ++end;
            text.append(reinterpret_cast<const char*>(data + i), end - i);
            i = end;
            continue;
        }
        const int length = sequence_length(lead);
        if (length == 0) {
            text.append(replacement);
            ++i;
            continue;
        }
        std::size_t valid = 1;
        while (valid < static_cast<std::size_t>(length) && i + valid < size) {
            const unsigned char byte = data[i + valid];
            const bool ok = valid == 1 ? valid_second(lead, byte) : (byte >= 0x80 && byte <= 0xBF);
            if (!ok) break;
            ++valid;
        }
        if (valid == static_cast<std::size_t>(length)) {
            text.append(reinterpret_cast<const char*>(data + i), valid);
        } else if (i + valid == size) {
            return valid;  // cut off by the chunk boundary: wait for more
        } else {
            text.append(replacement);
        }
        i += valid;
    }
    return 0;
}

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
        // Finish the sequence the previous chunk cut off, byte by byte.
        const auto lead = static_cast<unsigned char>(pending[0]);
        const auto length = static_cast<std::size_t>(sequence_length(lead));
        std::size_t taken = 0;
        while (pending.size() < length && taken < bytes.size()) {
            const auto byte = static_cast<unsigned char>(bytes[taken]);
            const bool ok = pending.size() == 1 ? valid_second(lead, byte) : (byte >= 0x80 && byte <= 0xBF);
            if (!ok) break;
            pending.push_back(bytes[taken]);
            ++taken;
        }
        bytes.remove_prefix(taken);
        if (pending.size() < length && bytes.empty()) return;  // still incomplete
        text.append(pending.size() == length ? std::string_view(pending) : replacement);
        pending.clear();
    }
    const std::size_t left = decode(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), text);
    pending.assign(bytes.substr(bytes.size() - left));
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
