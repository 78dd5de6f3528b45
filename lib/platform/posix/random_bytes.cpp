// SPDX-License-Identifier: Apache-2.0
#include "platform/random_bytes.hpp"

#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace acp::detail {

Status fill_random(unsigned char* bytes, std::size_t size) {
    // getentropy (Linux, macOS, the BSDs) gives at most 256 bytes a call.
    constexpr std::size_t kMaxPerCall = 256;
    for (std::size_t filled = 0; filled < size;) {
        std::size_t chunk = std::min(size - filled, kMaxPerCall);
        if (::getentropy(bytes + filled, chunk) != 0) {
            if (errno == EINTR) continue;
            return Status(Errc::internal, std::string("getentropy failed: ") + std::strerror(errno));
        }
        filled += chunk;
    }
    return Status();
}

}  // namespace acp::detail
