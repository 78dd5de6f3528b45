// SPDX-License-Identifier: Apache-2.0
#include "tools/carrier_secret.hpp"

#include "platform/random_bytes.hpp"

namespace acp::detail::tools {

Result<std::string> random_token() {
    unsigned char bytes[32];
    if (Status random = fill_random(bytes, sizeof bytes); !random.ok()) return random;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string token;
    token.reserve(2 * sizeof bytes);
    for (unsigned char byte : bytes) {
        token.push_back(kHex[byte >> 4]);
        token.push_back(kHex[byte & 0x0f]);
    }
    return token;
}

bool secret_equals(std::string_view presented, std::string_view expected) {
    if (presented.size() != expected.size()) return false;
    unsigned char difference = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        difference |= static_cast<unsigned char>(presented[i] ^ expected[i]);
    }
    // volatile: keeps the compiler from turning the loop back into an early exit.
    volatile unsigned char result = difference;
    return result == 0;
}

}  // namespace acp::detail::tools
