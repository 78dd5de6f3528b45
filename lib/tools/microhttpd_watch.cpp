// SPDX-License-Identifier: Apache-2.0
#include "tools/microhttpd_watch.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tools/microhttpd_library.hpp"

namespace acp::detail::tools {

// The owner may destroy the watch from wake_: nothing of it is touched after.
void DaemonWatch::on_event(uv_handle_t* handle) {
    auto* watch = static_cast<DaemonWatch*>(handle->data);
    watch->wake_pending_ = false;
    watch->wake_(watch->owner_);
}

DaemonWatch::DaemonWatch(uv_loop_t* loop, HttpPolling polling, Wake wake, void* owner)
    : loop_(loop),
      epoll_(polling == HttpPolling::best && microhttpd().is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES),
      wake_(wake),
      owner_(owner),
      timer_(new uv_timer_t) {
    uv_timer_init(loop_, timer_.get());
    timer_->data = this;
}

DaemonWatch::~DaemonWatch() = default;

unsigned DaemonWatch::start_flags() const {
    return epoll_ ? MHD_USE_EPOLL : 0;  // 0: external select(), whose sets are watched here instead
}

Status DaemonWatch::rearm(MHD_Daemon* daemon) {
    if (Status watched = epoll_ ? watch_epoll(daemon) : watch_sockets(daemon); !watched) return watched;
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (wake_pending_) {
        start_timer(0);
    } else if (microhttpd().get_timeout(daemon, &timeout) == MHD_YES) {
        start_timer(std::min<uint64_t>(timeout, std::numeric_limits<uint32_t>::max()));
    } else {
        uv_timer_stop(timer_.get());
    }
    return Status();
}

// The epoll descriptor by its number, which no fd_set bounds (an IDE holds thousands).
Status DaemonWatch::watch_epoll(MHD_Daemon* daemon) {
    if (epoll_poll_) return Status();
    const MHD_DaemonInfo* info = microhttpd().get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    if (info == nullptr) return Status(Errc::io_error, "tools over HTTP: the HTTP server has no epoll descriptor");
    epoll_poll_.reset(new uv_poll_t);
    if (int rc = uv_poll_init(loop_, epoll_poll_.get(), info->epoll_fd); rc != 0) {
        delete epoll_poll_.release();  // never initialized: nothing to close
        return Status(Errc::io_error, std::string("tools over HTTP: cannot watch the server: ") + uv_strerror(rc));
    }
    epoll_poll_->data = this;
    uv_poll_start(epoll_poll_.get(), UV_READABLE,
                  [](uv_poll_t* handle, int, int) { on_event(reinterpret_cast<uv_handle_t*>(handle)); });
    return Status();
}

Status DaemonWatch::watch_sockets(MHD_Daemon* daemon) {
    fd_set read_set;
    fd_set write_set;
    fd_set except_set;
    FD_ZERO(&read_set);
    FD_ZERO(&write_set);
    FD_ZERO(&except_set);
    MHD_socket max_fd = MHD_INVALID_SOCKET;
    if (microhttpd().get_fdset2(daemon, &read_set, &write_set, &except_set, &max_fd, FD_SETSIZE) != MHD_YES) {
        return Status(Errc::io_error, "tools over HTTP: a socket's number does not fit an fd_set");
    }
    std::vector<MHD_socket> idle;
    for (const auto& [fd, poll] : polls_) {
        if (fd > max_fd || (!FD_ISSET(fd, &read_set) && !FD_ISSET(fd, &write_set))) idle.push_back(fd);
    }
    for (MHD_socket fd : idle) polls_.erase(fd);  // still open: only closed sockets are forgotten first
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
        uv_poll_start(poll.get(), events,
                      [](uv_poll_t* handle, int, int) { on_event(reinterpret_cast<uv_handle_t*>(handle)); });
    }
    return Status();
}

void DaemonWatch::forget(MHD_socket socket) { polls_.erase(socket); }

void DaemonWatch::wake_soon() {
    wake_pending_ = true;
    start_timer(0);
}

void DaemonWatch::start_timer(uint64_t ms) {
    uv_timer_start(
        timer_.get(), [](uv_timer_t* handle) { on_event(reinterpret_cast<uv_handle_t*>(handle)); }, ms, 0);
}

}  // namespace acp::detail::tools
