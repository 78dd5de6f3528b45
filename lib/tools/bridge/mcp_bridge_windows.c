/* SPDX-License-Identifier: Apache-2.0 */
/* acp-mcp-bridge.exe: the stdio MCP server an agent spawns for tools its host offers, on
 * Windows (lib/tools/bridge_carrier.hpp; mcp_bridge.c is the POSIX one).
 *
 *   acp-mcp-bridge.exe \\.\pipe\acp-mcp-<hex>     with ACP_MCP_BRIDGE_TOKEN=<token> set
 *
 * Connects to the host's named pipe, sends the token (a secret: never printed) as its first
 * line, then relays bytes stdin -> pipe and pipe -> stdout on two threads, which carry MCP's
 * newline-delimited JSON-RPC messages both ways. It exits when either side closes: the agent
 * closing stdin or stdout, or the host closing the pipe (refused, or closed with its
 * session). The pipe is opened for overlapped I/O: on a synchronous handle a read blocked
 * on one thread would hold up a write from the other. The host checks everything it
 * receives; this only moves bytes. */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_BYTES 65536

static HANDLE pipe_handle;

static int fail(const char *what) {
    fprintf(stderr, "acp-mcp-bridge: %s: error %lu\n", what, (unsigned long)GetLastError());
    return 1;
}

/* One read or write on the pipe, waited for: the bytes moved, 0 at its end or on error. */
static DWORD pipe_io(char *data, DWORD size, BOOL write) {
    OVERLAPPED overlapped;
    DWORD moved = 0;
    BOOL done;
    memset(&overlapped, 0, sizeof overlapped);
    overlapped.hEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
    if (overlapped.hEvent == NULL) return 0;
    done = write ? WriteFile(pipe_handle, data, size, NULL, &overlapped)
                 : ReadFile(pipe_handle, data, size, NULL, &overlapped);
    if (done || GetLastError() == ERROR_IO_PENDING) {
        if (!GetOverlappedResult(pipe_handle, &overlapped, &moved, TRUE)) moved = 0;
    }
    CloseHandle(overlapped.hEvent);
    return moved;
}

static int pipe_write_all(const char *data, DWORD size) {
    while (size > 0) {
        DWORD n = pipe_io((char *)data, size, TRUE);
        if (n == 0) return -1;
        data += n;
        size -= n;
    }
    return 0;
}

/* stdin -> pipe, until the agent closes stdin or the host the pipe. */
static DWORD WINAPI relay_up(LPVOID unused) {
    HANDLE input = GetStdHandle(STD_INPUT_HANDLE);
    char *buffer = malloc(BUFFER_BYTES);
    DWORD n;
    (void)unused;
    if (buffer == NULL) return 1;
    while (ReadFile(input, buffer, BUFFER_BYTES, &n, NULL) && n > 0) {
        if (pipe_write_all(buffer, n) != 0) break;
    }
    return 0;
}

/* pipe -> stdout, until the host closes the pipe or the agent stdout. */
static DWORD WINAPI relay_down(LPVOID unused) {
    HANDLE output = GetStdHandle(STD_OUTPUT_HANDLE);
    char *buffer = malloc(BUFFER_BYTES);
    DWORD n;
    (void)unused;
    if (buffer == NULL) return 1;
    while ((n = pipe_io(buffer, BUFFER_BYTES, FALSE)) > 0) {
        DWORD at = 0;
        while (at < n) {
            DWORD written = 0;
            if (!WriteFile(output, buffer + at, n - at, &written, NULL) || written == 0) return 0;
            at += written;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *token = getenv("ACP_MCP_BRIDGE_TOKEN");
    HANDLE threads[2];
    int attempt;

    if (argc != 2 || token == NULL) {
        fprintf(stderr,
                "usage: ACP_MCP_BRIDGE_TOKEN=<token> acp-mcp-bridge <pipe>\n"
                "(started by an ACP agent for the tools its client offers)\n");
        return 2;
    }
    /* Every instance busy (several bridges starting at once): wait for one, a few times. */
    for (attempt = 0;; ++attempt) {
        pipe_handle =
            /* Identification only: whoever serves that name may not act as this user. */
            CreateFileA(argv[1], GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
                        FILE_FLAG_OVERLAPPED | SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, NULL);
        if (pipe_handle != INVALID_HANDLE_VALUE) break;
        if (GetLastError() != ERROR_PIPE_BUSY || attempt == 10 || !WaitNamedPipeA(argv[1], 1000)) {
            return fail("cannot reach the client");
        }
    }
    if (pipe_write_all(token, (DWORD)strlen(token)) != 0 || pipe_write_all("\n", 1) != 0) {
        return fail("cannot reach the client");
    }
    threads[0] = CreateThread(NULL, 0, relay_up, NULL, 0, NULL);
    threads[1] = CreateThread(NULL, 0, relay_down, NULL, 0, NULL);
    if (threads[0] == NULL || threads[1] == NULL) return fail("cannot start");
    /* Either direction ending ends the bridge; the other thread may be blocked in a read. */
    WaitForMultipleObjects(2, threads, FALSE, INFINITE);
    ExitProcess(0);
}
