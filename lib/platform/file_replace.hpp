// SPDX-License-Identifier: Apache-2.0
// Replacing a whole file so that a reader sees the old contents or the new, never half
// (the catalogue's registry cache): written beside it, then renamed over it (POSIX rename;
// MoveFileExW with MOVEFILE_REPLACE_EXISTING on Windows, whose rename refuses an existing
// target). The missing folders above it are made first, private to the user on POSIX.
//
//   if (Status s = replace_file(cache, text); !s) log(s.message());
#pragma once

#include <string>
#include <string_view>

#include "acp/status.hpp"

namespace acp::detail {

Status replace_file(const std::string& path, std::string_view contents);

}  // namespace acp::detail
