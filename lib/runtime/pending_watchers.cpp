// SPDX-License-Identifier: Apache-2.0
#include "runtime/pending_watchers.hpp"

#include <atomic>

namespace acp::detail {

namespace {

std::atomic<bool> fallback_forced{false};

// Every libuv 1.x on Unix keeps the queue as a circular list head of two pointers
// (void*[2] up to 1.46, struct uv__queue {next, prev} after) whose first pointer points
// to the head itself when the queue is empty. libuv keeps uv_loop_t's layout stable
// within a major version, so the loaded library agrees when its major version does.
#if !defined(_WIN32) && UV_VERSION_MAJOR == 1
#define ACP_KNOWS_UV_WATCHER_QUEUE 1
static_assert(sizeof(static_cast<uv_loop_t*>(nullptr)->watcher_queue) == 2 * sizeof(void*),
              "uv_loop_t::watcher_queue is not a two-pointer list head");

bool loaded_libuv_matches() {
    static const bool matches = (uv_version() >> 16) == UV_VERSION_MAJOR;
    return matches;
}

bool queue_empty(const uv_loop_t* loop) {
    void* const* head = reinterpret_cast<void* const*>(&loop->watcher_queue);
    return head[0] == static_cast<const void*>(head);
}
#endif

}  // namespace

PendingWatchers pending_watchers(const uv_loop_t* loop) {
    if (fallback_forced.load(std::memory_order_relaxed)) return PendingWatchers::unknown;
#ifdef ACP_KNOWS_UV_WATCHER_QUEUE
    if (loaded_libuv_matches()) return queue_empty(loop) ? PendingWatchers::none : PendingWatchers::some;
#else
    (void)loop;
#endif
    return PendingWatchers::unknown;
}

void force_pending_watchers_fallback(bool enabled) { fallback_forced.store(enabled, std::memory_order_relaxed); }

}  // namespace acp::detail
