// SPDX-License-Identifier: Apache-2.0
// Whether a host may wait on a libuv loop's backend descriptor now.
//
// libuv queues a watcher started by uv_read_start, uv_poll_start or a write that could
// not finish at once, and registers it (epoll_ctl) only at its next poll. A host that
// waits on uv_backend_fd() meanwhile waits on a set that lacks that descriptor. Since
// libuv 1.44.2 uv_backend_timeout() itself answers 0 while such watchers wait (libuv
// issues #1565 and #3234 asked for it), so the public API is enough there. Older libuv
// 1.x says nothing about them, and the only way to know is its private watcher queue.
#pragma once

#include <uv.h>

namespace acp::detail {

enum class PendingWatchers {
    none,     // nothing uv_backend_timeout() does not already account for
    some,     // watchers wait for registration: run the loop once more before waiting
    unknown,  // neither the public API nor a known layout tells: assume some may wait
};

// How pending_watchers() finds out; `automatic` picks by the libuv actually loaded.
enum class WatcherProbe { automatic, public_timeout, private_queue, blind };

// libuv >= 1.44.2: `none` (the public timeout covers it). Older libuv 1.x on Unix: reads
// the private watcher queue, whose layout is checked at compile time and against the
// loaded library's major version. Anything else: `unknown`, touching nothing private.
PendingWatchers pending_watchers(const uv_loop_t* loop);

// For tests: force one way of finding out.
void set_watcher_probe(WatcherProbe probe);

}  // namespace acp::detail
