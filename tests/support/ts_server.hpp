// SPDX-License-Identifier: Apache-2.0
// The TypeScript-SDK peer agent served over the network (tests/peers/ts-agent/server.mjs,
// on the SDK's own server side): one process on loopback, both transports on one port.
// Its standard input is a pipe held here, so the server also ends if the test dies.
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

class TsServer {
public:
    explicit TsServer(std::vector<std::string> flags = {}) {
        int out[2];
        int in[2];
        REQUIRE(pipe(out) == 0);
        REQUIRE(pipe(in) == 0);
        pid_ = fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            dup2(in[0], 0);
            dup2(out[1], 1);
            ::close(in[0]);
            ::close(in[1]);
            ::close(out[0]);
            ::close(out[1]);
            std::vector<std::string> args = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/server.mjs", "--port=0"};
            for (auto& flag : flags) args.push_back(flag);
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
        std::string line = read_line(std::chrono::seconds(30));
        INFO("server.mjs said: " << line);
        http_url = field(line, "http");
        ws_url = field(line, "ws");
        REQUIRE(!http_url.empty());
        REQUIRE(!ws_url.empty());
    }

    ~TsServer() { stop(SIGTERM); }
    TsServer(const TsServer&) = delete;
    TsServer& operator=(const TsServer&) = delete;

    // Ends the server with a signal (SIGKILL: a crash mid-turn) and reaps it.
    void stop(int signal) {
        if (pid_ <= 0) return;
        ::kill(pid_, signal);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        ::close(stdin_);
        ::close(stdout_);
    }

    // The port the server listens on (from its URL).
    int port() const {
        auto colon = http_url.rfind(':');
        return std::atoi(http_url.c_str() + colon + 1);
    }

    std::string http_url;
    std::string ws_url;

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

    static std::string field(const std::string& json, const std::string& name) {
        std::string key = "\"" + name + "\":\"";
        auto at = json.find(key);
        if (at == std::string::npos) return {};
        auto start = at + key.size();
        auto end = json.find('"', start);
        return end == std::string::npos ? std::string() : json.substr(start, end - start);
    }

    pid_t pid_ = -1;
    int stdin_ = -1;
    int stdout_ = -1;
};

}  // namespace acp::test
