// SPDX-License-Identifier: Apache-2.0
// Who is at the other end of a local connection a host accepted (the stdio tool bridge's,
// tools/bridge_carrier.hpp): whether it runs as this same user, and its process id when the
// system tells.
//
//   Linux    SO_PEERCRED: the peer's user and pid, from the kernel
//   POSIX    getpeereid (macOS, the BSDs): its user; its pid through LOCAL_PEERPID on macOS
//   Windows  GetNamedPipeClientProcessId: its pid. Its user is not read: who may connect is
//            decided by the pipe's default ACL (others may open it for reading only, so they
//            can never send the token) and by the carrier's token, which only the agent's
//            environment holds.
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
