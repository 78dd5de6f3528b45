// SPDX-License-Identifier: Apache-2.0
#include "platform/posix/session_spawn.hpp"

#include "support/uv_handle.hpp"

namespace acp::detail {

int spawn_in_session(uv_loop_t* loop, const SessionSpawn& spawn, uv_process_t** process) {
    std::vector<std::string> env = spawn.env;
    std::vector<char*> envp;
    envp.reserve(env.size() + 1);
    for (auto& entry : env) envp.push_back(&entry[0]);
    envp.push_back(nullptr);
    std::vector<char*> args;
    args.reserve(spawn.argv.size() + 1);
    for (const auto& arg : spawn.argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);

    uv_stdio_container_t stdio[4];
    stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
    stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(spawn.pipes.stdin_pipe);
    stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(spawn.pipes.stdout_pipe);
    stdio[2].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[2].data.stream = reinterpret_cast<uv_stream_t*>(spawn.pipes.stderr_pipe);
    stdio[3].flags = UV_INHERIT_FD;
    stdio[3].data.fd = spawn.extra_fd;

    uv_process_options_t options{};
    options.file = spawn.file.c_str();
    options.args = args.data();
    options.env = envp.data();
    options.cwd = spawn.cwd.empty() ? nullptr : spawn.cwd.c_str();
    options.flags = UV_PROCESS_DETACHED;
    options.stdio_count = spawn.extra_fd >= 0 ? 4 : 3;
    options.stdio = stdio;
    options.exit_cb = spawn.exit_cb;

    *process = new uv_process_t{};
    (*process)->data = spawn.data;
    int rc = uv_spawn(loop, *process, &options);
    if (rc != 0) {
        close_and_delete(*process);
        *process = nullptr;
    }
    return rc;
}

}  // namespace acp::detail
