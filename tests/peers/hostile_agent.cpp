// SPDX-License-Identifier: Apache-2.0
// An agent that attacks its client's resources on purpose, for tests/hostile/.
//
// Independent of libacp (plain POSIX), one mode per attack:
//
//   flood-requests [--pid-file F]
//       Sends JSON-RPC requests for a method no client serves, as fast as it can, and
//       never reads its stdin: every request costs the client an answer the agent never
//       takes. On SIGUSR1 it starts reading (and discarding) its stdin, still flooding.
//   setsid-children --pid-file F
//       Starts descendants that leave its process group with setsid() and sleep: one that
//       dies on SIGTERM, and one (via an intermediate process that exits, so it is
//       orphaned) that ignores SIGTERM. Never reads stdin, never exits by itself unless
//       --exit-code N is given: then it exits with N once the descendants run.
//   group-children --pid-file F [--exit-code N]
//       Starts descendants that stay in its process group and ignore SIGTERM and SIGHUP:
//       a child, and a grandchild orphaned by an intermediate process that exits. Never
//       reads stdin; exits with N once they run when --exit-code is given. What every
//       platform variant must stop, the portable POSIX one included.
//   stop-guard --pid-file F
//   kill-guard --pid-file F
//       Starts descendants that ignore SIGTERM and SIGHUP (one in its group, one orphaned
//       in a session of its own), then sends SIGSTOP or SIGKILL to its parent, libacp's
//       agent guard ("guard <pid>" is recorded just before), and sleeps.
//
// --pid-file F: each process of the mode appends "<role> <pid>\n" to F once it runs.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

std::string pid_file;
int exit_code = -1;  // setsid-children, group-children: exit with this once the descendants run

void record_pid_as(const char* role, pid_t pid) {
    if (pid_file.empty()) return;
    int fd = ::open(pid_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    std::string line = std::string(role) + " " + std::to_string(pid) + "\n";
    (void)!::write(fd, line.data(), line.size());  // one write: lines never interleave
    ::close(fd);
}

void record_pid(const char* role) { record_pid_as(role, ::getpid()); }

bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

[[noreturn]] void sleep_forever() {
    for (;;) ::pause();
}

// A daemon-like descendant: its own session, stdio detached from the agent's pipes.
void become_detached_sleeper() {
    ::setsid();
    int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
        if (null_fd > 2) ::close(null_fd);
    }
}

int flood_requests() {
    record_pid("agent");
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
    std::thread([usr1] {
        int signal_number = 0;
        sigwait(&usr1, &signal_number);
        char buffer[65536];
        while (::read(0, buffer, sizeof buffer) > 0) {
        }
    }).detach();
    for (long long id = 1;; ++id) {
        std::string line = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                           R"(,"method":"hostile/flood","params":{}})"
                           "\n";
        if (!write_all(1, line.data(), line.size())) return 0;  // the client is gone
    }
}

int setsid_children() {
    if (pid_file.empty()) {
        std::fprintf(stderr, "hostile_agent: setsid-children needs --pid-file\n");
        return 2;
    }
    record_pid("agent");
    if (::fork() == 0) {
        become_detached_sleeper();
        record_pid("setsid-child");
        sleep_forever();
    }
    if (::fork() == 0) {
        become_detached_sleeper();
        if (::fork() == 0) {
            ::signal(SIGTERM, SIG_IGN);
            ::setsid();
            record_pid("orphan-ignoring-sigterm");
            sleep_forever();
        }
        _exit(0);  // orphans its child
    }
    if (exit_code >= 0) {
        // Give the descendants time to record themselves; the test waits for them anyway.
        for (int i = 0; i < 500; ++i) {
            std::FILE* in = std::fopen(pid_file.c_str(), "r");
            int lines = 0;
            for (int c; in != nullptr && (c = std::fgetc(in)) != EOF;) lines += c == '\n';
            if (in != nullptr) std::fclose(in);
            if (lines >= 3) break;
            ::usleep(10 * 1000);
        }
        return exit_code;
    }
    sleep_forever();
}

// Stdio detached from the agent's pipes, so only the process group ties it to the agent.
void detach_stdio() {
    int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
        ::dup2(null_fd, 0);
        ::dup2(null_fd, 1);
        ::dup2(null_fd, 2);
        if (null_fd > 2) ::close(null_fd);
    }
}

// Waits (bounded) until the pid file holds `lines` lines.
void wait_for_recorded(int lines) {
    for (int i = 0; i < 500; ++i) {
        std::FILE* in = std::fopen(pid_file.c_str(), "r");
        int count = 0;
        for (int c; in != nullptr && (c = std::fgetc(in)) != EOF;) count += c == '\n';
        if (in != nullptr) std::fclose(in);
        if (count >= lines) return;
        ::usleep(10 * 1000);
    }
}

void ignore_polite_signals() {
    ::signal(SIGTERM, SIG_IGN);
    ::signal(SIGHUP, SIG_IGN);
}

int group_children() {
    if (pid_file.empty()) {
        std::fprintf(stderr, "hostile_agent: group-children needs --pid-file\n");
        return 2;
    }
    record_pid("agent");
    if (::fork() == 0) {
        detach_stdio();
        ignore_polite_signals();
        record_pid("group-child-ignoring-sigterm");
        sleep_forever();
    }
    if (::fork() == 0) {
        detach_stdio();
        if (::fork() == 0) {
            ignore_polite_signals();
            record_pid("group-orphan-ignoring-sigterm");
            sleep_forever();
        }
        _exit(0);  // orphans its child
    }
    if (exit_code >= 0) {
        wait_for_recorded(3);
        return exit_code;
    }
    sleep_forever();
}

int attack_guard(int signal_number) {
    if (pid_file.empty()) {
        std::fprintf(stderr, "hostile_agent: stop-guard and kill-guard need --pid-file\n");
        return 2;
    }
    record_pid("agent");
    if (::fork() == 0) {
        ignore_polite_signals();
        record_pid("child-ignoring-sigterm");
        sleep_forever();
    }
    if (::fork() == 0) {
        become_detached_sleeper();
        if (::fork() == 0) {
            ignore_polite_signals();
            ::setsid();
            record_pid("orphan-ignoring-sigterm");
            sleep_forever();
        }
        _exit(0);  // orphans its child
    }
    wait_for_recorded(3);
    pid_t guard = ::getppid();
    record_pid_as("guard", guard);
    ::kill(guard, signal_number);
    sleep_forever();
}

}  // namespace

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    for (int i = 2; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--pid-file") == 0) {
            pid_file = argv[++i];
        } else if (std::strcmp(argv[i], "--exit-code") == 0) {
            exit_code = std::atoi(argv[++i]);
        }
    }
    if (mode == "flood-requests") return flood_requests();
    if (mode == "setsid-children") return setsid_children();
    if (mode == "group-children") return group_children();
    if (mode == "stop-guard") return attack_guard(SIGSTOP);
    if (mode == "kill-guard") return attack_guard(SIGKILL);
    std::fprintf(stderr,
                 "usage: hostile_agent flood-requests|setsid-children|group-children|stop-guard|kill-guard "
                 "[--pid-file FILE]\n");
    return 2;
}
