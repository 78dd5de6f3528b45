// SPDX-License-Identifier: Apache-2.0
#include "runtime/pending_watchers.hpp"

#include <atomic>

namespace acp::detail {

namespace {

std::atomic<WatcherProbe> forced_probe{WatcherProbe::automatic};

// libuv 1.44.2 ("loop: better align order-of-events behavior between platforms") made
// uv_backend_timeout() return 0 while the watcher queue is not empty.
constexpr unsigned int kTimeoutCountsWatchers = (1u << 16) | (44u << 8) | 2u;

// Every libuv 1.x on Unix keeps the queue as a circular list head of two pointers
// (void*[2] up to 1.46, struct uv__queue {next, prev} after) whose first pointer points
// to the head itself when the queue is empty. libuv keeps uv_loop_t's layout stable
// within a major version, so the loaded library agrees when its major version does.
#if !defined(_WIN32) && UV_VERSION_MAJOR == 1
#define ACP_KNOWS_UV_WATCHER_QUEUE 1
static_assert(sizeof(static_cast<uv_loop_t*>(nullptr)->watcher_queue) == 2 * sizeof(void*),
              "uv_loop_t::watcher_queue is not a two-pointer list head");

PendingWatchers read_private_queue(const uv_loop_t* loop) {
    if ((uv_version() >> 16) != UV_VERSION_MAJOR) return PendingWatchers::unknown;
    void* const* head = reinterpret_cast<void* const*>(&loop->watcher_queue);
    return head[0] == static_cast<const void*>(head) ? PendingWatchers::none : PendingWatchers::some;
}
#else
PendingWatchers read_private_queue(const uv_loop_t*) { return PendingWatchers::unknown; }
#endif

}  // namespace

PendingWatchers pending_watchers(const uv_loop_t* loop) {
    switch (forced_probe.load(std::memory_order_relaxed)) {
        case WatcherProbe::public_timeout: return PendingWatchers::none;
        case WatcherProbe::private_queue: return read_private_queue(loop);
        case WatcherProbe::blind: return PendingWatchers::unknown;
        case WatcherProbe::automatic: break;
    }
    if (uv_version() >= kTimeoutCountsWatchers) return PendingWatchers::none;
    return read_private_queue(loop);
}

void set_watcher_probe(WatcherProbe probe) { forced_probe.store(probe, std::memory_order_relaxed); }

}  // namespace acp::detail
