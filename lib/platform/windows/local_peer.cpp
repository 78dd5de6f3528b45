// SPDX-License-Identifier: Apache-2.0
#include "platform/local_peer.hpp"

#include <windows.h>

namespace acp::detail {

LocalPeer local_peer(uv_pipe_t* accepted) {
    LocalPeer peer;
    uv_os_fd_t handle = INVALID_HANDLE_VALUE;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(accepted), &handle) != 0) return peer;
    // Not read from the client's token: the pipe's default ACL lets other users open it for
    // reading only, so they never send the carrier's token, which alone admits a bridge.
    peer.same_user = true;
    ULONG pid = 0;
    if (::GetNamedPipeClientProcessId(handle, &pid)) peer.pid = static_cast<long>(pid);
    return peer;
}

}  // namespace acp::detail
