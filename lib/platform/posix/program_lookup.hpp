// SPDX-License-Identifier: Apache-2.0
// Checks an agent's program and working directory before anything is spawned, so that
// "not found" and "not executable" are reported naming the program, not as a bare errno
// from the child (POSIX: execvp's rules with the agent's PATH).
#pragma once

#include <string>
#include <vector>

#include "acp/status.hpp"

namespace acp::detail {

// Errc::spawn_failed unless cwd is empty or names a directory.
Status check_agent_directory(const std::string& cwd);

// The path to execute program by: unchanged when it contains '/', else found on the PATH
// of env ("NAME=VALUE" entries; the system's default PATH when it has none).
Result<std::string> resolve_agent_program(const std::string& program, const std::vector<std::string>& env,
                                          const std::string& cwd);

}  // namespace acp::detail
