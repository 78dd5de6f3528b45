// SPDX-License-Identifier: Apache-2.0
// Stops an agent's whole process tree from the host, for when the agent guard cannot:
// the agent stopped it (SIGSTOP), killed it, or it no longer answers (internal).
//
// The guard normally sweeps the tree itself (lib/platform/linux/guard/agent_guard.c). Once it
// is gone, orphans are re-parented away from it, so the host finds the tree by every mark
// a process keeps: descent from the guard or the agent, the guard's session and the
// agent's process group, and a per-spawn marker in the environment the agent started
// with (which setsid() and re-parenting do not change). Each pass freezes what it found
// with SIGSTOP before SIGKILL, so nothing forks between finding and killing.
//
// Linux: reads /proc. A hostile agent that scrubs its children's environment and
// detaches them from both its session and its group before the guard dies can still hide
// them; cgroups would close that gap where the host may create one.
#pragma once

#include <cstddef>
#include <string>

namespace acp::detail {

struct AgentTree {
    int guard_pid = 0;   // also the session id: the guard leads its own session
    int agent_pid = 0;   // also its process group id; 0 when not known
    std::string marker;  // "NAME=VALUE" in the environment of every process the agent started
};

// SIGKILLs every process of the tree but the guard itself, until none is left (bounded
// passes); returns how many distinct processes were killed. Never signals the caller.
std::size_t kill_agent_tree(const AgentTree& tree);

// The process's state letter from /proc/PID/stat ('R', 'S', 'T' stopped, 't' traced,
// 'Z' zombie, ...), or 0 when it is gone.
char process_state(int pid);

}  // namespace acp::detail
