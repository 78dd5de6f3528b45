// SPDX-License-Identifier: Apache-2.0
#include "platform/random_bytes.hpp"

// clang-format off
#include <windows.h>
#include <bcrypt.h>
// clang-format on

#include <algorithm>
#include <string>

namespace acp::detail {

Status fill_random(unsigned char* bytes, std::size_t size) {
    // The system's preferred generator, no algorithm handle to open (Windows 7 and later).
    constexpr std::size_t kMaxPerCall = 1 << 30;
    for (std::size_t filled = 0; filled < size;) {
        std::size_t chunk = std::min(size - filled, kMaxPerCall);
        NTSTATUS status =
            ::BCryptGenRandom(nullptr, bytes + filled, static_cast<ULONG>(chunk), BCRYPT_USE_SYSTEM_PREFERRED_RNG);
        if (status < 0) {
            return Status(Errc::internal, "BCryptGenRandom failed: NTSTATUS " + std::to_string(status));
        }
        filled += chunk;
    }
    return Status();
}

}  // namespace acp::detail
