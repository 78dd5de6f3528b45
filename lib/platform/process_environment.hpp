// SPDX-License-Identifier: Apache-2.0
// The host process's own environment, which an agent inherits unless told otherwise
// (SpawnOptions::env_set, env_unset).
#pragma once

#include <string>
#include <vector>

namespace acp::detail {

// Every entry as "NAME=VALUE" in UTF-8, in the order the operating system keeps them.
// Entries without '=' are left out.
std::vector<std::string> host_environment();

}  // namespace acp::detail
