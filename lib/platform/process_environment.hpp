// SPDX-License-Identifier: Apache-2.0
// The host process's own environment, which an agent inherits unless told otherwise
// (SpawnOptions::env_set, env_unset).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace acp::detail {

// Every entry as "NAME=VALUE" in UTF-8, in the order the operating system keeps them.
// Entries without '=' are left out.
std::vector<std::string> host_environment();

// Whether two variable names name the same variable: byte for byte on POSIX; without
// regard to case on Windows, where "Path" is "PATH".
bool same_variable_name(std::string_view a, std::string_view b);

}  // namespace acp::detail
