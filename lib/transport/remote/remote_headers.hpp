// SPDX-License-Identifier: Apache-2.0
// The host's extra request headers: checked before any is sent, and kept out of what
// libacp logs or reports (a hostile server may echo them back in a body or a message).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acp/log.hpp"
#include "acp/status.hpp"

namespace acp::detail {

// A name must be an HTTP token and a value must not hold a line break or other control
// character (which would let it forge further headers). The message names the header,
// never its value.
Status check_remote_headers(const std::vector<std::pair<std::string, std::string>>& headers);

// What of the headers must never appear in a log line or a status: every value, and every
// word after a value's first (the token of "Bearer TOKEN"), of at least 4 bytes. All
// values count, not only Authorization's: over-redaction is the safe error.
std::vector<std::string> header_secrets(const std::vector<std::pair<std::string, std::string>>& headers);
// The text with each secret replaced by "[redacted]".
std::string without_secrets(std::string_view text, const std::vector<std::string>& secrets);
// The host's sink, given every record with the secrets replaced (none: the sink itself).
LogSink redacting_sink(LogSink sink, std::vector<std::string> secrets);

}  // namespace acp::detail
