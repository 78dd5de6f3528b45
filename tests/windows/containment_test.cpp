// SPDX-License-Identifier: Apache-2.0
// No agent outlives its host on Windows (docs/untrusted-agent.md): a host (acp_windows_host)
// starts a stubborn agent through libacp, the agent starts a grandchild and ignores EOF,
// and the host is killed with TerminateProcess, which runs none of its code. The agent's
// Job Object goes with the host's last handle to it, and with it the whole tree.
//
// Checked by process handles the test holds (signalled once a process is gone), never by
// exit codes: wine reports a job kill as exit code 0.
#include <windows.h>

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "platform/windows/wide_text.hpp"
#include "windows/wine_paths.hpp"

namespace {

// Generous: a bound for a hang, not a timing expectation.
constexpr DWORD kGoneWithinMs = 20000;

}  // namespace

TEST_CASE("containment: the host killed, nothing of the agent's tree is left") {
    SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
    HANDLE read_end = nullptr;
    HANDLE write_end = nullptr;
    REQUIRE(::CreatePipe(&read_end, &write_end, &inherit, 0));
    ::SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
    STARTUPINFOW startup{};
    startup.cb = sizeof startup;
    startup.dwFlags = STARTF_USESTDHANDLES;
    startup.hStdInput = ::GetStdHandle(STD_INPUT_HANDLE);
    startup.hStdOutput = write_end;
    startup.hStdError = ::GetStdHandle(STD_ERROR_HANDLE);
    auto command = acp::detail::to_wide(
        "\"" + windows_path(ACP_WINDOWS_HOST) + "\" \"" + windows_path(ACP_WINDOWS_CHILD) + "\"", "the command");
    REQUIRE(command.ok());
    PROCESS_INFORMATION host{};
    BOOL started =
        ::CreateProcessW(nullptr, &(*command)[0], nullptr, nullptr, TRUE, 0, nullptr, nullptr, &startup, &host);
    ::CloseHandle(write_end);
    REQUIRE(started);
    ::CloseHandle(host.hThread);

    // "<agent pid> <grandchild pid>" once the tree is complete.
    std::string line;
    char next = 0;
    DWORD got = 0;
    while (line.size() < 64 && ::ReadFile(read_end, &next, 1, &got, nullptr) && got == 1 && next != '\n') {
        line.push_back(next);
    }
    unsigned long agent_pid = 0;
    unsigned long grandchild_pid = 0;
    REQUIRE(std::sscanf(line.c_str(), "%lu %lu", &agent_pid, &grandchild_pid) == 2);
    HANDLE agent = ::OpenProcess(SYNCHRONIZE, FALSE, agent_pid);
    HANDLE grandchild = ::OpenProcess(SYNCHRONIZE, FALSE, grandchild_pid);
    REQUIRE(agent != nullptr);
    REQUIRE(grandchild != nullptr);
    CHECK(::WaitForSingleObject(agent, 0) == WAIT_TIMEOUT);
    CHECK(::WaitForSingleObject(grandchild, 0) == WAIT_TIMEOUT);

    REQUIRE(::TerminateProcess(host.hProcess, 9));
    CHECK(::WaitForSingleObject(host.hProcess, kGoneWithinMs) == WAIT_OBJECT_0);
    CHECK(::WaitForSingleObject(agent, kGoneWithinMs) == WAIT_OBJECT_0);
    CHECK(::WaitForSingleObject(grandchild, kGoneWithinMs) == WAIT_OBJECT_0);
    for (HANDLE handle : {host.hProcess, agent, grandchild, read_end}) ::CloseHandle(handle);
}
