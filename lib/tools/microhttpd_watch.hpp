// SPDX-License-Identifier: Apache-2.0
// A libmicrohttpd daemon watched on a libuv loop (internal; issue 31).
//
// The HTTP carrier runs libmicrohttpd with external polling, so that every request is
// handled on the client's loop without a thread. What to watch depends on the library:
// where it has epoll (Linux) the daemon waits on one epoll descriptor; elsewhere (macOS,
// the BSDs) on each of its sockets, a set that changes as connections come and go. Both
// come from MHD_get_fdset2, so one code path serves both; `HttpPolling::sockets` picks
// the second on Linux too, which is how it is tested there.
//
//   DaemonWatch watch(loop, &Impl::run_daemon, this);
//   daemon = MHD_start_daemon(DaemonWatch::start_flags(polling) | ..., ...);
//   after every MHD_run(daemon): watch.rearm(daemon);
#pragma once

#include <microhttpd.h>
#include <uv.h>

#include <unordered_map>

#include "acp/status.hpp"
#include "support/uv_handle.hpp"
#include "tools/http_carrier.hpp"

namespace acp::detail::tools {

class DaemonWatch {
public:
    // wake(owner) runs the daemon (MHD_run) and then calls rearm; it may destroy the watch.
    using Wake = void (*)(void* owner);
    DaemonWatch(uv_loop_t* loop, Wake wake, void* owner);
    ~DaemonWatch();  // stops watching at once (the handles are freed a loop turn later)
    DaemonWatch(const DaemonWatch&) = delete;
    DaemonWatch& operator=(const DaemonWatch&) = delete;

    // The polling flags to start the daemon with.
    static unsigned start_flags(HttpPolling polling);

    // Watches what the daemon waits for now: its descriptors and its timeout. Fails when a
    // descriptor does not fit an fd_set (only without epoll); the watch stays as it was.
    Status rearm(MHD_Daemon* daemon);
    // Runs the daemon at the next loop turn (an answer came: a suspended request resumes).
    void wake_soon();

private:
    static void on_event(uv_handle_t* handle);

    uv_loop_t* loop_;
    Wake wake_;
    void* owner_;
    UvHandlePtr<uv_timer_t> timer_;
    std::unordered_map<MHD_socket, UvHandlePtr<uv_poll_t>> polls_;
};

}  // namespace acp::detail::tools
