// SPDX-License-Identifier: Apache-2.0
// Waiting for libuv's loop from outside it: what polled hosting (acp::Runtime::fd,
// run_once) stands on.
//
// POSIX: the loop has a backend descriptor (epoll, kqueue) that a host's poll() or select()
// watches, and a wait is a poll() on it that runs nothing. Windows: libuv's loop is an I/O
// completion port, which cannot be watched without taking its completions, so there is no
// descriptor to give a host (loop_descriptor is -1) and a wait is one libuv run bounded by
// a timer: callbacks may run inside it, so the caller treats it as a run of the loop.
//
//   if (wait != 0) wait_for_loop(loop, wait);  // then uv_run(loop, UV_RUN_NOWAIT)
#pragma once

#include <uv.h>

namespace acp::detail {

// The loop's backend descriptor, or -1 where the platform has none (Windows).
int loop_descriptor(uv_loop_t* loop);

// Blocks until the loop has work or timeout_ms passed (-1: no limit). Loop thread only.
void wait_for_loop(uv_loop_t* loop, int timeout_ms);

}  // namespace acp::detail
