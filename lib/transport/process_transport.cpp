// SPDX-License-Identifier: Apache-2.0
#include "transport/process_transport.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "platform/agent_process.hpp"
#include "platform/process_environment.hpp"
#include "support/deferred_queue.hpp"
#include "support/uv_handle.hpp"
#include "transport/pipe_stream.hpp"
#include "transport/read_throttle.hpp"
#include "transport/stderr_collector.hpp"

namespace acp::detail {

namespace {

// How long to wait for the agent's pipes to drain after it exited. Grandchildren may
// hold them open; they are terminated meanwhile.
constexpr uint64_t kDrainAfterExitMs = 1000;

std::string uv_error_text(int status) { return std::string(uv_strerror(status)); }

std::vector<std::string> build_environment(const SpawnOptions& options) {
    std::vector<std::string> env;
    auto overridden = [&](std::string_view name) {
        for (const auto& removed : options.env_unset) {
            if (same_variable_name(removed, name)) return true;
        }
        for (const auto& set : options.env_set) {
            if (same_variable_name(set.first, name)) return true;
        }
        return false;
    };
    for (auto& entry : host_environment()) {
        if (overridden(std::string_view(entry).substr(0, entry.find('=')))) continue;
        env.push_back(std::move(entry));
    }
    // One entry per variable: of env_set entries naming the same one, the last wins.
    for (std::size_t i = 0; i < options.env_set.size(); ++i) {
        const auto& [name, value] = options.env_set[i];
        bool set_again = false;
        for (std::size_t later = i + 1; later < options.env_set.size() && !set_again; ++later) {
            set_again = same_variable_name(options.env_set[later].first, name);
        }
        if (!set_again) env.push_back(std::string(name).append("=").append(value));
    }
    return env;
}

}  // namespace

// Owns the pipes, the ladder's timing and the report; the process itself and its tree
// are the platform's (platform/agent_process.hpp). Keeps itself alive (self_) until the
// process has been reaped, its tree swept and every handle closed, whoever owns it by then.
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

    Status spawn() {
        AgentProcessRequest request;
        request.argv = options_.argv;
        request.env = build_environment(options_);
        request.cwd = options_.cwd;
        request.contain = options_.use_guard_process;
        request.terminate_grace = options_.terminate_grace;
        AgentProcess::Callbacks callbacks;
        callbacks.on_exit = [this](const AgentProcess::Exit& exit) { on_exit(exit); };
        callbacks.on_swept = [this] {
            auto keep_alive = shared_from_this();
            sweep_done_ = true;
            maybe_release();
        };
        auto agent = start_agent_process(loop_, request, {stdin_.handle(), stdout_.handle(), stderr_.handle()}, logger_,
                                         std::move(callbacks));
        if (!agent) return agent.status();
        agent_ = std::move(*agent);
        pid_ = agent_->pid();
        self_ = shared_from_this();

        timer_ = new uv_timer_t{};
        uv_timer_init(loop_, timer_);
        timer_->data = this;
        drain_timer_ = new uv_timer_t{};
        uv_timer_init(loop_, drain_timer_);
        drain_timer_->data = this;

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

    // The ladder's waiting step, taken now (a host's "stop" pressed again).
    void hasten() {
        if (!close_requested_ || exited_ || phase_ == Phase::idle) return;
        uv_timer_stop(timer_);
        on_timer(timer_);
    }

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
        agent_->mute();
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
                              std::string("the agent did not exit after stdin was closed; sending ") +
                                  stop_step_names().terminate);
                self->agent_->terminate();
                self->phase_ = Phase::grace_after_sigterm;
                uv_timer_start(timer, &Supervisor::on_timer,
                               static_cast<uint64_t>(self->options_.terminate_grace.count()), 0);
                break;
            case Phase::grace_after_sigterm:
                self->logger_(LogLevel::warning, log_source::transport,
                              std::string("the agent ignored ") + stop_step_names().terminate + "; sending " +
                                  stop_step_names().kill_tree);
                self->phase_ = Phase::idle;
                self->agent_->kill_tree();
                break;
            case Phase::idle: break;
        }
    }

    void on_exit(const AgentProcess::Exit& exit) {
        auto keep_alive = shared_from_this();
        exited_ = true;
        exit_status_ = exit.exit_code;
        term_signal_ = exit.term_signal;
        guard_note_ = exit.guard_note;
        uv_timer_stop(timer_);
        phase_ = Phase::idle;
        throttle_.release();
        stdin_.close();
        uv_timer_start(drain_timer_, &Supervisor::on_drain_timeout, kDrainAfterExitMs, 0);
        maybe_report_closed();
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
        std::string how = describe_process_exit(exit_status_, term_signal_);
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
        timer_ = drain_timer_ = nullptr;
        self_.reset();  // may destroy this; nothing may follow
    }

    enum class Phase { idle, grace_after_stdin_eof, grace_after_sigterm };

    uv_loop_t* loop_;
    SpawnOptions options_;
    Logger logger_;
    PipeStream stdin_;
    PipeStream stdout_;
    PipeStream stderr_;
    StderrCollector stderr_collector_;
    ReadThrottle throttle_;
    std::unique_ptr<AgentProcess> agent_;  // closing it tells a guard to stop everything
    std::string guard_note_;               // why the host had to stop the tree, for the report
    uv_timer_t* timer_ = nullptr;          // the shutdown ladder
    uv_timer_t* drain_timer_ = nullptr;    // bounds the wait for pipes after the exit
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
void ProcessTransport::hasten_close() { supervisor_->hasten(); }
void ProcessTransport::detach() { supervisor_->detach(); }
void ProcessTransport::set_write_limits(WriteLimits limits) { supervisor_->set_write_limits(std::move(limits)); }
std::size_t ProcessTransport::queued_bytes() const { return supervisor_->queued_bytes(); }
void ProcessTransport::hold_reading(bool held) { supervisor_->hold_reading(held); }
int ProcessTransport::pid() const { return supervisor_->pid(); }

}  // namespace acp::detail
