// SPDX-License-Identifier: Apache-2.0
#include "platform/login_shell.hpp"

namespace acp::detail {

Result<EnvList> run_login_shell(std::chrono::milliseconds) {
    return Status(Errc::unsupported,
                  "not needed on Windows: every program gets the user's whole environment, there is no login shell");
}

}  // namespace acp::detail
