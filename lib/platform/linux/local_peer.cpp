// SPDX-License-Identifier: Apache-2.0
#include "platform/local_peer.hpp"

#include <sys/socket.h>
#include <unistd.h>

namespace acp::detail {

LocalPeer local_peer(uv_pipe_t* accepted) {
    LocalPeer peer;
    uv_os_fd_t fd = -1;
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(accepted), &fd) != 0 ||
        ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
        return peer;
    }
    peer.same_user = credentials.uid == ::geteuid();
    peer.pid = credentials.pid;
    return peer;
}

}  // namespace acp::detail
