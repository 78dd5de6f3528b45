// SPDX-License-Identifier: Apache-2.0
// A child process on a test's libuv loop: its stdout and stderr collected, its stdin a
// pipe the test writes to and closes, its exit status kept. For tests whose child talks to
// something the same loop serves (a blocking wait would deadlock them).
#pragma once

#include <doctest/doctest.h>
#include <uv.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace acp::test {

class LoopChild {
public:
    // env: the child's whole environment ("NAME=value"); empty: this process's.
    LoopChild(uv_loop_t* loop, std::vector<std::string> args, std::vector<std::string> env = {})
        : state_(std::make_shared<State>()) {
        State& s = *state_;
        uv_pipe_init(loop, &s.in, 0);
        uv_pipe_init(loop, &s.out, 0);
        uv_pipe_init(loop, &s.err, 0);
        s.in.data = s.out.data = s.err.data = s.process.data = new std::shared_ptr<State>(state_);
        std::vector<char*> argv;
        for (auto& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        std::vector<char*> envp;
        for (auto& entry : env) envp.push_back(entry.data());
        envp.push_back(nullptr);
        uv_stdio_container_t stdio[3];
        stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
        stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&s.in);
        stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
        stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&s.out);
        stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
        stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(&s.err);
        uv_process_options_t options{};
        options.file = argv[0];
        options.args = argv.data();
        options.env = env.empty() ? nullptr : envp.data();
        options.stdio = stdio;
        options.stdio_count = 3;
        options.exit_cb = [](uv_process_t* process, int64_t status, int signal) {
            State& state = **static_cast<std::shared_ptr<State>*>(process->data);
            state.exited = true;
            state.exit_status = status;
            state.term_signal = signal;
            state.pid = 0;
            close_handle(reinterpret_cast<uv_handle_t*>(process));
        };
        int rc = uv_spawn(loop, &s.process, &options);
        REQUIRE_MESSAGE(rc == 0, "spawn " << args[0] << ": " << uv_strerror(rc));
        s.pid = s.process.pid;
        s.open_handles = 4;
        for (uv_pipe_t* pipe : {&s.out, &s.err}) {
            uv_read_start(
                reinterpret_cast<uv_stream_t*>(pipe),
                [](uv_handle_t*, std::size_t, uv_buf_t* buf) {
                    static char scratch[65536];
                    *buf = uv_buf_init(scratch, sizeof scratch);
                },
                [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
                    State& state = **static_cast<std::shared_ptr<State>*>(stream->data);
                    if (nread < 0) {
                        uv_read_stop(stream);
                        return;
                    }
                    (reinterpret_cast<uv_pipe_t*>(stream) == &state.out ? state.stdout_text : state.stderr_text)
                        .append(buf->base, static_cast<std::size_t>(nread));
                });
        }
    }
    // A child still running is killed: a failed test leaves nothing behind.
    ~LoopChild() {
        if (state_->pid > 0) uv_kill(state_->pid, SIGKILL);
        close_stdin();
        for (uv_pipe_t* pipe : {&state_->out, &state_->err}) close_handle(reinterpret_cast<uv_handle_t*>(pipe));
        // The process handle closes in its exit callback.
    }
    LoopChild(const LoopChild&) = delete;
    LoopChild& operator=(const LoopChild&) = delete;

    void write_stdin(const std::string& text) {
        auto* request = new uv_write_t;
        auto* copy = new std::string(text);
        request->data = copy;
        uv_buf_t buf = uv_buf_init(copy->data(), static_cast<unsigned>(copy->size()));
        if (uv_write(request, reinterpret_cast<uv_stream_t*>(&state_->in), &buf, 1, [](uv_write_t* r, int) {
                delete static_cast<std::string*>(r->data);
                delete r;
            }) != 0) {
            delete copy;
            delete request;
        }
    }
    void close_stdin() { close_handle(reinterpret_cast<uv_handle_t*>(&state_->in)); }

    bool exited() const { return state_->exited; }
    int64_t exit_status() const { return state_->exit_status; }
    int term_signal() const { return state_->term_signal; }
    int pid() const { return state_->pid; }
    const std::string& out() const { return state_->stdout_text; }
    const std::string& err() const { return state_->stderr_text; }

private:
    struct State {
        uv_process_t process{};
        uv_pipe_t in{};
        uv_pipe_t out{};
        uv_pipe_t err{};
        int open_handles = 0;
        bool exited = false;
        int64_t exit_status = -1;
        int term_signal = 0;
        int pid = 0;
        std::string stdout_text;
        std::string stderr_text;
    };

    // Each handle holds the state alive until it is closed (the last one frees it).
    static void close_handle(uv_handle_t* handle) {
        if (uv_is_closing(handle)) return;
        uv_close(handle, [](uv_handle_t* h) {
            auto* holder = static_cast<std::shared_ptr<State>*>(h->data);
            State& state = **holder;
            if (--state.open_handles == 0) delete holder;
        });
    }

    std::shared_ptr<State> state_;
};

}  // namespace acp::test
