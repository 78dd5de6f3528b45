// SPDX-License-Identifier: Apache-2.0
// A stubborn agent for the Job Object tests (agent_job_test.cpp).
//
//   acp_windows_child          waits for a line on stdin, starts `acp_windows_child sleep`,
//                              prints that grandchild's pid, then ignores EOF and stays
//   acp_windows_child sleep    sleeps until killed
//   acp_windows_child echo     copies stdin to stdout byte for byte until EOF, then exits 0
//   acp_windows_child env      prints its whole environment block, one variable a line, in
//                              UTF-8 (NAME=VALUE), and exits 0
#include <windows.h>

#include <fcntl.h>
#include <io.h>

#include <cstdio>
#include <cstring>
#include <cwchar>

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "sleep") == 0) {
        ::Sleep(INFINITE);
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "echo") == 0) {
        // Binary: the C runtime would turn "\n" into "\r\n" on the way out.
        ::_setmode(::_fileno(stdin), _O_BINARY);
        ::_setmode(::_fileno(stdout), _O_BINARY);
        char buffer[4096];
        std::size_t got;
        while ((got = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
            std::fwrite(buffer, 1, got, stdout);
            std::fflush(stdout);
        }
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "env") == 0) {
        ::_setmode(::_fileno(stdout), _O_BINARY);
        wchar_t* block = ::GetEnvironmentStringsW();
        for (const wchar_t* entry = block; *entry != L'\0'; entry += std::wcslen(entry) + 1) {
            char utf8[32768];
            const int size = ::WideCharToMultiByte(CP_UTF8, 0, entry, -1, utf8, sizeof utf8, nullptr, nullptr);
            if (size > 0) std::printf("%s\n", utf8);
        }
        ::FreeEnvironmentStringsW(block);
        return 0;
    }
    // Only after the go-ahead: the test puts this process in its job first, so the
    // grandchild is born inside it.
    char line[16];
    if (std::fgets(line, sizeof line, stdin) == nullptr) return 2;
    wchar_t self[MAX_PATH];
    if (::GetModuleFileNameW(nullptr, self, MAX_PATH) == 0) return 3;
    wchar_t command[MAX_PATH + 16];
    std::swprintf(command, MAX_PATH + 16, L"\"%ls\" sleep", self);
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    PROCESS_INFORMATION info{};
    if (!::CreateProcessW(nullptr, command, nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup, &info)) return 4;
    std::printf("%lu\n", static_cast<unsigned long>(info.dwProcessId));
    std::fflush(stdout);
    while (std::fgets(line, sizeof line, stdin) != nullptr) {
    }
    ::Sleep(INFINITE);  // EOF on stdin, and still here
    return 0;
}
