// SPDX-License-Identifier: Apache-2.0
// The agent process on Windows (platform/agent_process.hpp): spawn_agent() starts it
// suspended in its Job Object and resumes it, ExitWatch tells its exit on the loop.
//
// terminate() is CTRL_BREAK_EVENT to the agent's process group, when the host has a
// console to share with it (agent_spawn.hpp); without one it does nothing and the
// ladder's kill_tree() follows. kill_tree() terminates the job: the agent and everything
// it started, which cannot leave the job. When the agent exits, whatever it left in the
// job is terminated at once, and that is the sweep. The job also ends the whole tree when
// the host dies, as Windows closes the host's handle to it.
//
// `contain` cannot be turned off here: Windows has no process group to fall back on, and
// the job is what kill_tree() stops.
#include "platform/agent_process.hpp"

#include <string>
#include <utility>

#include "platform/windows/agent_spawn.hpp"
#include "platform/windows/exit_watch.hpp"

namespace acp::detail {

namespace {

class WindowsAgentProcess final : public AgentProcess {
public:
    WindowsAgentProcess(SpawnedAgent agent, Callbacks callbacks)
        : agent_(std::move(agent)), callbacks_(std::move(callbacks)) {}

    Status watch(uv_loop_t* loop) {
        auto watch = ExitWatch::start(loop, agent_.process, [this](unsigned long code) { on_exit(code); });
        if (!watch) return watch.status();
        exit_watch_ = std::move(*watch);
        return Status();
    }

    void terminate() override {
        if (!exited_) break_agent(agent_);
    }
    void kill_tree() override {
        if (!exited_) agent_.job.terminate();
    }
    int pid() const override { return agent_.pid; }
    void mute() override {}

private:
    void on_exit(unsigned long code) {
        exited_ = true;
        Exit exit;
        exit.exit_code = static_cast<int64_t>(code);
        callbacks_.on_exit(exit);
        // What the agent left running ends with it; the job handle stays open until this
        // object goes, so nothing new can start outside it meanwhile.
        if (agent_.job.running() > 0) agent_.job.terminate();
        auto on_swept = std::move(callbacks_.on_swept);
        on_swept();  // may destroy this: nothing may follow
    }

    SpawnedAgent agent_;
    Callbacks callbacks_;
    std::unique_ptr<ExitWatch> exit_watch_;  // before agent_ in destruction: it waits on its handle
    bool exited_ = false;
};

}  // namespace

Result<std::unique_ptr<AgentProcess>> start_agent_process(uv_loop_t* loop, const AgentProcessRequest& request,
                                                          const AgentStdio& stdio, Logger,
                                                          AgentProcess::Callbacks callbacks) {
    AgentSpawnRequest spawn;
    spawn.argv = request.argv;
    spawn.env = request.env;
    spawn.cwd = request.cwd;
    auto spawned = spawn_agent(spawn);
    // As it is: a refused argument (invalid_argument) is not a failed start.
    if (!spawned) return spawned.status();
    for (auto [pipe, fd] :
         {std::pair{stdio.stdin_pipe, &spawned->stdin_fd}, std::pair{stdio.stdout_pipe, &spawned->stdout_fd},
          std::pair{stdio.stderr_pipe, &spawned->stderr_fd}}) {
        if (int rc = uv_pipe_open(pipe, *fd); rc != 0) {
            spawned->job.terminate();
            return Status(Errc::spawn_failed, std::string("cannot start agent: its pipes: ") + uv_strerror(rc));
        }
        *fd = -1;  // the pipe owns it now
    }
    auto process = std::make_unique<WindowsAgentProcess>(std::move(*spawned), std::move(callbacks));
    if (Status status = process->watch(loop); !status) {
        process->kill_tree();
        return status;
    }
    return std::unique_ptr<AgentProcess>(std::move(process));
}

std::string describe_process_exit(int64_t exit_code, int) { return "exited with code " + std::to_string(exit_code); }

StopStepNames stop_step_names() { return {"CTRL_BREAK_EVENT", "TerminateJobObject"}; }

}  // namespace acp::detail
