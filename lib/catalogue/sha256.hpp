// SPDX-License-Identifier: Apache-2.0
// SHA-256 (FIPS 180-4) of a file, for checking a downloaded agent archive against the
// registry's digest (internal). Small enough to own rather than load a crypto library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "acp/status.hpp"

namespace acp::detail {

class Sha256 {
public:
    Sha256();
    void update(const unsigned char* data, std::size_t size);
    // Lower-case hex of the digest; the object is spent afterwards.
    std::string hex_digest();

private:
    void block(const unsigned char* data);

    std::uint32_t state_[8];
    unsigned char buffer_[64];
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

Result<std::string> sha256_file(const std::string& path);

}  // namespace acp::detail
