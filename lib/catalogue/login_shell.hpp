// SPDX-License-Identifier: Apache-2.0
// The environment of the user's login shell (internal): what a GUI-started editor lacks.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>

#include "acp/catalogue.hpp"

namespace acp::detail {

// Every variable the login shell exports: `$SHELL -l -i -c 'echo MARK; env -0'` in a new
// session (no controlling terminal to take over), stdin and stderr on /dev/null, output
// bounded, the whole session killed at the timeout.
Result<EnvList> run_login_shell(std::chrono::milliseconds timeout);

// PATH first, then each of names in their order, as far as `all` holds them.
EnvList pick_variables(const EnvList& all, const std::vector<std::string>& names);

// The first answer of run_login_shell, kept: the shell runs once per catalogue.
class LoginShellCache {
public:
    const Result<EnvList>& get(std::chrono::milliseconds timeout);

private:
    std::mutex mutex_;
    std::optional<Result<EnvList>> result_;
};

}  // namespace acp::detail
