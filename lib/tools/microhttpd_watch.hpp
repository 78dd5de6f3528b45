// SPDX-License-Identifier: Apache-2.0
// A libmicrohttpd daemon watched on a libuv loop (internal; issue 31).
//
// The HTTP carrier runs libmicrohttpd with external polling, so that every request is
// handled on the client's loop without a thread. What to watch depends on the library:
// where it has epoll (Linux) the daemon waits on its one epoll descriptor, whatever its
// number; elsewhere (macOS, the BSDs) on each of its sockets, the set MHD_get_fdset2
// gives, which changes as connections come and go. `HttpPolling::sockets` takes the
// second path on Linux too, which is how it is tested there.
//
//   DaemonWatch watch(loop, polling, &Impl::run_daemon, this);
//   daemon = MHD_start_daemon(watch.start_flags() | ..., MHD_OPTION_NOTIFY_CONNECTION, ...);
//   after every MHD_run(daemon): watch.rearm(daemon);
//   when a connection closes (MHD_CONNECTION_NOTIFY_CLOSED): watch.forget(its socket);
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
    DaemonWatch(uv_loop_t* loop, HttpPolling polling, Wake wake, void* owner);
    ~DaemonWatch();  // stops watching at once (the handles are freed a loop turn later)
    DaemonWatch(const DaemonWatch&) = delete;
    DaemonWatch& operator=(const DaemonWatch&) = delete;

    // The polling flags to start the daemon with.
    unsigned start_flags() const;

    // Watches what the daemon waits for now: its descriptors and its timeout. Fails when
    // there is nothing to watch, or (each socket) one past FD_SETSIZE, which libmicrohttpd
    // refuses itself; the watch then stays as it was.
    Status rearm(MHD_Daemon* daemon);
    // A connection's socket is about to be closed by the daemon: unwatched now, while the
    // number is still its own (a number reused by the host must never meet a stale watch).
    void forget(MHD_socket socket);
    // Runs the daemon at the next loop turn (an answer came: a suspended request resumes),
    // even if the run under way rearms meanwhile.
    void wake_soon();

private:
    static void on_event(uv_handle_t* handle);
    Status watch_epoll(MHD_Daemon* daemon);
    Status watch_sockets(MHD_Daemon* daemon);
    void start_timer(uint64_t ms);

    uv_loop_t* loop_;
    bool epoll_;
    Wake wake_;
    void* owner_;
    bool wake_pending_ = false;
    UvHandlePtr<uv_timer_t> timer_;
    UvHandlePtr<uv_poll_t> epoll_poll_;
    std::unordered_map<MHD_socket, UvHandlePtr<uv_poll_t>> polls_;
};

}  // namespace acp::detail::tools
