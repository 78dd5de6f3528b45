// SPDX-License-Identifier: Apache-2.0
#include "platform/broken_pipe.hpp"

#include <csignal>
#include <mutex>

namespace acp::detail {

void ignore_broken_pipe_signal() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction current {};
        if (sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
            std::signal(SIGPIPE, SIG_IGN);
        }
    });
}

}  // namespace acp::detail
