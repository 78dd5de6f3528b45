// SPDX-License-Identifier: Apache-2.0
#include "platform/login_shell.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

extern char** environ;

namespace acp::detail {
namespace {

// Shell start-up files may print; the environment is what follows this line.
constexpr const char* kMark = "__ACP_LOGIN_SHELL_ENV__";
constexpr std::size_t kMaxOutputBytes = 1024 * 1024;

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    int get() const { return fd_; }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_;
};

EnvList parse_env0(std::string_view out) {
    EnvList env;
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\0', start);
        if (end == std::string_view::npos) end = out.size();
        std::string_view entry = out.substr(start, end - start);
        std::size_t eq = entry.find('=');
        if (eq != std::string_view::npos && eq > 0)
            env.emplace_back(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
        start = end + 1;
    }
    return env;
}

// Waits for the child until the deadline, then kills its session and reaps it.
int reap(pid_t pid, std::chrono::steady_clock::time_point deadline, bool& killed) {
    int status = 0;
    for (;;) {
        pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return -1;
        if (std::chrono::steady_clock::now() >= deadline) break;
        ::usleep(5000);
    }
    killed = true;
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

}  // namespace

Result<EnvList> run_login_shell(std::chrono::milliseconds timeout) {
    const char* shell_env = std::getenv("SHELL");
    std::string shell = (shell_env != nullptr && shell_env[0] == '/') ? shell_env : "/bin/sh";
    std::string command = std::string("echo ") + kMark + "; env -0";

    int fds[2];
#if defined(__linux__)
    if (::pipe2(fds, O_CLOEXEC) != 0) return Status(Errc::io_error, std::string("pipe: ") + std::strerror(errno));
#else
    // No pipe2 (macOS): close-on-exec just after; a host thread spawning in between could
    // inherit the write end, which the timeout covers (the read ends at the deadline).
    if (::pipe(fds) != 0) return Status(Errc::io_error, std::string("pipe: ") + std::strerror(errno));
    for (int fd : fds) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
#endif
    Fd read_end(fds[0]);
    Fd write_end(fds[1]);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // A session of its own: an interactive shell finds no terminal to take from the host,
    // and the timeout kills everything the start-up files began.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);

    std::string arg_l = "-l", arg_i = "-i", arg_c = "-c";
    char* argv[] = {shell.data(), arg_l.data(), arg_i.data(), arg_c.data(), command.data(), nullptr};
    pid_t pid = 0;
    int error = ::posix_spawn(&pid, shell.c_str(), &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0)
        return Status(Errc::spawn_failed, "the login shell " + shell + " could not start: " + std::strerror(error));
    write_end.reset();

    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string out;
    bool overflow = false;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd p{read_end.get(), POLLIN, 0};
        int ready = ::poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) break;
        char buffer[8192];
        ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (out.size() + static_cast<std::size_t>(n) > kMaxOutputBytes) {
            overflow = true;
            break;
        }
        out.append(buffer, static_cast<std::size_t>(n));
    }
    read_end.reset();
    bool killed = false;
    int status = reap(pid, overflow ? std::chrono::steady_clock::now() : deadline, killed);

    if (overflow) return Status(Errc::protocol_error, "the login shell " + shell + " wrote more than 1 MiB");
    std::string mark_line = std::string(kMark) + "\n";
    std::size_t mark = out.find(mark_line);
    if (killed && mark == std::string::npos) {
        return Status(Errc::timed_out,
                      "the login shell " + shell + " did not answer within " + std::to_string(timeout.count()) + " ms");
    }
    if (mark == std::string::npos) {
        return Status(Errc::io_error, "the login shell " + shell + " printed no environment (exit status " +
                                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
    }
    if (killed && out.back() != '\0') {
        return Status(Errc::timed_out,
                      "the login shell " + shell + " did not finish within " + std::to_string(timeout.count()) + " ms");
    }
    return parse_env0(std::string_view(out).substr(mark + mark_line.size()));
}

}  // namespace acp::detail
