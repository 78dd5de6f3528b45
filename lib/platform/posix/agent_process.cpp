// SPDX-License-Identifier: Apache-2.0
// The agent process on macOS and the BSDs (platform/agent_process.hpp), using only POSIX:
// no prctl, no memfd, no /proc, no pipe2 or SOCK_CLOEXEC. Compiled and tested on Linux
// with -DACP_PLATFORM=posix (scripts/test-posix-variant.sh).
//
// The agent is started by libuv in a session of its own (UV_PROCESS_DETACHED: setsid), so
// it leads a process group that its descendants stay in unless they leave it, and the
// ladder signals that group. Containment against the host's death is a supervising
// process: forked (twice, so init reaps it and the host never has to) right after the
// agent, it holds one end of a socket pair whose other end only the host holds. When its
// end reads EOF without the word "done" first, the host is gone (or dropped the agent):
// it sends SIGTERM to the agent's group, SIGKILL after the grace, and exits. When the agent
// exits and leaves processes in its group, the host asks it to do the same ("sweep").
//
// Why a fork and not an executed helper as on Linux: without memfd the helper would have
// to be written to a file first (which a noexec /tmp refuses and which others could try to
// swap), and the supervisor's work is small enough to do between fork and _exit with
// async-signal-safe calls only (setsid, sigaction, close, open, dup2, poll, read, kill,
// _exit), which is what a fork in a multithreaded host allows. The price: it closes
// every inherited descriptor up to RLIMIT_NOFILE itself, so it never holds another
// agent's pipe open.
//
// What it does not catch, unlike the Linux guard: a descendant that leaves the agent's
// process group (setpgid, setsid) is not found without a process table (/proc). The host
// notices the supervisor's death (its end of the socket pair closes) and then kills the
// agent's group at once, but it cannot see a stopped supervisor.
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include "platform/agent_process.hpp"
#include "platform/posix/program_lookup.hpp"
#include "platform/posix/session_spawn.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

namespace {

// The word the host writes before it closes its end when the agent's tree is already
// gone: the supervisor then exits without signalling a group that may no longer be ours.
constexpr char kDone = 'D';
// The word the host writes when the agent exited and left processes in its group: the
// supervisor sweeps them on its own clock, so the sweep finishes even when the host stops
// running its loop right after it was told of the exit (as the Linux guard's does).
constexpr char kSweep = 'S';
// While the group is being terminated, how often the supervisor looks again.
constexpr int kSweepPollMs = 20;
// Where the close loop ends when RLIMIT_NOFILE is unlimited.
constexpr long kMaxInheritedFds = 1L << 20;

std::string uv_error_text(int status) { return std::string(uv_strerror(status)); }

void set_cloexec(int fd) {
    int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

// A write to a socket whose reader died, without SIGPIPE (MSG_NOSIGNAL on Linux and the
// BSDs; macOS has SO_NOSIGPIPE on the socket instead).
void send_quietly(int fd, char byte) {
#ifdef MSG_NOSIGNAL
    (void)!::send(fd, &byte, 1, MSG_NOSIGNAL);
#else
    (void)!::send(fd, &byte, 1, 0);
#endif
}

// The supervising process: async-signal-safe calls only from here on (the host may have
// other threads, which do not exist in this process).
[[noreturn]] void run_supervisor(int control_fd, long fd_limit, pid_t group, int grace_ms) {
    ::setsid();  // away from the host's terminal and group: a Ctrl-C ends the host, not us
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    for (int signal_number = 1; signal_number < 32; ++signal_number) ::sigaction(signal_number, &action, nullptr);
    action.sa_handler = SIG_IGN;
    for (int signal_number : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE}) ::sigaction(signal_number, &action, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (long fd = 0; fd < fd_limit; ++fd) {
        if (fd != control_fd) ::close(static_cast<int>(fd));
    }
    int null_fd = ::open("/dev/null", O_RDWR);
    for (int fd = 0; fd < 3; ++fd) {
        if (null_fd >= 0 && null_fd != fd) ::dup2(null_fd, fd);
    }

    char word = 0;
    for (;;) {
        struct pollfd watch = {control_fd, POLLIN, 0};
        if (::poll(&watch, 1, -1) < 0 && errno == EINTR) continue;
        ssize_t n = ::read(control_fd, &word, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n == 1 && word == kDone) ::_exit(0);
        if (n == 1 && word == kSweep) break;
        if (n <= 0) break;  // the host is gone: its end closed without "done"
    }
    if (::kill(-group, SIGTERM) != 0) ::_exit(0);
    for (int waited = 0; waited < grace_ms && ::kill(-group, 0) == 0; waited += kSweepPollMs) {
        ::poll(nullptr, 0, kSweepPollMs);
    }
    ::kill(-group, SIGKILL);
    ::_exit(0);
}

class PosixAgentProcess final : public AgentProcess {
public:
    PosixAgentProcess(uv_loop_t* loop, const AgentProcessRequest& request, Logger logger, Callbacks callbacks)
        : loop_(loop), request_(request), logger_(std::move(logger)), callbacks_(std::move(callbacks)) {}

    ~PosixAgentProcess() override {
        release_handles();
        // Without "done" first, the supervisor takes this as the host dropping the agent.
        if (control_fd_ >= 0) ::close(control_fd_);
    }

    Status start(const AgentStdio& stdio) {
        if (request_.argv.empty()) return Status(Errc::spawn_failed, "cannot start agent: argv is empty");
        if (Status status = check_agent_directory(request_.cwd); !status) return status;
        auto program = resolve_agent_program(request_.argv[0], request_.env, request_.cwd);
        if (!program) return program.status();
        if (int rc = spawn_agent(*program, stdio); rc != 0) {
            return Status(Errc::spawn_failed, "cannot start agent '" + request_.argv[0] + "': " + uv_error_text(rc));
        }
        pid_ = process_->pid;
        timer_ = new uv_timer_t{};
        uv_timer_init(loop_, timer_);
        timer_->data = this;
        if (request_.contain) {
            if (Status status = start_supervisor(); !status) {
                logger_(LogLevel::warning, log_source::transport,
                        "the agent's supervising process cannot run here (" + status.message() +
                            "): the agent may outlive the host");
            }
        }
        return Status();
    }

    void terminate() override {
        if (!exited_) signal_group(SIGTERM);
    }

    void kill_tree() override {
        if (!exited_) signal_group(SIGKILL);
    }

    int pid() const override { return pid_; }
    void mute() override { logger_ = Logger(); }

private:
    int spawn_agent(const std::string& file, const AgentStdio& pipes) {
        SessionSpawn spawn{file, request_.argv, request_.env, request_.cwd, pipes};
        spawn.exit_cb = &PosixAgentProcess::on_exit;
        spawn.data = this;
        return spawn_in_session(loop_, spawn, &process_);
    }

    // Between socketpair() and set_cloexec() another thread's spawn could inherit the
    // descriptors (no SOCK_CLOEXEC here); it would only keep the supervisor waiting.
    Status start_supervisor() {
        int ends[2] = {-1, -1};
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) {
            return Status(Errc::spawn_failed, std::string("socketpair: ") + std::strerror(errno));
        }
        set_cloexec(ends[0]);
        set_cloexec(ends[1]);
#ifdef SO_NOSIGPIPE
        int on = 1;
        ::setsockopt(ends[0], SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
        struct rlimit limit {};
        long fd_limit = kMaxInheritedFds;
        if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
            limit.rlim_cur < static_cast<rlim_t>(kMaxInheritedFds)) {
            fd_limit = static_cast<long>(limit.rlim_cur);
        }
        const pid_t group = pid_;
        const int grace_ms = static_cast<int>(request_.terminate_grace.count());
        pid_t middle = ::fork();
        if (middle == 0) {
            if (::fork() == 0) run_supervisor(ends[1], fd_limit, group, grace_ms);
            ::_exit(0);  // orphans the supervisor: init reaps it, not the host
        }
        ::close(ends[1]);
        if (middle < 0) {
            int error = errno;
            ::close(ends[0]);
            return Status(Errc::spawn_failed, std::string("fork: ") + std::strerror(error));
        }
        while (::waitpid(middle, nullptr, 0) < 0 && errno == EINTR) {
        }
        control_fd_ = ends[0];
        ::fcntl(control_fd_, F_SETFL, ::fcntl(control_fd_, F_GETFL) | O_NONBLOCK);
        // The supervisor never writes: readable means its end closed, it is gone.
        control_poll_ = new uv_poll_t{};
        if (uv_poll_init(loop_, control_poll_, control_fd_) != 0) {
            delete control_poll_;
            control_poll_ = nullptr;
        } else {
            control_poll_->data = this;
            uv_poll_start(control_poll_, UV_READABLE | UV_DISCONNECT, &PosixAgentProcess::on_supervisor_gone);
        }
        return Status();
    }

    // The agent (or anyone) ended the supervisor: the host cannot die safely any more, so
    // the agent's tree goes now.
    static void on_supervisor_gone(uv_poll_t* poll, int, int) {
        auto* self = static_cast<PosixAgentProcess*>(poll->data);
        uv_poll_stop(poll);
        if (self->exited_) return;
        self->signal_group(SIGKILL);
        self->guard_note_ = "the supervising process ended before the agent; the agent's process group was killed";
        self->logger_(LogLevel::warning, log_source::transport, self->guard_note_);
    }

    static void on_timer(uv_timer_t* timer) {
        auto* self = static_cast<PosixAgentProcess*>(timer->data);
        if (self->group_alive()) self->signal_group(SIGKILL);
        self->finish_sweep();  // may destroy self
    }

    static void on_exit(uv_process_t* process, int64_t exit_status, int term_signal) {
        auto* self = static_cast<PosixAgentProcess*>(process->data);
        self->exited_ = true;
        // Whatever the agent left running in its group goes with it.
        bool sweeping = self->group_alive();
        if (sweeping) {
            self->signal_group(SIGTERM);
            if (self->control_fd_ >= 0) send_quietly(self->control_fd_, kSweep);
            uv_timer_start(self->timer_, &PosixAgentProcess::on_timer,
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
        if (control_fd_ >= 0) {
            send_quietly(control_fd_, kDone);
            ::close(control_fd_);
            control_fd_ = -1;
        }
        auto on_swept = std::move(callbacks_.on_swept);
        on_swept();  // may destroy this; nothing may follow
    }

    void release_handles() {
        close_and_delete(timer_);
        close_and_delete(process_);
        close_and_delete(control_poll_);
        timer_ = nullptr;
        process_ = nullptr;
        control_poll_ = nullptr;
    }

    bool group_alive() const { return pid_ > 0 && ::kill(-pid_, 0) == 0; }

    void signal_group(int signal_number) {
        if (pid_ > 0) ::kill(-pid_, signal_number);
    }

    uv_loop_t* loop_;
    AgentProcessRequest request_;
    Logger logger_;
    Callbacks callbacks_;
    uv_process_t* process_ = nullptr;
    int pid_ = 0;
    int control_fd_ = -1;                // our end of the supervisor's socket pair
    uv_poll_t* control_poll_ = nullptr;  // tells when the supervisor is gone
    std::string guard_note_;             // why the host killed the tree itself
    uv_timer_t* timer_ = nullptr;        // the group sweep after the exit
    bool exited_ = false;
};

}  // namespace

Result<std::unique_ptr<AgentProcess>> start_agent_process(uv_loop_t* loop, const AgentProcessRequest& request,
                                                          const AgentStdio& stdio, Logger logger,
                                                          AgentProcess::Callbacks callbacks) {
    auto process = std::make_unique<PosixAgentProcess>(loop, request, std::move(logger), std::move(callbacks));
    if (Status status = process->start(stdio); !status) return status;
    return std::unique_ptr<AgentProcess>(std::move(process));
}

}  // namespace acp::detail
