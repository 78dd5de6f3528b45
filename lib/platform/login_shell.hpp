// SPDX-License-Identifier: Apache-2.0
// The environment of the user's login shell: what a GUI-started editor lacks on POSIX
// systems, where PATH and the like are set by shell start-up files that only a terminal
// session runs.
//
// Windows has no such split: every program, however it was started, gets the user's whole
// environment from the registry, so there is nothing to fetch and run_login_shell says so
// (Errc::unsupported) instead of running cmd.exe.
//
//   auto env = run_login_shell(std::chrono::seconds(5));
//   if (env) for (auto& [name, value] : *env) ...
#pragma once

#include <chrono>

#include "acp/catalogue.hpp"

namespace acp::detail {

// Every variable the login shell exports: `$SHELL -l -i -c 'echo MARK; env -0'` in a new
// session (no controlling terminal to take over), stdin and stderr on /dev/null, output
// bounded, the whole session killed at the timeout.
Result<EnvList> run_login_shell(std::chrono::milliseconds timeout);

}  // namespace acp::detail
