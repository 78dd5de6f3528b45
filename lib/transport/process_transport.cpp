// SPDX-License-Identifier: Apache-2.0
#include "transport/process_transport.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/linux/agent_guard.hpp"
#include "platform/linux/process_sweep.hpp"
#include "support/deferred_queue.hpp"
#include "support/uv_handle.hpp"
#include "transport/pipe_stream.hpp"
#include "transport/read_throttle.hpp"
#include "transport/stderr_collector.hpp"

extern char** environ;

namespace acp::detail {

namespace {

// How long to wait for the agent's pipes to drain after it exited. Grandchildren may
// hold them open; they are terminated meanwhile.
constexpr uint64_t kDrainAfterExitMs = 1000;
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

std::vector<std::string> build_environment(const SpawnOptions& options) {
    std::vector<std::string> env;
    auto overridden = [&](std::string_view name) {
        for (const auto& removed : options.env_unset) {
            if (removed == name) return true;
        }
        for (const auto& set : options.env_set) {
            if (set.first == name) return true;
        }
        return false;
    };
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        std::string_view text(*entry);
        auto eq = text.find('=');
        if (eq == std::string_view::npos || overridden(text.substr(0, eq))) continue;
        env.emplace_back(text);
    }
    for (const auto& set : options.env_set) env.push_back(set.first + "=" + set.second);
    return env;
}

std::string lookup_env(const std::vector<std::string>& env, std::string_view name) {
    for (const auto& entry : env) {
        if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 && entry[name.size()] == '=') {
            return entry.substr(name.size() + 1);
        }
    }
    return {};
}

bool is_executable_file(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Finds the program the way execvp would with the agent's PATH, so that "not found" and
// "not executable" are reported before anything is spawned, naming the program.
Result<std::string> resolve_program(const std::string& program, const std::vector<std::string>& env,
                                    const std::string& cwd) {
    if (program.empty()) return Status(Errc::spawn_failed, "cannot start agent: the program name is empty");
    if (program.find('/') != std::string::npos) {
        std::string path = program;
        if (program[0] != '/' && !cwd.empty()) path = cwd + "/" + program;
        struct stat info {};
        if (::stat(path.c_str(), &info) != 0) {
            return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' does not exist");
        }
        if (!is_executable_file(path)) {
            return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' is not an executable file");
        }
        // Unchanged: the child resolves a relative path after changing to cwd, as checked.
        return program;
    }
    std::string search_path = lookup_env(env, "PATH");
    if (search_path.empty()) search_path = "/usr/local/bin:/usr/bin:/bin";
    bool found_not_executable = false;
    std::size_t start = 0;
    while (start <= search_path.size()) {
        auto end = search_path.find(':', start);
        if (end == std::string::npos) end = search_path.size();
        std::string dir = search_path.substr(start, end - start);
        if (dir.empty()) dir = ".";
        std::string candidate = dir + "/" + program;
        if (is_executable_file(candidate)) {
            // A relative PATH entry means the host's directory, not the agent's cwd.
            if (candidate[0] != '/') {
                char* absolute = ::realpath(candidate.c_str(), nullptr);
                if (absolute != nullptr) {
                    candidate = absolute;
                    std::free(absolute);
                }
            }
            return candidate;
        }
        if (::access(candidate.c_str(), F_OK) == 0) found_not_executable = true;
        start = end + 1;
    }
    if (found_not_executable) {
        return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' is on PATH but not executable");
    }
    return Status(Errc::spawn_failed, "cannot start agent: '" + program + "' was not found on PATH");
}

}  // namespace

// Owns the process and its pipes. Keeps itself alive (self_) until the process has been
// reaped, its group swept and every handle closed, whoever owns it by then.
class ProcessTransport::Supervisor : public std::enable_shared_from_this<Supervisor> {
public:
    Supervisor(uv_loop_t* loop, const SpawnOptions& options, Logger logger)
        : loop_(loop),
          options_(options),
          logger_(logger),
          stdin_(loop),
          stdout_(loop),
          stderr_(loop),
          stderr_collector_(logger, options.stderr_tail_bytes),
          deferred_(loop) {}

    ~Supervisor() {
        // The guard takes the end of its control socket as "stop everything".
        if (control_fd_ >= 0) ::close(control_fd_);
    }

    Status spawn() {
        if (options_.argv.empty()) return Status(Errc::spawn_failed, "cannot start agent: argv is empty");
        if (!options_.cwd.empty()) {
            struct stat info {};
            if (::stat(options_.cwd.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
                return Status(Errc::spawn_failed,
                              "cannot start agent: working directory '" + options_.cwd + "' is not a directory");
            }
        }
        std::vector<std::string> env = build_environment(options_);
        if (options_.use_guard_process) {
            tree_.marker = std::string(kTreeMarkerName) + "=" + random_marker();
            env.push_back(tree_.marker);
        }
        auto program = resolve_program(options_.argv[0], env, options_.cwd);
        if (!program) return program.status();

        std::vector<char*> envp;
        for (auto& entry : env) envp.push_back(&entry[0]);
        envp.push_back(nullptr);

        int rc = options_.use_guard_process ? spawn_guarded(*program, envp) : UV_ENOSYS;
        if (rc != 0) {
            tree_ = AgentTree();
            rc = spawn_process(*program, options_.argv, envp, -1);
        }
        if (rc != 0) {
            return Status(Errc::spawn_failed, "cannot start agent '" + options_.argv[0] + "': " + uv_error_text(rc));
        }
        pid_ = process_->pid;
        if (control_fd_ >= 0) tree_.guard_pid = pid_;
        self_ = shared_from_this();

        timer_ = new uv_timer_t{};
        uv_timer_init(loop_, timer_);
        timer_->data = this;
        drain_timer_ = new uv_timer_t{};
        uv_timer_init(loop_, drain_timer_);
        drain_timer_->data = this;
        if (control_fd_ >= 0) watch_guard();

        stdin_.on_write_error([this](int status) {
            logger_(LogLevel::warning, log_source::transport,
                    "writing to the agent's stdin failed: " + uv_error_text(status));
        });
        // stderr is drained from the start, whatever the host does, so the agent never
        // blocks on a full stderr pipe.
        stderr_.start_reading([this](char* data, std::size_t size) { stderr_collector_.add(data, size); },
                              [this](int) {
                                  auto keep_alive = shared_from_this();
                                  stderr_ended_ = true;
                                  stderr_collector_.finish();
                                  maybe_report_closed();
                              });
        return Status();
    }

    // Runs the agent under the guard (lib/platform/linux/guard/agent_guard.c), which gets one
    // end of the control socket as its descriptor 3. When the guard cannot be run here,
    // says so and leaves control_fd_ at -1 (the caller then spawns the agent itself).
    int spawn_guarded(const std::string& program, std::vector<char*>& envp) {
        auto guard = agent_guard_path();
        int control[2] = {-1, -1};
        if (guard.ok() && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, control) != 0) {
            guard =
                Status(Errc::spawn_failed, std::string("cannot create its control socket: ") + std::strerror(errno));
        }
        int rc = UV_ENOSYS;
        if (guard.ok()) {
            std::vector<std::string> args = {"acp-agent-guard", "3", std::to_string(options_.terminate_grace.count()),
                                             std::to_string(::getpid()), program};
            args.insert(args.end(), options_.argv.begin(), options_.argv.end());
            rc = spawn_process(*guard, args, envp, control[0]);
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
    int spawn_process(const std::string& file, const std::vector<std::string>& argv, std::vector<char*>& envp,
                      int control_fd) {
        std::vector<char*> args;
        for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
        args.push_back(nullptr);

        uv_stdio_container_t stdio[4];
        stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
        stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(stdin_.handle());
        stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
        stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(stdout_.handle());
        stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
        stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(stderr_.handle());
        stdio[3].flags = UV_INHERIT_FD;
        stdio[3].data.fd = control_fd;

        uv_process_options_t spawn_options{};
        spawn_options.file = file.c_str();
        spawn_options.args = args.data();
        spawn_options.env = envp.data();
        spawn_options.cwd = options_.cwd.empty() ? nullptr : options_.cwd.c_str();
        // A new session makes the process the leader of its own process group, so the
        // whole group (grandchildren included) can be signalled at shutdown.
        spawn_options.flags = UV_PROCESS_DETACHED;
        spawn_options.stdio_count = control_fd >= 0 ? 4 : 3;
        spawn_options.stdio = stdio;
        spawn_options.exit_cb = &Supervisor::on_exit;

        process_ = new uv_process_t{};
        process_->data = this;
        int rc = uv_spawn(loop_, process_, &spawn_options);
        if (rc != 0) {
            close_and_delete(process_);
            process_ = nullptr;
        }
        return rc;
    }

    void start(TransportEvents* events) {
        events_ = events;
        if (undelivered_close_) {
            // The agent was gone before the host started listening: tell it now, on the
            // next turn, never inside start().
            deferred_.post([this, keep_alive = shared_from_this()] {
                auto* target = events_;
                events_ = nullptr;
                if (target != nullptr) target->on_transport_closed(*undelivered_close_);
            });
            return;
        }
        stdout_.start_reading(
            [this](char* data, std::size_t size) {
                if (events_ != nullptr) events_->on_transport_data(data, size);
            },
            [this](int status) {
                auto keep_alive = shared_from_this();
                stdout_ended_ = true;
                if (status != UV_EOF) {
                    logger_(LogLevel::warning, log_source::transport,
                            "reading the agent's stdout failed: " + uv_error_text(status));
                }
                // An exiting agent's stdout usually ends just before its exit is seen; only
                // one that stays alive without stdout is shut down.
                if (!exited_ && !close_requested_) {
                    uv_timer_start(drain_timer_, &Supervisor::on_stdout_gone, kDrainAfterExitMs, 0);
                }
                maybe_report_closed();
            });
    }

    void write(std::string_view bytes, WriteCause cause) {
        if (close_requested_ || exited_) return;
        stdin_.write(bytes, cause);
    }

    void close() { begin_shutdown(/*requested=*/true); }

    void set_write_limits(WriteLimits limits) {
        throttle_.configure(&stdout_, std::move(limits), logger_);
        stdin_.on_queue_change([this](std::size_t queued) { throttle_.update(queued); });
    }
    std::size_t queued_bytes() const { return stdin_.queued_bytes(); }
    void hold_reading(bool held) { throttle_.hold(held); }

    // The owner is gone: no more events, and no more log records either (the host's
    // sink may capture state that dies with the owner). The ladder goes on silently.
    void detach() {
        detached_ = true;
        events_ = nullptr;
        logger_ = Logger();
        throttle_.configure(&stdout_, {}, Logger());
        stderr_collector_.set_logger(Logger());
    }

    int pid() const { return pid_; }

private:
    void begin_shutdown(bool requested) {
        if (close_requested_) return;
        close_requested_ = true;
        shutdown_requested_by_client_ = requested;
        throttle_.release();
        stdin_.close_after_writes();  // EOF on stdin: the polite request to exit
        if (exited_) return;
        phase_ = Phase::grace_after_stdin_eof;
        uv_timer_start(timer_, &Supervisor::on_timer, static_cast<uint64_t>(options_.shutdown_grace.count()), 0);
    }

    // Every libuv callback holds a reference while it runs: maybe_release() may drop the
    // supervisor's last one half-way.
    static void on_timer(uv_timer_t* timer) {
        auto* self = static_cast<Supervisor*>(timer->data);
        auto keep_alive = self->shared_from_this();
        switch (self->phase_) {
            case Phase::grace_after_stdin_eof:
                self->logger_(LogLevel::info, log_source::transport,
                              "the agent did not exit after stdin was closed; sending SIGTERM");
                self->signal_group(SIGTERM);
                self->phase_ = Phase::grace_after_sigterm;
                uv_timer_start(timer, &Supervisor::on_timer,
                               static_cast<uint64_t>(self->options_.terminate_grace.count()), 0);
                break;
            case Phase::grace_after_sigterm:
                self->logger_(LogLevel::warning, log_source::transport, "the agent ignored SIGTERM; sending SIGKILL");
                self->kill_agent_tree_now();
                break;
            case Phase::guard_finishing:
                self->phase_ = Phase::idle;
                self->take_over_from_guard("the guard process did not stop the agent");
                break;
            case Phase::sweeping_group:
                if (self->group_alive()) self->signal_group(SIGKILL);
                self->phase_ = Phase::idle;
                self->sweep_done_ = true;
                self->maybe_release();
                break;
            case Phase::idle: break;
        }
    }

    static void on_exit(uv_process_t* process, int64_t exit_status, int term_signal) {
        auto* self = static_cast<Supervisor*>(process->data);
        auto keep_alive = self->shared_from_this();
        self->exited_ = true;
        self->exit_status_ = exit_status;
        self->term_signal_ = term_signal;
        uv_timer_stop(self->timer_);
        if (self->guard_watch_ != nullptr) uv_timer_stop(self->guard_watch_);
        // The guard said nothing before it ended: it was killed (or crashed), and what it
        // guarded may still run. Whatever the guard had to say is read first.
        if (self->control_poll_ != nullptr) on_control_readable(self->control_poll_, 0, UV_READABLE);
        if (self->tree_.guard_pid > 0 && !self->guard_finished_ && !self->took_over_) {
            std::string how = term_signal != 0 ? "was killed by signal " + std::to_string(term_signal)
                                               : "exited with code " + std::to_string(exit_status);
            self->take_over_from_guard("the guard process " + how);
        }
        self->throttle_.release();
        self->stdin_.close();
        // Whatever the agent left running in its group goes with it.
        if (self->group_alive()) {
            self->signal_group(SIGTERM);
            self->phase_ = Phase::sweeping_group;
            uv_timer_start(self->timer_, &Supervisor::on_timer,
                           static_cast<uint64_t>(self->options_.terminate_grace.count()), 0);
        } else {
            self->phase_ = Phase::idle;
            self->sweep_done_ = true;
        }
        uv_timer_start(self->drain_timer_, &Supervisor::on_drain_timeout, kDrainAfterExitMs, 0);
        self->maybe_report_closed();
        self->maybe_release();
    }

    static void on_stdout_gone(uv_timer_t* timer) {
        auto* self = static_cast<Supervisor*>(timer->data);
        auto keep_alive = self->shared_from_this();
        if (self->exited_ || self->close_requested_) return;
        self->logger_(LogLevel::warning, log_source::transport,
                      "the agent closed its stdout but keeps running; shutting it down");
        self->begin_shutdown(/*requested=*/false);
    }

    static void on_drain_timeout(uv_timer_t* timer) {
        auto* self = static_cast<Supervisor*>(timer->data);
        auto keep_alive = self->shared_from_this();
        self->drain_expired_ = true;
        self->maybe_report_closed();
    }

    bool group_alive() const { return pid_ > 0 && ::kill(-pid_, 0) == 0; }

    void signal_group(int signal_number) {
        if (pid_ > 0) ::kill(-pid_, signal_number);
    }

    // SIGKILL cannot be relayed: the guard is told to kill every descendant itself, and
    // the host does it when the guard does not finish in time.
    void kill_agent_tree_now() {
        phase_ = Phase::idle;
        if (control_fd_ >= 0 && ::send(control_fd_, "K", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1) {
            phase_ = Phase::guard_finishing;
            uv_timer_start(timer_, &Supervisor::on_timer, kGuardKillGraceMs, 0);
            return;
        }
        if (tree_.guard_pid > 0) {
            take_over_from_guard("the guard process cannot be reached");
            return;
        }
        signal_group(SIGKILL);
    }

    // The guard reports on its control socket; the host also checks that it still runs.
    void watch_guard() {
        control_poll_ = new uv_poll_t{};
        if (uv_poll_init(loop_, control_poll_, control_fd_) != 0) {
            delete control_poll_;
            control_poll_ = nullptr;
        } else {
            control_poll_->data = this;
            uv_poll_start(control_poll_, UV_READABLE | UV_DISCONNECT, &Supervisor::on_control_readable);
        }
        guard_watch_ = new uv_timer_t{};
        uv_timer_init(loop_, guard_watch_);
        guard_watch_->data = this;
        uv_timer_start(guard_watch_, &Supervisor::on_guard_watch, kGuardWatchMs, kGuardWatchMs);
        // Watching never keeps the host's loop alive by itself.
        uv_unref(reinterpret_cast<uv_handle_t*>(guard_watch_));
    }

    static void on_control_readable(uv_poll_t* poll, int status, int) {
        auto* self = static_cast<Supervisor*>(poll->data);
        auto keep_alive = self->shared_from_this();
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
        auto* self = static_cast<Supervisor*>(timer->data);
        auto keep_alive = self->shared_from_this();
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

    void maybe_report_closed() {
        if (closed_reported_ || !exited_) return;
        if (!(stdout_ended_ && stderr_ended_) && !drain_expired_) return;
        closed_reported_ = true;
        uv_timer_stop(drain_timer_);
        stderr_collector_.finish();
        stdout_.close();
        stderr_.close();

        AgentExit exit;
        exit.exited = true;
        exit.exit_code = static_cast<int>(exit_status_);
        exit.term_signal = term_signal_;
        exit.requested = shutdown_requested_by_client_;
        exit.stderr_tail = stderr_collector_.tail();
        exit.guard_report = guard_note_;
        std::string how = term_signal_ != 0 ? "was killed by signal " + std::to_string(term_signal_) + " (" +
                                                  strsignal(term_signal_) + ")"
                                            : "exited with code " + std::to_string(exit_status_);
        std::string message =
            shutdown_requested_by_client_ ? "the agent was shut down and " + how : "the agent " + how + " unexpectedly";
        if (!guard_note_.empty()) message += " (" + guard_note_ + ")";
        Status why = Status(Errc::connection_closed, message).with_agent_exit(std::move(exit));
        logger_(shutdown_requested_by_client_ ? LogLevel::info : LogLevel::warning, log_source::transport, message);
        if (events_ != nullptr) {
            auto* events = events_;
            events_ = nullptr;
            events->on_transport_closed(why);
        } else if (!detached_) {
            undelivered_close_ = why;
        }
        maybe_release();
    }

    void maybe_release() {
        if (!closed_reported_ || !sweep_done_ || released_) return;
        released_ = true;
        close_and_delete(timer_);
        close_and_delete(drain_timer_);
        close_and_delete(process_);
        if (guard_watch_ != nullptr) close_and_delete(guard_watch_);
        if (control_poll_ != nullptr) close_and_delete(control_poll_);
        guard_watch_ = nullptr;
        control_poll_ = nullptr;
        timer_ = drain_timer_ = nullptr;
        process_ = nullptr;
        self_.reset();  // may destroy this; nothing may follow
    }

    enum class Phase { idle, grace_after_stdin_eof, grace_after_sigterm, guard_finishing, sweeping_group };

    uv_loop_t* loop_;
    SpawnOptions options_;
    Logger logger_;
    PipeStream stdin_;
    PipeStream stdout_;
    PipeStream stderr_;
    StderrCollector stderr_collector_;
    ReadThrottle throttle_;
    uv_process_t* process_ = nullptr;
    int control_fd_ = -1;                // our end of the guard's control socket
    uv_poll_t* control_poll_ = nullptr;  // what the guard reports on it
    uv_timer_t* guard_watch_ = nullptr;  // is the guard stopped?
    std::string control_text_;           // a partial line from the guard
    AgentTree tree_;                     // what to sweep if the guard cannot
    bool guard_finished_ = false;        // the guard said the agent exited and all is swept
    bool took_over_ = false;             // the host swept the tree itself
    std::string guard_note_;             // why, for the close report
    uv_timer_t* timer_ = nullptr;        // the shutdown ladder, then the group sweep
    uv_timer_t* drain_timer_ = nullptr;  // bounds the wait for pipes after the exit
    TransportEvents* events_ = nullptr;
    DeferredQueue deferred_;
    std::optional<Status> undelivered_close_;  // the close happened before start()
    std::shared_ptr<Supervisor> self_;
    Phase phase_ = Phase::idle;
    int pid_ = 0;
    int64_t exit_status_ = 0;
    int term_signal_ = 0;
    bool exited_ = false;
    bool stdout_ended_ = false;
    bool stderr_ended_ = false;
    bool drain_expired_ = false;
    bool close_requested_ = false;
    bool shutdown_requested_by_client_ = false;
    bool closed_reported_ = false;
    bool sweep_done_ = false;
    bool released_ = false;
    bool detached_ = false;
};

Result<std::unique_ptr<ProcessTransport>> ProcessTransport::spawn(uv_loop_t* loop, const SpawnOptions& options,
                                                                  Logger logger) {
    auto supervisor = std::make_shared<Supervisor>(loop, options, std::move(logger));
    Status status = supervisor->spawn();
    if (!status) return status;
    return std::unique_ptr<ProcessTransport>(new ProcessTransport(std::move(supervisor)));
}

ProcessTransport::ProcessTransport(std::shared_ptr<Supervisor> supervisor) : supervisor_(std::move(supervisor)) {}

ProcessTransport::~ProcessTransport() {
    supervisor_->detach();
    supervisor_->close();
}

void ProcessTransport::start(TransportEvents* events) { supervisor_->start(events); }
void ProcessTransport::write(std::string_view bytes, WriteCause cause) { supervisor_->write(bytes, cause); }
void ProcessTransport::close() { supervisor_->close(); }
void ProcessTransport::detach() { supervisor_->detach(); }
void ProcessTransport::set_write_limits(WriteLimits limits) { supervisor_->set_write_limits(std::move(limits)); }
std::size_t ProcessTransport::queued_bytes() const { return supervisor_->queued_bytes(); }
void ProcessTransport::hold_reading(bool held) { supervisor_->hold_reading(held); }
int ProcessTransport::pid() const { return supervisor_->pid(); }

}  // namespace acp::detail
