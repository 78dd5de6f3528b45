// SPDX-License-Identifier: Apache-2.0
#include "platform/local_peer.hpp"

#include <windows.h>

#include "platform/windows/user_sid.hpp"

namespace acp::detail {

LocalPeer local_peer(uv_pipe_t* accepted) {
    LocalPeer peer;
    uv_os_fd_t handle = INVALID_HANDLE_VALUE;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(accepted), &handle) != 0) return peer;
    // Read from the client process's token: other users may open the pipe for reading (its
    // default ACL), and would otherwise hold the carrier's few connections until each
    // token timeout. The token the bridge sends is the check that admits it.
    ULONG pid = 0;
    if (!::GetNamedPipeClientProcessId(handle, &pid)) return peer;
    peer.pid = static_cast<long>(pid);
    HANDLE process = ::OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (process == nullptr) return peer;
    static const std::vector<unsigned char> mine = process_user_sid(::GetCurrentProcess());
    peer.same_user = same_sid(mine, process_user_sid(process));
    ::CloseHandle(process);
    return peer;
}

}  // namespace acp::detail
