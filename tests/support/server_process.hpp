// SPDX-License-Identifier: Apache-2.0
// A test's server process on loopback (server.mjs, the hostile server.py): it prints one
// JSON line with its URLs on stdout at startup, and ends when its standard input closes.
// That input is a pipe held here, so the server also ends if the test dies.
#pragma once

#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace acp::test {

class ServerProcess {
public:
    explicit ServerProcess(std::vector<std::string> args) {
        int out[2];
        int in[2];
        REQUIRE(pipe(out) == 0);
        REQUIRE(pipe(in) == 0);
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            for (int unused : {in[0], in[1], out[0], out[1]}) ::close(unused);
            std::vector<char*> argv;
            for (auto& arg : args) argv.push_back(arg.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        stdin_ = in[1];
        stdout_ = out[0];
        first_line_ = read_line(std::chrono::seconds(30));
    }
    ~ServerProcess() { stop(SIGTERM); }
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    // Ends the server with a signal (SIGKILL: a crash mid-turn) and reaps it.
    void stop(int signal) {
        if (pid_ <= 0) return;
        ::close(stdin_);
        ::kill(pid_, signal);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        ::close(stdout_);
    }

    // A URL from the startup line ("name":"url", with or without a space); "" if absent.
    std::string url(const std::string& name) const {
        std::string key = "\"" + name + "\":";
        auto at = first_line_.find(key);
        if (at == std::string::npos) return {};
        auto start = first_line_.find('"', at + key.size());
        if (start == std::string::npos) return {};
        auto end = first_line_.find('"', start + 1);
        return end == std::string::npos ? std::string() : first_line_.substr(start + 1, end - start - 1);
    }
    const std::string& first_line() const { return first_line_; }

private:
    std::string read_line(std::chrono::milliseconds limit) {
        std::string line;
        auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd fd{stdout_, POLLIN, 0};
            if (poll(&fd, 1, 100) <= 0) continue;
            char c;
            if (::read(stdout_, &c, 1) != 1) break;
            if (c == '\n') return line;
            line += c;
        }
        return line;
    }

    pid_t pid_ = -1;
    int stdin_ = -1;
    int stdout_ = -1;
    std::string first_line_;
};

}  // namespace acp::test
