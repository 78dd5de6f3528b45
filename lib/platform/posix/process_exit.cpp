// SPDX-License-Identifier: Apache-2.0
// describe_process_exit() and stop_step_names() (platform/agent_process.hpp) for the POSIX
// platforms.
#include <cstring>
#include <string>

#include "platform/agent_process.hpp"

namespace acp::detail {

std::string describe_process_exit(int64_t exit_code, int term_signal) {
    if (term_signal != 0) {
        return "was killed by signal " + std::to_string(term_signal) + " (" + ::strsignal(term_signal) + ")";
    }
    return "exited with code " + std::to_string(exit_code);
}

StopStepNames stop_step_names() { return {"SIGTERM", "SIGKILL"}; }

}  // namespace acp::detail
