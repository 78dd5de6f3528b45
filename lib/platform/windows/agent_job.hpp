// SPDX-License-Identifier: Apache-2.0
// The agent's process tree in a Windows Job Object: the Windows counterpart of the agent
// guard (lib/platform/linux/guard/agent_guard.c).
//
// The job is made with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE and its handle is not inherited,
// so the host is the only holder: when the host closes it, or dies and Windows closes it,
// every process in the job ends, grandchildren included (they inherit the job). The
// shutdown ladder's last step is terminate(), which needs no cooperation from the agent.
//
//   auto job = AgentJob::create();
//   if (job) status = job->adopt(pid);   // right after the agent was spawned
//   ...
//   job->terminate();                     // the agent ignored EOF on stdin
#pragma once

#include <cstddef>

#include "acp/status.hpp"

namespace acp::detail {

class AgentJob {
public:
    static Result<AgentJob> create();

    AgentJob(AgentJob&& other) noexcept;
    AgentJob& operator=(AgentJob&& other) noexcept;
    AgentJob(const AgentJob&) = delete;
    AgentJob& operator=(const AgentJob&) = delete;
    // Closing the last handle kills whatever still runs in the job.
    ~AgentJob();

    // Puts the process (and so everything it starts from now on) into the job.
    Status adopt(int pid);
    // Ends every process in the job.
    void terminate();
    // How many processes of the job still run.
    std::size_t running() const;

private:
    explicit AgentJob(void* handle) : handle_(handle) {}
    void* handle_ = nullptr;  // HANDLE, kept out of this header so <windows.h> stays out too
};

}  // namespace acp::detail
