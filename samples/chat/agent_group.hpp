// SPDX-License-Identifier: Apache-2.0
// The agent's process groups, for Ctrl-C during shutdown. libacp starts the agent detached,
// in a process group of its own (so a Ctrl-C on the terminal does not reach it), under its
// guard process when it can (docs/untrusted-agent.md), and stops it with a ladder of its
// own at close(); a user who presses Ctrl-C while that ladder waits wants it to hurry, not
// to kill acp-chat and leave the agent behind.
#pragma once

#include <sys/types.h>

#include <vector>

namespace chat {

// The process groups of acp-chat's child process (the agent, or libacp's guard) and of
// that child's children (the agent under the guard), deepest first, found in /proc;
// empty if none. Signal them in this order: a SIGKILL to the guard first would leave
// the agent running.
std::vector<pid_t> agent_process_groups();

}  // namespace chat
