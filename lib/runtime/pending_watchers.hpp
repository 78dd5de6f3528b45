// SPDX-License-Identifier: Apache-2.0
// Whether a libuv loop holds watchers it has not handed to the kernel yet.
//
// libuv queues a watcher started by uv_read_start, uv_poll_start or a write that could
// not finish at once, and registers it (epoll_ctl) only at its next poll. A host that
// waits on uv_backend_fd() meanwhile waits on a set that lacks that descriptor, and
// uv_backend_timeout() does not count such watchers (libuv issues #1565, #3234: no public
// API answers the question). Polled mode therefore has to know, so that it can tell the
// host to run the loop once more (timeout 0) instead of waiting.
#pragma once

#include <uv.h>

namespace acp::detail {

enum class PendingWatchers {
    none,     // every started watcher is registered: waiting on the backend fd is safe
    some,     // run the loop once more before waiting
    unknown,  // this libuv's layout is not one we know: assume some may be pending
};

// Reads libuv's private watcher queue only where its layout is known: libuv 1.x on Unix,
// checked both at compile time and against the library actually loaded. Elsewhere (or
// when disabled for tests) it answers `unknown` without touching private fields.
PendingWatchers pending_watchers(const uv_loop_t* loop);

// For tests: take the public-API fallback even where the private read is possible.
void force_pending_watchers_fallback(bool enabled);

}  // namespace acp::detail
