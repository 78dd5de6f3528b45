// SPDX-License-Identifier: Apache-2.0
// Starting an agent process and stopping its whole tree: what the process transport
// (lib/transport/process_transport.cpp) needs from the operating system, one
// implementation per platform:
//   lib/platform/linux/    under the agent guard (a subreaper with PR_SET_PDEATHSIG, run
//                          from a memfd), the tree found through /proc
//   lib/platform/posix/    macOS and the BSDs: the agent's process group and session, and a
//                          supervising process that outlives a host crash
//   lib/platform/windows/  a Job Object (KILL_ON_JOB_CLOSE), CTRL_BREAK_EVENT
// The transport owns the pipes, the ladder's timing and the report; the platform owns the
// process, the containment of its descendants and the sweep after it exited.
//
//   AgentProcess::Callbacks callbacks;
//   callbacks.on_exit = [&](const AgentProcess::Exit& exit) { ... };
//   callbacks.on_swept = [&] { process.reset(); };   // may destroy it right here
//   auto process = start_agent_process(loop, request, {stdin_pipe, stdout_pipe, stderr_pipe},
//                                      logger, std::move(callbacks));
//   ...
//   (*process)->terminate();  // the agent ignored EOF on its stdin
//   (*process)->kill_tree();  // it ignored that too
//
// Contract, for every implementation:
// - Everything runs on the loop's thread: every call, every callback, every timer.
// - start_agent_process() either fails (nothing was started, the pipes were not opened)
//   with Errc::spawn_failed and a message naming the program, or with
//   Errc::invalid_argument when the request cannot be passed to the agent safely (Windows:
//   an argument a `.cmd` agent's cmd.exe would read as a command), or returns a process whose
//   stdin, stdout and stderr pipes are open and connected to the agent's stdio. The pipes
//   stay the caller's: the platform never reads, writes or closes them.
// - Containment: when the host process dies, however it dies, nothing the agent started
//   outlives it for long (Linux: the guard; POSIX: the supervising process; Windows: the
//   job). Where the platform cannot provide it, start says so once in the log and goes on.
// - terminate() and kill_tree() may be called any number of times, also after the exit
//   (then they do nothing). terminate() asks the agent to stop (SIGTERM to its process
//   group, CTRL_BREAK_EVENT on Windows); kill_tree() ends the agent and everything it
//   started without its cooperation, as far as the platform can find it (the POSIX
//   variant: the agent's process group; each implementation says what escapes it).
// - on_exit is called once, when the process libacp started exited; the platform may
//   still be sweeping what the agent left running. on_swept is called once after on_exit,
//   when nothing of the tree is left to stop: it is the last thing the object does, and
//   the object may be destroyed inside it (never before it).
// - Destroying the object before on_swept is not allowed; the transport keeps it.
#pragma once

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "acp/status.hpp"
#include "support/logger.hpp"

namespace acp::detail {

struct AgentProcessRequest {
    std::vector<std::string> argv;  // argv[0] is the program, looked up on the agent's PATH
    std::vector<std::string> env;   // the agent's whole environment, "NAME=VALUE" (UTF-8)
    std::string cwd;                // empty: the host's working directory
    bool contain = true;            // SpawnOptions::use_guard_process
    // How long descendants get between the polite and the forced stop, after the agent
    // exited or when the host died.
    std::chrono::milliseconds terminate_grace{2000};
};

// The agent's stdio, as initialised libuv pipes that are not open yet.
struct AgentStdio {
    uv_pipe_t* stdin_pipe = nullptr;
    uv_pipe_t* stdout_pipe = nullptr;
    uv_pipe_t* stderr_pipe = nullptr;
};

class AgentProcess {
public:
    struct Exit {
        int64_t exit_code = 0;
        int term_signal = 0;     // POSIX: the signal that ended it; Windows: always 0
        std::string guard_note;  // empty, or why the host had to stop the tree itself
    };
    struct Callbacks {
        std::function<void(const Exit&)> on_exit;
        std::function<void()> on_swept;
    };

    virtual ~AgentProcess() = default;
    AgentProcess(const AgentProcess&) = delete;
    AgentProcess& operator=(const AgentProcess&) = delete;

    // The ladder's second step: ask the agent's tree to stop.
    virtual void terminate() = 0;
    // The ladder's last step: stop the agent's tree without its cooperation.
    virtual void kill_tree() = 0;
    // The process libacp started, for tests and diagnostics: the Linux guard (signals sent
    // to it reach the agent's group), else the agent itself.
    virtual int pid() const = 0;
    // The owner went quiet: log nothing more from now on.
    virtual void mute() = 0;

protected:
    AgentProcess() = default;
};

Result<std::unique_ptr<AgentProcess>> start_agent_process(uv_loop_t* loop, const AgentProcessRequest& request,
                                                          const AgentStdio& stdio, Logger logger,
                                                          AgentProcess::Callbacks callbacks);

// How an exit reads in a message: "exited with code 3", "was killed by signal 9 (Killed)".
std::string describe_process_exit(int64_t exit_code, int term_signal);

// What terminate() and kill_tree() do here, for the ladder's log lines: "SIGTERM" and
// "SIGKILL"; on Windows "CTRL_BREAK_EVENT" and "TerminateJobObject".
struct StopStepNames {
    const char* terminate;
    const char* kill_tree;
};
StopStepNames stop_step_names();

}  // namespace acp::detail
