// SPDX-License-Identifier: Apache-2.0
#include "platform/loop_wait.hpp"

#include <poll.h>

namespace acp::detail {

int loop_descriptor(uv_loop_t* loop) { return uv_backend_fd(loop); }

void wait_for_loop(uv_loop_t* loop, int timeout_ms) {
    pollfd p{uv_backend_fd(loop), POLLIN, 0};
    // EINTR (libuv's SIGCHLD handler) just ends the wait early; the caller's run copes.
    (void)::poll(&p, 1, timeout_ms);
}

}  // namespace acp::detail
