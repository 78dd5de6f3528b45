// SPDX-License-Identifier: Apache-2.0
// Terminal output bytes (internal): base64 decoding of one chunk and an incremental UTF-8
// decoder whose state survives chunk boundaries (CLIENT-GUIDE 6.4, CLIENT-MUST-54).
#pragma once

#include <string>
#include <string_view>

namespace acp::detail {

// Decodes standard base64 (padding optional) and appends the bytes to out. Returns false,
// leaving out unchanged, when the text is not base64.
bool base64_decode_append(std::string_view base64, std::string& out);
// Standard base64 with padding (the terminal output snapshots the client builds itself).
std::string base64_encode(std::string_view bytes);

// Appends the UTF-8 decoding of bytes to text. A sequence cut off at the end waits in
// pending for the next call; each maximal invalid subpart becomes one U+FFFD (the
// WHATWG / Unicode "best practice" replacement), so the result never depends on where the
// chunks were split.
void utf8_decode_append(std::string_view bytes, std::string& pending, std::string& text);

}  // namespace acp::detail
