/* SPDX-License-Identifier: Apache-2.0 */
/* acp-agent-guard: the process libacp puts between the host and the agent, so that no
 * agent (nor anything it started) outlives its host or its client.
 *
 *   acp-agent-guard CONTROL_FD GRACE_MS HOST_PID PROGRAM ARGV0 [ARGS...]
 *
 * It makes itself a child subreaper (descendants orphaned by their parents, those that
 * called setsid() included, are re-parented to it), starts PROGRAM in its own process
 * group with the guard's stdio (the pipes the client reads and writes) and environment,
 * and then waits for:
 *   - the agent's exit: every descendant still alive gets SIGTERM, then SIGKILL after
 *     GRACE_MS; the guard then exits as the agent did (same code, same signal), so the
 *     host sees the agent's own exit;
 *   - SIGHUP/INT/QUIT/TERM/USR1/USR2/WINCH/CONT (the host's shutdown ladder): relayed to
 *     the agent's process group, as if sent to the agent directly;
 *   - the byte 'K' on CONTROL_FD (the ladder's last step): SIGKILL to every descendant;
 *   - end of CONTROL_FD, or the death of HOST_PID (PR_SET_PDEATHSIG): the host is gone or
 *     dropped the agent: SIGTERM to every descendant, SIGKILL after GRACE_MS, exit.
 * CONTROL_FD is a socket: the guard tells the host "A<pid>\n" once the agent runs (so the
 * host can sweep the tree itself if the agent stops or kills the guard) and "X\n" just
 * before it exits as the agent did (anything else ending the guard is an attack). The
 * agent dies with the guard (PR_SET_PDEATHSIG SIGKILL), so killing the guard first never
 * frees it.
 * Descendants are found by walking /proc (the parent of each process), repeatedly until
 * none is left, so processes forked meanwhile are caught too.
 *
 * Plain C and libc only: libacp embeds this executable and runs it from a sealed memfd
 * (lib/platform/linux/agent_guard.cpp). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int relayed_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};
#define RELAYED_COUNT (sizeof relayed_signals / sizeof relayed_signals[0])
/* PR_SET_PDEATHSIG fires when the thread that spawned the guard ends, not only the host
 * process: the guard checks its parent before believing it. */
#define HOST_DEATH_SIGNAL SIGPWR
/* While descendants are being terminated, how often the guard looks again. */
#define SWEEP_POLL_MS 20

static pid_t self_pid;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void say(const char *message) {
    char line[512];
    int n = snprintf(line, sizeof line, "acp-agent-guard: %s\n", message);
    if (n > 0) (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* The parent of pid from /proc/pid/stat, or -1 (gone, a zombie, unreadable). */
static pid_t live_parent_of(pid_t pid) {
    char path[64], buffer[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) return -1;
    buffer[n] = '\0';
    /* The command name may contain anything, ')' included: parse after the last one. */
    char *tail = strrchr(buffer, ')');
    if (tail == NULL || tail[1] == '\0') return -1;
    char state = 0;
    int parent = 0;
    if (sscanf(tail + 1, " %c %d", &state, &parent) != 2) return -1;
    if (state == 'Z' || state == 'X') return -1;
    return (pid_t)parent;
}

/* Fills pids with the living descendants of the guard; returns how many (at most cap). */
static size_t find_descendants(pid_t *pids, size_t cap) {
    size_t all_cap = 4096, all_count = 0;
    pid_t *all = malloc(all_cap * sizeof *all), *parents = malloc(all_cap * sizeof *parents);
    size_t found = 0;
    DIR *proc = opendir("/proc");
    if (all == NULL || parents == NULL || proc == NULL) goto done;
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        char *end = NULL;
        long pid = strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || pid <= 0 || pid == self_pid) continue;
        pid_t parent = live_parent_of((pid_t)pid);
        if (parent <= 0) continue;
        if (all_count == all_cap) {
            all_cap *= 2;
            pid_t *grown_all = realloc(all, all_cap * sizeof *all);
            if (grown_all != NULL) all = grown_all;
            pid_t *grown_parents = realloc(parents, all_cap * sizeof *parents);
            if (grown_parents != NULL) parents = grown_parents;
            if (grown_all == NULL || grown_parents == NULL) break;
        }
        all[all_count] = (pid_t)pid;
        parents[all_count] = parent;
        ++all_count;
    }
    /* Breadth first from the guard: children, then their children, ... */
    size_t next = 0;
    for (size_t i = 0; i < all_count && found < cap; ++i) {
        if (parents[i] == self_pid) pids[found++] = all[i];
    }
    while (next < found) {
        pid_t parent = pids[next++];
        for (size_t i = 0; i < all_count && found < cap; ++i) {
            if (parents[i] == parent) pids[found++] = all[i];
        }
    }
done:
    if (proc != NULL) closedir(proc);
    free(all);
    free(parents);
    return found;
}

#define MAX_TRACKED 65536
static pid_t descendants[MAX_TRACKED];

/* Sends sig to every living descendant; returns how many there were. */
static size_t signal_descendants(int sig) {
    size_t count = find_descendants(descendants, MAX_TRACKED);
    for (size_t i = 0; i < count; ++i) kill(descendants[i], sig);
    return count;
}

static pid_t agent_pid = -1;
static int agent_status = 0;
static int agent_reaped = 0;

static void reap_children(void) {
    for (;;) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) return;
        if (pid == agent_pid) {
            agent_status = status;
            agent_reaped = 1;
        }
    }
}

/* SIGKILL to every descendant until none is left (a process forking meanwhile is found on
 * the next pass; its orphans come back to the guard, the subreaper). */
static void kill_all_descendants(void) {
    for (int pass = 0; pass < 1000; ++pass) {
        if (signal_descendants(SIGKILL) == 0) break;
        reap_children();
        struct timespec pause = {0, 2 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    reap_children();
}

static int control_fd = -1;

/* One short line to the host; the host may be gone or not reading, so never block. */
static void tell_host(const char *line) { (void)!send(control_fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL); }

static void exit_as_agent(void) {
    tell_host("X\n");
    if (WIFSIGNALED(agent_status)) {
        int sig = WTERMSIG(agent_status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(sig, SIG_DFL);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        kill(self_pid, sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(agent_status) ? WEXITSTATUS(agent_status) : 1);
}

int main(int argc, char **argv) {
    if (argc < 6) {
        say("usage: acp-agent-guard CONTROL_FD GRACE_MS HOST_PID PROGRAM ARGV0 [ARGS...]");
        return 127;
    }
    control_fd = atoi(argv[1]);
    long long grace_ms = atoll(argv[2]);
    pid_t host_pid = (pid_t)atoi(argv[3]);
    const char *program = argv[4];
    self_pid = getpid();

    prctl(PR_SET_CHILD_SUBREAPER, 1);
    sigset_t handled, original;
    sigemptyset(&handled);
    for (size_t i = 0; i < RELAYED_COUNT; ++i) sigaddset(&handled, relayed_signals[i]);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, HOST_DEATH_SIGNAL);
    sigprocmask(SIG_BLOCK, &handled, &original);
    prctl(PR_SET_PDEATHSIG, HOST_DEATH_SIGNAL);
    int host_gone = getppid() != host_pid; /* died before PR_SET_PDEATHSIG took effect */
    int signals = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
    fcntl(control_fd, F_SETFD, FD_CLOEXEC);

    if (!host_gone) {
        agent_pid = fork();
        if (agent_pid == 0) {
            /* Killing the guard kills the agent: it cannot be left running unwatched. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != self_pid) _exit(127);
            setpgid(0, 0);
            sigprocmask(SIG_SETMASK, &original, NULL);
            execv(program, argv + 5);
            char message[300];
            snprintf(message, sizeof message, "cannot run the agent: %s", strerror(errno));
            say(message);
            _exit(127);
        }
        if (agent_pid < 0) {
            say("cannot start the agent: fork failed");
            return 127;
        }
        /* Avoid racing with the agent's own setpgid for the relayed signals. */
        setpgid(agent_pid, agent_pid);
        char started[32];
        snprintf(started, sizeof started, "A%d\n", (int)agent_pid);
        tell_host(started);
    }
    /* The agent's stdout must end when the agent (and its children) close it, so the
     * guard keeps no copy of the pipes; its stderr stays for its own rare messages. */
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, 0);
        dup2(null_fd, 1);
        close(null_fd);
    }

    long long kill_deadline = -1; /* when SIGTERM'd descendants get SIGKILL */
    int terminating = 0;
    int control_open = 1;
    if (host_gone) {
        agent_reaped = 1;
        agent_status = 0;
    }
    for (;;) {
        reap_children();
        if (agent_reaped || terminating) {
            if (!terminating) {
                terminating = 1;
                signal_descendants(SIGTERM);
                kill_deadline = now_ms() + grace_ms;
            }
            if (find_descendants(descendants, MAX_TRACKED) == 0 && agent_reaped) exit_as_agent();
            if (now_ms() >= kill_deadline) {
                kill_all_descendants();
                if (agent_reaped) exit_as_agent();
            }
        }
        struct pollfd watched[2] = {{signals, POLLIN, 0}, {control_open ? control_fd : -1, POLLIN, 0}};
        int timeout = terminating ? SWEEP_POLL_MS : -1;
        if (poll(watched, 2, timeout) < 0 && errno != EINTR) {
            say("poll failed; stopping the agent");
            terminating = 1;
            continue;
        }
        if (watched[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            while (read(signals, &info, sizeof info) == (ssize_t)sizeof info) {
                int sig = (int)info.ssi_signo;
                if (sig == SIGCHLD) continue;
                if (sig == HOST_DEATH_SIGNAL) {
                    if (getppid() != host_pid) terminating = 1;
                    continue;
                }
                if (!agent_reaped && kill(-agent_pid, sig) != 0) kill(agent_pid, sig);
            }
        }
        if (control_open && watched[1].revents) {
            char command[64];
            ssize_t n = read(control_fd, command, sizeof command);
            if (n > 0) {
                if (memchr(command, 'K', (size_t)n) != NULL) kill_all_descendants();
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                control_open = 0;
                if (!terminating) {
                    terminating = 1;
                    signal_descendants(SIGTERM);
                    kill_deadline = now_ms() + grace_ms;
                }
            }
        }
    }
}
