// SPDX-License-Identifier: Apache-2.0
#include "platform/ready_signal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace acp::detail {

ReadySignal::~ReadySignal() {
    for (int fd : {read_end_, write_end_}) {
        if (fd >= 0) ::close(fd);
    }
}

Status ReadySignal::open() {
    int fds[2];
    if (::pipe(fds) != 0) return Status(Errc::internal, std::string("pipe() failed: ") + std::strerror(errno));
    for (int fd : fds) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    read_end_ = fds[0];
    write_end_ = fds[1];
    return Status();
}

void ReadySignal::raise() {
    const char byte = 1;
    // The caller raises only a lowered signal: the pipe holds at most one byte.
    [[maybe_unused]] ssize_t written = ::write(write_end_, &byte, 1);
}

void ReadySignal::lower() {
    char buffer[16];
    while (::read(read_end_, buffer, sizeof buffer) > 0) {
    }
}

}  // namespace acp::detail
