// SPDX-License-Identifier: Apache-2.0
// Strict UTF-8 validation of a whole line before it is parsed (internal).
//
// RapidJSON's own validation (kParseValidateEncodingFlag) checks string bytes one at a
// time and turns off its fast string scanning: it cost more than half of the parse. A line
// is valid JSON text in UTF-8 exactly when all its bytes are (outside strings JSON allows
// only ASCII anyway), so MessageParser checks the line here first, sixteen ASCII bytes at a
// time, and parses without the flag. The rules are RapidJSON's (RFC 3629): no overlong
// forms, no encoded surrogates, nothing above U+10FFFF.
#pragma once

#include <cstddef>

namespace acp::detail {

// The offset of the first byte that is not part of valid UTF-8, or size when all are.
std::size_t first_invalid_utf8(const char* data, std::size_t size);

}  // namespace acp::detail
