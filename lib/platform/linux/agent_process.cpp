// SPDX-License-Identifier: Apache-2.0
// The agent process on Linux (platform/agent_process.hpp): started under the agent guard
// (lib/platform/linux/guard/agent_guard.c), which relays the ladder's signals to the
// agent's process group and stops every descendant when the agent exits, the ladder ends
// or the host dies. The host watches the guard and sweeps the tree itself
// (process_sweep.hpp) when the agent stopped or killed it.
#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "platform/agent_process.hpp"
#include "platform/linux/agent_guard.hpp"
#include "platform/linux/process_sweep.hpp"
#include "platform/posix/program_lookup.hpp"
#include "platform/posix/session_spawn.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

namespace {

// How often the host checks that the agent has not stopped its guard (SIGSTOP cannot be
// caught, so the guard cannot say so itself): one read of /proc/PID/stat.
constexpr uint64_t kGuardWatchMs = 100;
// After the ladder's last step, how long the guard has to finish before the host sweeps
// the tree itself.
constexpr uint64_t kGuardKillGraceMs = 1000;
// The environment entry that marks every process the agent starts (process_sweep.hpp).
constexpr const char* kTreeMarkerName = "ACP_AGENT_TREE";

// A fresh random marker value, so no two agents' trees match.
std::string random_marker() {
    unsigned char bytes[12] = {};
    if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
        // Still unique per process and spawn, just not secret: it never needs to be.
        static unsigned counter = 0;
        std::snprintf(reinterpret_cast<char*>(bytes), sizeof bytes, "%x-%x", ::getpid(), ++counter);
    }
    static const char hex[] = "0123456789abcdef";
    std::string text;
    for (unsigned char byte : bytes) {
        text.push_back(hex[byte >> 4]);
        text.push_back(hex[byte & 15]);
    }
    return text;
}

std::string uv_error_text(int status) { return std::string(uv_strerror(status)); }

class LinuxAgentProcess final : public AgentProcess {
public:
    LinuxAgentProcess(uv_loop_t* loop, const AgentProcessRequest& request, Logger logger, Callbacks callbacks)
        : loop_(loop), request_(request), logger_(std::move(logger)), callbacks_(std::move(callbacks)) {}

    ~LinuxAgentProcess() override {
        release_handles();
        // The guard takes the end of its control socket as "stop everything".
        if (control_fd_ >= 0) ::close(control_fd_);
    }

    Status start(const AgentStdio& stdio) {
        if (request_.argv.empty()) return Status(Errc::spawn_failed, "cannot start agent: argv is empty");
        if (Status status = check_agent_directory(request_.cwd); !status) return status;
        std::vector<std::string> env = request_.env;
        if (request_.contain) {
            tree_.marker = std::string(kTreeMarkerName) + "=" + random_marker();
            env.push_back(tree_.marker);
        }
        auto program = resolve_agent_program(request_.argv[0], env, request_.cwd);
        if (!program) return program.status();

        int rc = request_.contain ? spawn_guarded(*program, env, stdio) : UV_ENOSYS;
        if (rc != 0) {
            tree_ = AgentTree();
            rc = spawn_process(*program, request_.argv, env, stdio, -1);
        }
        if (rc != 0) {
            return Status(Errc::spawn_failed, "cannot start agent '" + request_.argv[0] + "': " + uv_error_text(rc));
        }
        pid_ = process_->pid;
        if (control_fd_ >= 0) tree_.guard_pid = pid_;
        timer_ = new uv_timer_t{};
        uv_timer_init(loop_, timer_);
        timer_->data = this;
        if (control_fd_ >= 0) watch_guard();
        return Status();
    }

    void terminate() override {
        if (!exited_) signal_group(SIGTERM);
    }

    // SIGKILL cannot be relayed: the guard is told to kill every descendant itself, and
    // the host does it when the guard does not finish in time.
    void kill_tree() override {
        if (exited_) return;
        phase_ = Phase::idle;
        if (control_fd_ >= 0 && ::send(control_fd_, "K", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1) {
            phase_ = Phase::guard_finishing;
            uv_timer_start(timer_, &LinuxAgentProcess::on_timer, kGuardKillGraceMs, 0);
            return;
        }
        if (tree_.guard_pid > 0) {
            take_over_from_guard("the guard process cannot be reached");
            return;
        }
        signal_group(SIGKILL);
    }

    int pid() const override { return pid_; }
    void mute() override { logger_ = Logger(); }

private:
    // Runs the agent under the guard, which gets one end of the control socket as its
    // descriptor 3. When the guard cannot be run here, says so and leaves control_fd_ at
    // -1 (the caller then spawns the agent itself).
    int spawn_guarded(const std::string& program, const std::vector<std::string>& env, const AgentStdio& stdio) {
        auto guard = agent_guard_path();
        int control[2] = {-1, -1};
        if (guard.ok() && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0) {
            guard =
                Status(Errc::spawn_failed, std::string("cannot create its control socket: ") + std::strerror(errno));
        }
        int rc = UV_ENOSYS;
        if (guard.ok()) {
            std::vector<std::string> args = {"acp-agent-guard", "3", std::to_string(request_.terminate_grace.count()),
                                             std::to_string(::getpid()), program};
            args.insert(args.end(), request_.argv.begin(), request_.argv.end());
            rc = spawn_process(*guard, args, env, stdio, control[0]);
            ::close(control[0]);
            if (rc == 0) {
                control_fd_ = control[1];
                ::fcntl(control_fd_, F_SETFL, O_NONBLOCK);
                return 0;
            }
            ::close(control[1]);
            guard = Status(Errc::spawn_failed, uv_error_text(rc));
        }
        logger_(LogLevel::warning, log_source::transport,
                "the agent guard cannot run here (" + guard.status().message() +
                    "): the agent is started without it and may outlive the host");
        return rc;
    }

    // stdio 0-2 are the pipes the client uses; control_fd (if any) becomes descriptor 3.
    int spawn_process(const std::string& file, const std::vector<std::string>& argv,
                      const std::vector<std::string>& env, const AgentStdio& pipes, int control_fd) {
        SessionSpawn spawn{file, argv, env, request_.cwd, pipes};
        spawn.extra_fd = control_fd;
        spawn.exit_cb = &LinuxAgentProcess::on_exit;
        spawn.data = this;
        return spawn_in_session(loop_, spawn, &process_);
    }

    static void on_timer(uv_timer_t* timer) {
        auto* self = static_cast<LinuxAgentProcess*>(timer->data);
        switch (self->phase_) {
            case Phase::guard_finishing:
                self->phase_ = Phase::idle;
                self->take_over_from_guard("the guard process did not stop the agent");
                break;
            case Phase::sweeping_group:
                if (self->group_alive()) self->signal_group(SIGKILL);
                self->phase_ = Phase::idle;
                self->finish_sweep();  // may destroy self
                break;
            case Phase::idle: break;
        }
    }

    static void on_exit(uv_process_t* process, int64_t exit_status, int term_signal) {
        auto* self = static_cast<LinuxAgentProcess*>(process->data);
        self->exited_ = true;
        uv_timer_stop(self->timer_);
        self->phase_ = Phase::idle;
        if (self->guard_watch_ != nullptr) uv_timer_stop(self->guard_watch_);
        // The guard said nothing before it ended: it was killed (or crashed), and what it
        // guarded may still run. Whatever the guard had to say is read first.
        if (self->control_poll_ != nullptr) on_control_readable(self->control_poll_, 0, UV_READABLE);
        if (self->tree_.guard_pid > 0 && !self->guard_finished_ && !self->took_over_) {
            std::string how = term_signal != 0 ? "was killed by signal " + std::to_string(term_signal)
                                               : "exited with code " + std::to_string(exit_status);
            self->take_over_from_guard("the guard process " + how);
        }
        // Whatever the agent left running in its group goes with it.
        bool sweeping = self->group_alive();
        if (sweeping) {
            self->signal_group(SIGTERM);
            self->phase_ = Phase::sweeping_group;
            uv_timer_start(self->timer_, &LinuxAgentProcess::on_timer,
                           static_cast<uint64_t>(self->request_.terminate_grace.count()), 0);
        }
        Exit exit;
        exit.exit_code = exit_status;
        exit.term_signal = term_signal;
        exit.guard_note = self->guard_note_;
        self->callbacks_.on_exit(exit);
        if (!sweeping) self->finish_sweep();  // may destroy self
    }

    void finish_sweep() {
        release_handles();
        auto on_swept = std::move(callbacks_.on_swept);
        on_swept();  // may destroy this; nothing may follow
    }

    void release_handles() {
        close_and_delete(timer_);
        close_and_delete(process_);
        close_and_delete(guard_watch_);
        close_and_delete(control_poll_);
        timer_ = nullptr;
        process_ = nullptr;
        guard_watch_ = nullptr;
        control_poll_ = nullptr;
    }

    bool group_alive() const { return pid_ > 0 && ::kill(-pid_, 0) == 0; }

    void signal_group(int signal_number) {
        if (pid_ > 0) ::kill(-pid_, signal_number);
    }

    // The guard reports on its control socket; the host also checks that it still runs.
    void watch_guard() {
        control_poll_ = new uv_poll_t{};
        if (uv_poll_init(loop_, control_poll_, control_fd_) != 0) {
            delete control_poll_;
            control_poll_ = nullptr;
        } else {
            control_poll_->data = this;
            uv_poll_start(control_poll_, UV_READABLE | UV_DISCONNECT, &LinuxAgentProcess::on_control_readable);
        }
        guard_watch_ = new uv_timer_t{};
        uv_timer_init(loop_, guard_watch_);
        guard_watch_->data = this;
        uv_timer_start(guard_watch_, &LinuxAgentProcess::on_guard_watch, kGuardWatchMs, kGuardWatchMs);
        // Watching never keeps the host's loop alive by itself.
        uv_unref(reinterpret_cast<uv_handle_t*>(guard_watch_));
    }

    static void on_control_readable(uv_poll_t* poll, int status, int) {
        auto* self = static_cast<LinuxAgentProcess*>(poll->data);
        char buffer[256];
        ssize_t n = status < 0 ? -1 : ::recv(self->control_fd_, buffer, sizeof buffer, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (n <= 0) {
            uv_poll_stop(poll);
            return;
        }
        // Lines the guard writes are tiny; a bounded buffer keeps a garbled stream harmless.
        self->control_text_.append(buffer, static_cast<std::size_t>(n));
        std::size_t end;
        while ((end = self->control_text_.find('\n')) != std::string::npos) {
            std::string line = self->control_text_.substr(0, end);
            self->control_text_.erase(0, end + 1);
            if (line == "X") {
                self->guard_finished_ = true;
            } else if (line.size() > 1 && line[0] == 'A' && self->tree_.agent_pid == 0) {
                self->tree_.agent_pid = std::atoi(line.c_str() + 1);
            }
        }
        if (self->control_text_.size() > 64) self->control_text_.clear();
    }

    static void on_guard_watch(uv_timer_t* timer) {
        auto* self = static_cast<LinuxAgentProcess*>(timer->data);
        if (self->exited_) return;
        char state = process_state(self->pid_);
        if (state == 'T' || state == 't') self->take_over_from_guard("the agent stopped the guard process");
    }

    // The guard can no longer be trusted to stop the agent: the host finds the agent's
    // tree and kills it, then the guard (SIGKILL needs no cooperation, stopped or not).
    void take_over_from_guard(const std::string& why) {
        if (took_over_) return;
        took_over_ = true;
        std::size_t killed = kill_agent_tree(tree_);
        if (!exited_ && pid_ > 0) ::kill(pid_, SIGKILL);
        guard_note_ = why + "; " + std::to_string(killed) + " of the agent's processes were killed";
        logger_(LogLevel::warning, log_source::transport, guard_note_);
    }

    enum class Phase { idle, guard_finishing, sweeping_group };

    uv_loop_t* loop_;
    AgentProcessRequest request_;
    Logger logger_;
    Callbacks callbacks_;
    uv_process_t* process_ = nullptr;
    int pid_ = 0;
    int control_fd_ = -1;                // our end of the guard's control socket
    uv_poll_t* control_poll_ = nullptr;  // what the guard reports on it
    uv_timer_t* guard_watch_ = nullptr;  // is the guard stopped?
    std::string control_text_;           // a partial line from the guard
    AgentTree tree_;                     // what to sweep if the guard cannot
    bool guard_finished_ = false;        // the guard said the agent exited and all is swept
    bool took_over_ = false;             // the host swept the tree itself
    std::string guard_note_;             // why, for the exit report
    uv_timer_t* timer_ = nullptr;        // the guard's last chance, then the group sweep
    Phase phase_ = Phase::idle;
    bool exited_ = false;
};

}  // namespace

Result<std::unique_ptr<AgentProcess>> start_agent_process(uv_loop_t* loop, const AgentProcessRequest& request,
                                                          const AgentStdio& stdio, Logger logger,
                                                          AgentProcess::Callbacks callbacks) {
    auto process = std::make_unique<LinuxAgentProcess>(loop, request, std::move(logger), std::move(callbacks));
    if (Status status = process->start(stdio); !status) return status;
    return std::unique_ptr<AgentProcess>(std::move(process));
}

}  // namespace acp::detail
