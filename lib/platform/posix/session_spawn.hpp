// SPDX-License-Identifier: Apache-2.0
// Starting an agent (or the Linux guard that runs it) with libuv in a session of its own
// (UV_PROCESS_DETACHED: setsid), so that it leads a process group the ladder can signal
// whole, its descendants included. Shared by the Linux and the portable POSIX agent process.
//
//   SessionSpawn spawn{file, argv, env, cwd, pipes};
//   spawn.exit_cb = &MyProcess::on_exit;
//   spawn.data = this;
//   uv_process_t* process = nullptr;
//   if (int rc = spawn_in_session(loop, spawn, &process); rc != 0) return uv_strerror(rc);
#pragma once

#include <uv.h>

#include <string>
#include <vector>

#include "platform/agent_process.hpp"

namespace acp::detail {

struct SessionSpawn {
    const std::string& file;  // the program to execute, as resolved
    const std::vector<std::string>& argv;
    const std::vector<std::string>& env;  // "NAME=VALUE" entries, the child's whole environment
    const std::string& cwd;               // empty: the host's
    const AgentStdio& pipes;              // become descriptors 0-2
    int extra_fd = -1;                    // when >= 0, inherited as descriptor 3
    uv_exit_cb exit_cb = nullptr;
    void* data = nullptr;  // the process handle's data, for exit_cb
};

// 0 with *process a new handle, else a libuv error and *process nullptr.
int spawn_in_session(uv_loop_t* loop, const SessionSpawn& spawn, uv_process_t** process);

}  // namespace acp::detail
