// SPDX-License-Identifier: Apache-2.0
// Who is at the other end of a local connection a host accepted (the stdio tool bridge's,
// tools/bridge_carrier.hpp): whether it runs as this same user, and its process id when the
// system tells.
//
//   Linux    SO_PEERCRED: the peer's user and pid, from the kernel
//   POSIX    getpeereid (macOS, the BSDs): its user; its pid through LOCAL_PEERPID on macOS
//   Windows  GetNamedPipeClientProcessId: its pid; its user from that process's token.
//
//   LocalPeer peer = local_peer(&accepted_pipe);
//   if (!peer.same_user) refuse();
#pragma once

#include <uv.h>

namespace acp::detail {

struct LocalPeer {
    bool same_user = false;  // false also when it could not be told
    long pid = 0;            // 0: not known
};

LocalPeer local_peer(uv_pipe_t* accepted);

}  // namespace acp::detail
