// SPDX-License-Identifier: Apache-2.0
#include "tools/microhttpd_watch.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tools/microhttpd_library.hpp"

namespace acp::detail::tools {

// The owner may destroy the watch from on_event: nothing of it is touched after.
void DaemonWatch::on_event(uv_handle_t* handle) {
    const auto* watch = static_cast<const DaemonWatch*>(handle->data);
    watch->wake_(watch->owner_);
}

DaemonWatch::DaemonWatch(uv_loop_t* loop, Wake wake, void* owner)
    : loop_(loop), wake_(wake), owner_(owner), timer_(new uv_timer_t) {
    uv_timer_init(loop_, timer_.get());
    timer_->data = this;
}

DaemonWatch::~DaemonWatch() = default;

unsigned DaemonWatch::start_flags(HttpPolling polling) {
    const bool epoll = polling == HttpPolling::best && microhttpd().is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES;
    return epoll ? MHD_USE_EPOLL : 0;  // 0: external select(), whose sets are watched here instead
}

Status DaemonWatch::rearm(MHD_Daemon* daemon) {
    fd_set read_set;
    fd_set write_set;
    fd_set except_set;
    FD_ZERO(&read_set);
    FD_ZERO(&write_set);
    FD_ZERO(&except_set);
    MHD_socket max_fd = MHD_INVALID_SOCKET;
    if (microhttpd().get_fdset2(daemon, &read_set, &write_set, &except_set, &max_fd, FD_SETSIZE) != MHD_YES) {
        return Status(Errc::io_error, "tools over HTTP: a connection's descriptor does not fit an fd_set");
    }
    std::vector<MHD_socket> gone;
    for (const auto& [fd, poll] : polls_) {
        if (fd > max_fd || (!FD_ISSET(fd, &read_set) && !FD_ISSET(fd, &write_set))) gone.push_back(fd);
    }
    for (MHD_socket fd : gone) polls_.erase(fd);  // closed before the daemon closes the socket
    for (MHD_socket fd = 0; max_fd != MHD_INVALID_SOCKET && fd <= max_fd; ++fd) {
        const int events = (FD_ISSET(fd, &read_set) ? UV_READABLE : 0) | (FD_ISSET(fd, &write_set) ? UV_WRITABLE : 0);
        if (events == 0) continue;
        auto& poll = polls_[fd];
        if (!poll) {
            poll.reset(new uv_poll_t);
            if (int rc = uv_poll_init_socket(loop_, poll.get(), fd); rc != 0) {
                delete poll.release();  // never initialized: nothing to close
                polls_.erase(fd);
                return Status(Errc::io_error,
                              std::string("tools over HTTP: cannot watch the server: ") + uv_strerror(rc));
            }
            poll->data = this;
        }
        // Started again every time, never left as it was: a socket the daemon closed and
        // a new connection that got the same number is registered afresh with the loop.
        uv_poll_start(poll.get(), events,
                      [](uv_poll_t* handle, int, int) { on_event(reinterpret_cast<uv_handle_t*>(handle)); });
    }
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (microhttpd().get_timeout(daemon, &timeout) != MHD_YES) {
        uv_timer_stop(timer_.get());
        return Status();
    }
    const uint64_t ms = std::min<uint64_t>(timeout, std::numeric_limits<uint32_t>::max());
    uv_timer_start(
        timer_.get(), [](uv_timer_t* handle) { on_event(reinterpret_cast<uv_handle_t*>(handle)); }, ms, 0);
    return Status();
}

void DaemonWatch::wake_soon() {
    uv_timer_start(
        timer_.get(), [](uv_timer_t* handle) { on_event(reinterpret_cast<uv_handle_t*>(handle)); }, 0, 0);
}

}  // namespace acp::detail::tools
