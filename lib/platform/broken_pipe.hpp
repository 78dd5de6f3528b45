// SPDX-License-Identifier: Apache-2.0
// Writing to a pipe whose reader died must come back as a failed write, never end the host.
//
// POSIX raises SIGPIPE for it, which kills the host by default: libacp ignores the signal
// unless the host installed a handler of its own (then the host's is kept). Windows has no
// such signal; the write fails with ERROR_NO_DATA / ERROR_BROKEN_PIPE, nothing to do.
#pragma once

namespace acp::detail {

// Once per process; cheap to call before every pipe is made.
void ignore_broken_pipe_signal();

}  // namespace acp::detail
