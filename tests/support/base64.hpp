// SPDX-License-Identifier: Apache-2.0
// Base64 encoding for tests and benchmarks that build terminal_output chunks: the
// library's own encoder (its decoder is what the tests check).
#pragma once

#include <string>

#include "session/terminal_bytes.hpp"

namespace acp::test {

inline std::string base64(const std::string& bytes) { return acp::detail::base64_encode(bytes); }

}  // namespace acp::test
