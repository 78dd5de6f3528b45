// SPDX-License-Identifier: Apache-2.0
// Where the agent guard (lib/platform/linux/guard/agent_guard.c) is run from.
//
// The guard's executable is embedded in libacp at build time and written once per
// process into a sealed memfd, then executed as /proc/self/fd/N. That works the same for
// an installed library, the build tree, and hosts with no known executable path (Python,
// LuaJIT), and nothing on disk can be swapped for it.
#pragma once

#include <string>

#include "acp/status.hpp"

namespace acp::detail {

// The path to execute the guard by ("/proc/self/fd/N", valid in this process and in a
// child forked from it until it executes), or why the guard cannot be run here.
Result<std::string> agent_guard_path();

}  // namespace acp::detail
