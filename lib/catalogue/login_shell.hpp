// SPDX-License-Identifier: Apache-2.0
// The environment of the user's login shell (internal): what a GUI-started editor lacks.
// Running the shell is the platform's (platform/login_shell.hpp); this picks and keeps.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>

#include "acp/catalogue.hpp"
#include "platform/login_shell.hpp"

namespace acp::detail {

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
