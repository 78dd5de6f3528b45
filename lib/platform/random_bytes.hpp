// SPDX-License-Identifier: Apache-2.0
// Bytes from the operating system's random source, for secrets a peer must not guess (the
// tool carriers' tokens): getentropy on POSIX, BCryptGenRandom on Windows.
//
//   unsigned char key[32];
//   if (Status s = fill_random(key, sizeof key); !s.ok()) return s;
#pragma once

#include <cstddef>

#include "acp/status.hpp"

namespace acp::detail {

// Fills all `size` bytes or fails naming why; never returns fewer.
Status fill_random(unsigned char* bytes, std::size_t size);

}  // namespace acp::detail
