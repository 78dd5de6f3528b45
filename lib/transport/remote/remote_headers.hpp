// SPDX-License-Identifier: Apache-2.0
// Checks the host's extra request headers before any is sent.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "acp/status.hpp"

namespace acp::detail {

// A name must be an HTTP token and a value must not hold a line break or other control
// character (which would let it forge further headers). The message names the header,
// never its value.
Status check_remote_headers(const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace acp::detail
