// SPDX-License-Identifier: Apache-2.0
#include "platform/broken_pipe.hpp"

namespace acp::detail {

// No SIGPIPE on Windows: a write to a closed pipe fails, and libuv reports it.
void ignore_broken_pipe_signal() {}

}  // namespace acp::detail
