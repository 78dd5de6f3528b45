// SPDX-License-Identifier: Apache-2.0
#include "platform/local_peer.hpp"

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

namespace acp::detail {

LocalPeer local_peer(uv_pipe_t* accepted) {
    LocalPeer peer;
    uv_os_fd_t fd = -1;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(accepted), &fd) != 0) return peer;
#if defined(ACP_HAVE_GETPEEREID)
    uid_t uid = 0;
    gid_t gid = 0;
    if (::getpeereid(fd, &uid, &gid) != 0) return peer;
    peer.same_user = uid == ::geteuid();
#if defined(LOCAL_PEERPID)  // macOS
    pid_t pid = 0;
    socklen_t size = sizeof pid;
    if (::getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &size) == 0) peer.pid = pid;
#endif
#else
    // glibc has no getpeereid: this variant is built on Linux only to be tested there.
    ucred credentials{};
    socklen_t size = sizeof credentials;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return peer;
    peer.same_user = credentials.uid == ::geteuid();
    peer.pid = credentials.pid;
#endif
    return peer;
}

}  // namespace acp::detail
