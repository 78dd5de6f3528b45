/* SPDX-License-Identifier: Apache-2.0 */
/* acp-mcp-bridge: the stdio MCP server an agent spawns for tools its host offers
 * (lib/tools/bridge_carrier.hpp).
 *
 *   acp-mcp-bridge SOCKET        with ACP_MCP_BRIDGE_TOKEN=<token> in the environment
 *
 * Connects to the host's Unix socket, sends the token (a secret: never printed) as its
 * first line, then relays bytes stdin -> socket and socket -> stdout, which carry MCP's
 * newline-delimited JSON-RPC messages both ways. It exits when either side closes: the
 * agent closing stdin or stdout, or the host closing the socket (refused, or closed with
 * its session). Plain C and poll(2), no libraries: it starts in about a millisecond and
 * holds two small buffers. The host checks everything it receives; this only moves bytes. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define BUFFER_BYTES 65536

/* Bytes read from one side and not yet written to the other. */
struct Pipe {
    char data[BUFFER_BYTES];
    size_t start;
    size_t end;
};

static int fail(const char *what) {
    fprintf(stderr, "acp-mcp-bridge: %s: %s\n", what, strerror(errno));
    return 1;
}

static int write_all(int fd, const char *data, size_t size) {
    while (size > 0) {
        ssize_t n = send(fd, data, size, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Reads what is there into an empty pipe buffer: 1 read, 0 end of input, -1 error. */
static int fill(int fd, struct Pipe *pipe) {
    ssize_t n;
    do {
        n = read(fd, pipe->data, sizeof pipe->data);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return n == 0 ? 0 : -1;
    pipe->start = 0;
    pipe->end = (size_t)n;
    return 1;
}

/* Writes part of a pipe buffer to a descriptor poll said is writable. At most PIPE_BUF
 * bytes to a pipe, so that a blocking write cannot wait for the reader. */
static int drain(int fd, struct Pipe *pipe, int is_socket) {
    size_t size = pipe->end - pipe->start;
    ssize_t n;
    if (!is_socket && size > 4096) size = 4096;
    do {
        n = is_socket ? send(fd, pipe->data + pipe->start, size, MSG_DONTWAIT)
                      : write(fd, pipe->data + pipe->start, size);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (n <= 0) return -1;
    pipe->start += (size_t)n;
    if (pipe->start == pipe->end) pipe->start = pipe->end = 0;
    return 0;
}

int main(int argc, char **argv) {
    const char *token = getenv("ACP_MCP_BRIDGE_TOKEN");
    struct sockaddr_un address;
    struct Pipe *up;   /* stdin -> socket */
    struct Pipe *down; /* socket -> stdout */
    int sock;

    if (argc != 2 || token == NULL || strlen(argv[1]) >= sizeof address.sun_path) {
        fprintf(stderr,
                "usage: ACP_MCP_BRIDGE_TOKEN=<token> acp-mcp-bridge <socket>\n"
                "(started by an ACP agent for the tools its client offers)\n");
        return 2;
    }
    /* A closed peer then fails a write with EPIPE (no MSG_NOSIGNAL on macOS). */
    signal(SIGPIPE, SIG_IGN);
    up = calloc(1, sizeof *up);
    down = calloc(1, sizeof *down);
    if (up == NULL || down == NULL) return fail("memory");

    /* Not SOCK_CLOEXEC, which macOS lacks. */
    sock = socket(AF_UNIX, SOCK_STREAM, 0);
    if (sock < 0 || fcntl(sock, F_SETFD, FD_CLOEXEC) != 0) return fail("socket");
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    strcpy(address.sun_path, argv[1]);
    if (connect(sock, (struct sockaddr *)&address, sizeof address) != 0) return fail("cannot reach the client");
    if (write_all(sock, token, strlen(token)) != 0 || write_all(sock, "\n", 1) != 0) {
        return fail("cannot reach the client");
    }

    for (;;) {
        struct pollfd fds[3];
        int result;
        /* Each direction either waits for input (its buffer empty) or for room to write. */
        fds[0].fd = up->start == up->end ? STDIN_FILENO : -1;
        fds[0].events = POLLIN;
        fds[1].fd = sock;
        fds[1].events = (short)((down->start == down->end ? POLLIN : 0) | (up->start != up->end ? POLLOUT : 0));
        fds[2].fd = STDOUT_FILENO;
        /* Always watched: the agent closing its end of stdout ends the bridge. */
        fds[2].events = down->start != down->end ? POLLOUT : 0;
        do {
            result = poll(fds, 3, -1);
        } while (result < 0 && errno == EINTR);
        if (result < 0) return fail("poll");

        if (fds[2].revents & (POLLERR | POLLHUP | POLLNVAL)) return 0;
        if (fds[2].revents & POLLOUT) {
            if (drain(STDOUT_FILENO, down, 0) != 0) return 0;
        }
        if (fds[1].revents & POLLOUT) {
            if (drain(sock, up, 1) != 0) return 0;
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (fill(STDIN_FILENO, up) <= 0) {
                /* The agent is done: what it sent last still goes to the client. */
                if (up->start != up->end) write_all(sock, up->data + up->start, up->end - up->start);
                return 0;
            }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            /* With output still waiting, only a hang-up or an error is reported: the end. */
            if (down->start != down->end || fill(sock, down) <= 0) return 0;
        }
        if (fds[0].revents & POLLNVAL || fds[1].revents & POLLNVAL) return 1;
    }
}
