// SPDX-License-Identifier: Apache-2.0
// Starting an agent on Windows: the counterpart of uv_spawn under the Linux guard.
//
// libuv's uv_spawn starts the child running, so a child quick enough could start a
// grandchild before the host put it in a job, and that grandchild would outlive the host.
// Here the agent is created suspended (CREATE_SUSPENDED), put in its AgentJob, and only
// then resumed: everything it ever starts is in the job. It leads a process group of its
// own (CREATE_NEW_PROCESS_GROUP), the target of the ladder's CTRL_BREAK_EVENT, and gets
// UTF-16 strings throughout (wide_text.hpp). Its stdin, stdout and stderr are pipes whose
// host ends are overlapped named pipes, what libuv reads and writes without a thread.
//
// Program lookup is done here, before anything runs, so "not found" names the program:
// a name with no folder is searched on the agent's PATH only (never the host's folder or
// working directory, which CreateProcessW would search first), with .com, .exe, .bat and
// .cmd tried when it has none of those extensions. A .bat or .cmd agent runs through
// cmd.exe from the system folder, its arguments checked and quoted by
// batch_command_line() (command_line.hpp).
//
// The console: when the host has one, the agent shares it, so CTRL_BREAK_EVENT can reach
// the agent's group; a host without one (a GUI editor) starts the agent with
// CREATE_NO_WINDOW, so no console window opens, and then no console event can reach it:
// break_agent() says so and the ladder goes on to terminating the job.
//
//   auto agent = spawn_agent(request);
//   if (!agent) return agent.status();
//   int stdout_fd = agent->stdout_fd;  // for uv_pipe_open
#pragma once

#include <string>
#include <vector>

#include "acp/status.hpp"
#include "platform/windows/agent_job.hpp"

namespace acp::detail {

struct AgentSpawnRequest {
    std::vector<std::string> argv;  // UTF-8; argv[0] is looked up as described above
    std::string cwd;                // empty: the host's
    // The agent's whole environment, "NAME=VALUE" in UTF-8. Names compare ignoring case,
    // as Windows compares them: of two entries with one name, the later is kept.
    std::vector<std::string> env;
};

// A started agent. Owns its process handle and its job (closing the job kills the tree);
// the descriptors are C runtime descriptors of the host's pipe ends, for uv_pipe_open,
// which then owns them (-1 once taken).
class SpawnedAgent {
public:
    SpawnedAgent(SpawnedAgent&& other) noexcept;
    SpawnedAgent& operator=(SpawnedAgent&&) = delete;
    SpawnedAgent(const SpawnedAgent&) = delete;
    ~SpawnedAgent();

    int pid = 0;
    void* process = nullptr;  // HANDLE: waitable, and for the exit code
    int stdin_fd = -1;
    int stdout_fd = -1;
    int stderr_fd = -1;
    AgentJob job;
    bool console_shared = false;  // whether break_agent() can reach it
    std::string program;          // the resolved path (the script's, for a .cmd agent)

private:
    friend Result<SpawnedAgent> spawn_agent(const AgentSpawnRequest& request);
    explicit SpawnedAgent(AgentJob agent_job) : job(std::move(agent_job)) {}
};

Result<SpawnedAgent> spawn_agent(const AgentSpawnRequest& request);

// CTRL_BREAK_EVENT to the agent's process group: false when it cannot get there.
bool break_agent(const SpawnedAgent& agent);

// The process's exit code (STILL_ACTIVE while it runs).
unsigned long exit_code_of(void* process);

}  // namespace acp::detail
