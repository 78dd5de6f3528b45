// SPDX-License-Identifier: Apache-2.0
// The agent's tree in a Job Object (lib/platform/windows/agent_job.hpp): an agent that
// ignores EOF on stdin, and the grandchild it started, both end when the host terminates
// the job or closes it (which is what Windows does when the host dies).
//
// Wine reports a job kill as exit code 0, unlike Windows: the tests check that the
// processes are gone, never how they ended.
#include <windows.h>

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "platform/windows/agent_job.hpp"

namespace {

using acp::detail::AgentJob;

// Generous: a bound for a hang, not a timing expectation.
constexpr DWORD kGoneWithinMs = 20000;

struct StubbornAgent {
    HANDLE process = nullptr;
    HANDLE grandchild = nullptr;
    HANDLE to_stdin = nullptr;
    HANDLE from_stdout = nullptr;

    ~StubbornAgent() {
        for (HANDLE handle : {process, grandchild, to_stdin, from_stdout}) {
            if (handle != nullptr) ::CloseHandle(handle);
        }
    }

    // Starts the agent, puts it in the job, then lets it start its grandchild.
    void start(AgentJob& job) {
        SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
        HANDLE child_stdin = nullptr;
        HANDLE child_stdout = nullptr;
        REQUIRE(::CreatePipe(&child_stdin, &to_stdin, &inherit, 0));
        REQUIRE(::CreatePipe(&from_stdout, &child_stdout, &inherit, 0));
        ::SetHandleInformation(to_stdin, HANDLE_FLAG_INHERIT, 0);
        ::SetHandleInformation(from_stdout, HANDLE_FLAG_INHERIT, 0);
        STARTUPINFOW startup{};
        startup.cb = sizeof startup;
        startup.dwFlags = STARTF_USESTDHANDLES;
        startup.hStdInput = child_stdin;
        startup.hStdOutput = child_stdout;
        startup.hStdError = ::GetStdHandle(STD_ERROR_HANDLE);
        std::wstring command = L"\"" + wide(ACP_WINDOWS_CHILD) + L"\"";
        PROCESS_INFORMATION info{};
        BOOL started =
            ::CreateProcessW(nullptr, &command[0], nullptr, nullptr, TRUE, 0, nullptr, nullptr, &startup, &info);
        ::CloseHandle(child_stdin);
        ::CloseHandle(child_stdout);
        REQUIRE(started);
        ::CloseHandle(info.hThread);
        process = info.hProcess;
        REQUIRE(job.adopt(static_cast<int>(info.dwProcessId)).ok());

        DWORD written = 0;
        REQUIRE(::WriteFile(to_stdin, "go\n", 3, &written, nullptr));
        std::string line;
        char byte = 0;
        DWORD got = 0;
        while (line.size() < 32 && ::ReadFile(from_stdout, &byte, 1, &got, nullptr) && got == 1 && byte != '\n') {
            line.push_back(byte);
        }
        DWORD grandchild_pid = static_cast<DWORD>(std::strtoul(line.c_str(), nullptr, 10));
        REQUIRE(grandchild_pid != 0);
        grandchild = ::OpenProcess(SYNCHRONIZE, FALSE, grandchild_pid);
        REQUIRE(grandchild != nullptr);
        // EOF on stdin: the polite request, which this agent ignores.
        ::CloseHandle(to_stdin);
        to_stdin = nullptr;
    }

    static std::wstring wide(const char* text) {
        int size = ::MultiByteToWideChar(CP_UTF8, 0, text, -1, nullptr, 0);
        std::wstring out(static_cast<std::size_t>(size), L'\0');
        ::MultiByteToWideChar(CP_UTF8, 0, text, -1, &out[0], size);
        out.resize(static_cast<std::size_t>(size) - 1);
        return out;
    }

    bool running(HANDLE handle) const { return ::WaitForSingleObject(handle, 0) == WAIT_TIMEOUT; }
    bool gone(HANDLE handle) const { return ::WaitForSingleObject(handle, kGoneWithinMs) == WAIT_OBJECT_0; }
};

}  // namespace

TEST_CASE("terminating the job ends an agent that ignores EOF, with its grandchild") {
    auto job = AgentJob::create();
    REQUIRE(job.ok());
    StubbornAgent agent;
    agent.start(*job);
    CHECK(agent.running(agent.process));
    CHECK(agent.running(agent.grandchild));
    CHECK(job->running() == 2);

    job->terminate();
    CHECK(agent.gone(agent.process));
    CHECK(agent.gone(agent.grandchild));
    CHECK(job->running() == 0);
}

TEST_CASE("closing the job, as Windows does when the host dies, ends the whole tree") {
    StubbornAgent agent;
    {
        auto job = AgentJob::create();
        REQUIRE(job.ok());
        agent.start(*job);
        CHECK(agent.running(agent.grandchild));
    }
    CHECK(agent.gone(agent.process));
    CHECK(agent.gone(agent.grandchild));
}

TEST_CASE("a process that is not there cannot be adopted") {
    auto job = AgentJob::create();
    REQUIRE(job.ok());
    CHECK_FALSE(job->adopt(0).ok());
}
