// SPDX-License-Identifier: Apache-2.0
#include "stdio_mcp_client.hpp"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>

namespace demo {

namespace {

constexpr uint64_t kKillAfterMs = 2000;  // after SIGTERM, for a child that ignores it
constexpr std::size_t kReadBytes = std::size_t{64} * 1024;

}  // namespace

// Every handle points here (data); the last close callback deletes it, so the object that
// owned it may be gone long before.
struct StdioMcpClient::Child {
    uv_process_t process{};
    uv_pipe_t input{};   // the child's stdin
    uv_pipe_t output{};  // the child's stdout
    uv_timer_t kill_timer{};
    StdioMcpClient* owner = nullptr;  // nullptr once the client is destroyed
    bool exited = false;
    int open = 4;
    char buffer[kReadBytes];

    static Child* of(const void* handle) { return static_cast<Child*>(static_cast<const uv_handle_t*>(handle)->data); }
    static void close(void* handle) {
        auto* h = static_cast<uv_handle_t*>(handle);
        if (uv_is_closing(h)) return;
        uv_close(h, [](uv_handle_t* closed) {
            Child* child = of(closed);
            if (--child->open == 0) delete child;
        });
    }
    // Closes its stdin and stdout and ends it: SIGTERM now, SIGKILL if it outlives that.
    void terminate() {
        close(&input);
        close(&output);
        if (exited) return;
        uv_process_kill(&process, SIGTERM);
        if (uv_is_active(reinterpret_cast<uv_handle_t*>(&kill_timer))) return;
        uv_timer_start(
            &kill_timer,
            [](uv_timer_t* timer) {
                Child* child = of(timer);
                if (!child->exited) uv_process_kill(&child->process, SIGKILL);
            },
            kKillAfterMs, 0);
    }
};

acp::Result<std::unique_ptr<StdioMcpClient>> StdioMcpClient::spawn(
    uv_loop_t* loop, const std::string& name, const std::string& command, const std::vector<std::string>& args,
    const std::vector<std::pair<std::string, std::string>>& env) {
    // The agent's environment with the entry's variables set over it.
    // libuv's copy is UTF-8 everywhere (Windows' C runtime keeps one in the ANSI code page).
    std::map<std::string, std::string> variables;
    uv_env_item_t* items = nullptr;
    int count = 0;
    if (int rc = uv_os_environ(&items, &count); rc != 0) {
        return acp::Status(acp::Errc::io_error, std::string("cannot read the environment: ") + uv_strerror(rc));
    }
    for (int i = 0; i < count; ++i) variables[items[i].name] = items[i].value;
    uv_os_free_environ(items, count);
    for (const auto& [key, value] : env) {
        if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos ||
            value.find('\0') != std::string::npos) {
            return acp::Status(acp::Errc::invalid_argument, "the MCP server " + name + " has an invalid env entry");
        }
        variables[key] = value;
    }
    std::vector<std::string> env_lines;
    env_lines.reserve(variables.size());
    for (const auto& [key, value] : variables) env_lines.push_back(std::string(key).append("=").append(value));
    std::vector<char*> env_pointers;
    env_pointers.reserve(env_lines.size() + 1);
    for (auto& line : env_lines) env_pointers.push_back(line.data());
    env_pointers.push_back(nullptr);
    std::vector<std::string> argv_strings = {command};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_strings) {
        if (arg.find('\0') != std::string::npos) {
            return acp::Status(acp::Errc::invalid_argument, "the MCP server " + name + " has an invalid argument");
        }
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);

    auto* child = new Child;
    uv_pipe_init(loop, &child->input, 0);
    uv_pipe_init(loop, &child->output, 0);
    uv_timer_init(loop, &child->kill_timer);
    child->input.data = child;
    child->output.data = child;
    child->kill_timer.data = child;
    uv_stdio_container_t stdio[3];
    stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
    stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&child->input);
    stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&child->output);
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = STDERR_FILENO;
    uv_process_options_t options{};
    options.file = argv[0];
    options.args = argv.data();
    options.env = env_pointers.data();
    options.stdio = stdio;
    options.stdio_count = 3;
    options.exit_cb = [](uv_process_t* process, int64_t status, int signal) {
        Child* ended = Child::of(process);
        ended->exited = true;
        uv_timer_stop(&ended->kill_timer);
        Child::close(&ended->kill_timer);
        Child::close(&ended->process);
        // What it wrote before exiting may still be in the pipe: its end is the end.
        if (ended->owner != nullptr && uv_is_closing(reinterpret_cast<uv_handle_t*>(&ended->output))) {
            ended->owner->on_ended(signal != 0 ? "the server was killed by signal " + std::to_string(signal)
                                               : "the server exited with status " + std::to_string(status));
        }
    };
    const int spawned = uv_spawn(loop, &child->process, &options);
    child->process.data = child;
    if (spawned != 0) {
        child->exited = true;
        for (void* handle : {static_cast<void*>(&child->process), static_cast<void*>(&child->input),
                             static_cast<void*>(&child->output), static_cast<void*>(&child->kill_timer)}) {
            Child::close(handle);
        }
        return acp::Status(acp::Errc::spawn_failed,
                           "cannot start the MCP server " + name + " (" + command + "): " + uv_strerror(spawned));
    }
    std::unique_ptr<StdioMcpClient> client(new StdioMcpClient(name, child));
    child->owner = client.get();
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&child->output),
        [](uv_handle_t* handle, std::size_t, uv_buf_t* buf) {
            *buf = uv_buf_init(Child::of(handle)->buffer, kReadBytes);
        },
        [](uv_stream_t* stream, ssize_t n, const uv_buf_t*) {
            Child* reading = Child::of(stream);
            if (n > 0) {
                if (reading->owner != nullptr) reading->owner->on_output(reading->buffer, static_cast<std::size_t>(n));
                return;
            }
            if (n == 0) return;
            Child::close(&reading->output);
            if (reading->owner != nullptr) reading->owner->on_ended("the server closed its output");
        });
    return client;
}

StdioMcpClient::StdioMcpClient(std::string name, Child* child) : McpClient(std::move(name)), child_(child) {}

StdioMcpClient::~StdioMcpClient() {
    child_->owner = nullptr;
    child_->terminate();
}

void StdioMcpClient::send(uint64_t, const std::string& message) {
    auto* input = reinterpret_cast<uv_stream_t*>(&child_->input);
    if (uv_is_closing(reinterpret_cast<uv_handle_t*>(input))) return;  // ended: its end is reported
    struct Write {
        uv_write_t request{};
        std::string bytes;
    };
    auto* write = new Write;
    write->bytes = message + "\n";
    write->request.data = write;
    uv_buf_t buffer = uv_buf_init(write->bytes.data(), static_cast<unsigned>(write->bytes.size()));
    auto written = [](uv_write_t* request, int status) {
        auto* done = static_cast<Write*>(request->data);
        // A child that stopped reading is ended; its end is reported from the loop.
        if (status < 0 && status != UV_ECANCELED) {
            Child* child = Child::of(request->handle);
            if (child->owner != nullptr) child->terminate();
        }
        delete done;
    };
    if (uv_write(&write->request, input, &buffer, 1, written) != 0) {
        delete write;
        child_->terminate();
    }
}

void StdioMcpClient::on_output(const char* data, std::size_t size) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] != '\n') continue;
        line_.append(data + start, i - start);
        start = i + 1;
        if (!line_.empty() && line_.back() == '\r') line_.pop_back();
        std::string message;
        message.swap(line_);
        if (message.size() > kMaxMcpMessageBytes) return on_too_long();
        if (!message.empty()) receive(std::move(message));
    }
    line_.append(data + start, size - start);
    if (line_.size() > kMaxMcpMessageBytes) on_too_long();
}

void StdioMcpClient::on_too_long() {
    line_.clear();
    child_->terminate();
    fail_all("the server " + name() + " sent a line over " + std::to_string(kMaxMcpMessageBytes) + " bytes");
}

void StdioMcpClient::on_ended(const std::string& why) {
    line_.clear();
    child_->terminate();
    fail_all(why);
}

}  // namespace demo
