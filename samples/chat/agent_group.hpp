// SPDX-License-Identifier: Apache-2.0
// The agent's process group, for Ctrl-C during shutdown. libacp starts the agent detached,
// in a process group of its own (so a Ctrl-C on the terminal does not reach it) and stops
// it with a ladder of its own at close(); a user who presses Ctrl-C while that ladder
// waits wants it to hurry, not to kill acp-chat and leave the agent behind.
#pragma once

#include <sys/types.h>

namespace chat {

// The process group of acp-chat's child process (the agent), found in /proc; 0 if none.
pid_t agent_process_group();

}  // namespace chat
