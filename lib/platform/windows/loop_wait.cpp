// SPDX-License-Identifier: Apache-2.0
#include "platform/loop_wait.hpp"

namespace acp::detail {

int loop_descriptor(uv_loop_t*) { return -1; }

void wait_for_loop(uv_loop_t* loop, int timeout_ms) {
    // UV_RUN_ONCE blocks until one completion (or timer) arrives and runs it; a timer of
    // our own bounds the block. With no limit, the run waits for whatever comes first.
    if (timeout_ms < 0) {
        uv_run(loop, UV_RUN_ONCE);
        return;
    }
    uv_timer_t timer;
    uv_timer_init(loop, &timer);
    uv_timer_start(
        &timer, [](uv_timer_t*) {}, static_cast<uint64_t>(timeout_ms), 0);
    uv_run(loop, UV_RUN_ONCE);
    // Closed and its close callback run before the stack frame that holds it goes away.
    uv_close(reinterpret_cast<uv_handle_t*>(&timer), nullptr);
    uv_run(loop, UV_RUN_NOWAIT);
}

}  // namespace acp::detail
