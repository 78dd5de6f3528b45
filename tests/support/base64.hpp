// Base64 encoding for tests and benchmarks that build terminal_output chunks.
#pragma once

#include <string>

namespace acp::test {

inline std::string base64(const std::string& bytes) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    auto byte = [&bytes](std::size_t at) { return static_cast<unsigned>(static_cast<unsigned char>(bytes[at])); };
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

}  // namespace acp::test
