/* SPDX-License-Identifier: Apache-2.0 */
/* The Windows demo agent on real pipes (a unix pipe under wine is not one libuv can open):
 * started as a child .exe, it answers initialize on its standard handles and exits 0 when
 * its stdin closes. Run as: acp_windows_demo_agent_host PATH-TO-acp-demo-agent.exe */
#include <windows.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what) {
    fprintf(stderr, "demo agent host: %s (Windows error %lu)\n", what, (unsigned long)GetLastError());
    return 1;
}

int main(int argc, char **argv) {
    static const char request[] =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
        "\"params\":{\"protocolVersion\":2,\"info\":{\"name\":\"wine\",\"version\":\"1\"}}}\n";
    SECURITY_ATTRIBUTES inherit = {sizeof(SECURITY_ATTRIBUTES), NULL, TRUE};
    HANDLE child_stdin, to_stdin, from_stdout, child_stdout;
    STARTUPINFOA startup;
    PROCESS_INFORMATION info;
    char command[MAX_PATH + 8];
    char line[4096];
    size_t used = 0;
    DWORD count = 0, code = 1;

    if (argc != 2) return fail("usage: acp_windows_demo_agent_host AGENT.exe");
    if (!CreatePipe(&child_stdin, &to_stdin, &inherit, 0) || !CreatePipe(&from_stdout, &child_stdout, &inherit, 0))
        return fail("CreatePipe");
    SetHandleInformation(to_stdin, HANDLE_FLAG_INHERIT, 0);
    SetHandleInformation(from_stdout, HANDLE_FLAG_INHERIT, 0);
    memset(&startup, 0, sizeof startup);
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = child_stdin;
    startup.hStdOutput = child_stdout;
    startup.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    snprintf(command, sizeof command, "\"%s\"", argv[1]);
    if (!CreateProcessA(NULL, command, NULL, NULL, TRUE, 0, NULL, NULL, &startup, &info)) return fail("CreateProcess");
    CloseHandle(child_stdin);
    CloseHandle(child_stdout);
    CloseHandle(info.hThread);

    if (!WriteFile(to_stdin, request, (DWORD)strlen(request), &count, NULL)) return fail("WriteFile");
    while (used + 1 < sizeof line && ReadFile(from_stdout, line + used, 1, &count, NULL) && count == 1) {
        if (line[used] == '\n') break;
        ++used;
    }
    line[used] = '\0';
    printf("%s\n", line);
    if (strstr(line, "\"id\":1,\"result\":{\"protocolVersion\":2,\"info\":{\"name\":\"acp-demo-agent\"") == NULL) {
        fprintf(stderr, "demo agent host: no initialize answer\n");
        return 1;
    }
    /* EOF on stdin: the agent ends by itself (a bound for a hang, not a timing expectation). */
    CloseHandle(to_stdin);
    if (WaitForSingleObject(info.hProcess, 20000) != WAIT_OBJECT_0) return fail("the agent did not exit on EOF");
    GetExitCodeProcess(info.hProcess, &code);
    CloseHandle(info.hProcess);
    CloseHandle(from_stdout);
    if (code != 0) fprintf(stderr, "demo agent host: exit code %lu\n", (unsigned long)code);
    return code == 0 ? 0 : 1;
}
