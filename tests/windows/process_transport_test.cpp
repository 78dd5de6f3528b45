// SPDX-License-Identifier: Apache-2.0
// The process transport on Windows (lib/platform/windows/agent_process.cpp): a child
// .exe round-trips NDJSON lines over its pipes, the ladder ends an agent that ignores
// EOF, and what cannot be started is refused with an error naming why.
//
// Wine is not Windows: a job kill reads as exit code 0 and there is no console for
// CTRL_BREAK_EVENT, so these tests check what the host sees (lines, the close report,
// processes gone), never how a killed process ended.
// libuv's header first: it brings winsock2.h, which must come before windows.h.
#include <uv.h>

#include <windows.h>

#include <doctest/doctest.h>

#include <cctype>
#include <chrono>
#include <string>

#include "windows/agent_run.hpp"
#include "windows/wine_paths.hpp"

using acp::Errc;

TEST_CASE("process: a child .exe round-trips NDJSON lines, and EOF on its stdin ends it") {
    AgentRun run;
    acp::SpawnOptions options;
    options.argv = {windows_path(ACP_WINDOWS_CHILD), "echo"};
    REQUIRE(run.spawn(options).ok());
    std::string sent;
    for (int i = 0; i < 1000; ++i) {
        std::string line = "{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"i\":" + std::to_string(i) +
                           ",\"text\":\"caf\xc3\xa9 \\u00e9\"}}\n";
        run.transport().write(line, acp::detail::WriteCause::host);
        sent += line;
    }
    run.transport().close();
    acp::Status closed = run.wait_closed();
    CHECK(closed.code() == Errc::connection_closed);
    CHECK(run.output() == sent);
    REQUIRE(closed.agent_exit() != nullptr);
    CHECK(closed.agent_exit()->exited);
    CHECK(closed.agent_exit()->requested);
    CHECK(closed.agent_exit()->exit_code == 0);
}

TEST_CASE("process: an agent that ignores EOF is ended by the ladder, its grandchild too") {
    AgentRun run;
    acp::SpawnOptions options;
    options.argv = {windows_path(ACP_WINDOWS_CHILD)};
    options.shutdown_grace = std::chrono::milliseconds(100);
    options.terminate_grace = std::chrono::milliseconds(100);
    REQUIRE(run.spawn(options).ok());
    HANDLE agent = ::OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(run.transport().pid()));
    REQUIRE(agent != nullptr);
    run.transport().write("go\n", acp::detail::WriteCause::host);
    // The grandchild's pid, once the agent has started it.
    while (run.output().find('\n') == std::string::npos) {
        if (::WaitForSingleObject(agent, 10) == WAIT_OBJECT_0) break;
        run.run_once_nowait();
    }
    DWORD grandchild_pid = static_cast<DWORD>(std::stoul(run.output()));
    HANDLE grandchild = ::OpenProcess(SYNCHRONIZE, FALSE, grandchild_pid);
    REQUIRE(grandchild != nullptr);
    run.transport().close();
    acp::Status closed = run.wait_closed();
    CHECK(closed.code() == Errc::connection_closed);
    CHECK(closed.message().find("the agent was shut down") != std::string::npos);
    CHECK(::WaitForSingleObject(agent, 20000) == WAIT_OBJECT_0);
    CHECK(::WaitForSingleObject(grandchild, 20000) == WAIT_OBJECT_0);
    ::CloseHandle(agent);
    ::CloseHandle(grandchild);
}

TEST_CASE("process: what cannot be started is refused with an error naming why") {
    AgentRun run;
    acp::SpawnOptions options;
    options.argv = {"definitely-not-an-agent-xyz"};
    acp::Status missing = run.spawn(options);
    CHECK(missing.code() == Errc::spawn_failed);
    CHECK(missing.message().find("'definitely-not-an-agent-xyz' was not found on PATH") != std::string::npos);

    options.argv = {windows_path(ACP_WINDOWS_CHILD), "bad \xff utf-8"};
    acp::Status invalid = run.spawn(options);
    CHECK(invalid.code() == Errc::invalid_argument);
    CHECK(invalid.message().find("not valid UTF-8") != std::string::npos);

    options.argv = {windows_path(ACP_WINDOWS_CHILD), "echo"};
    options.cwd = "Z:\\no\\such\\directory";
    acp::Status bad_cwd = run.spawn(options);
    CHECK(bad_cwd.message().find("working directory 'Z:\\no\\such\\directory'") != std::string::npos);

    options.argv.clear();
    options.cwd.clear();
    CHECK(run.spawn(options).code() == Errc::spawn_failed);
}

TEST_CASE("process: env_unset and env_set match names without regard to case, as Windows does") {
    ::SetEnvironmentVariableW(L"ACP_TEST_UNSET_ME", L"from the host");
    ::SetEnvironmentVariableW(L"ACP_TEST_REPLACED", L"old");
    AgentRun run;
    acp::SpawnOptions options;
    options.argv = {windows_path(ACP_WINDOWS_CHILD), "env"};
    options.env_unset = {"acp_test_unset_me"};
    options.env_set = {{"Acp_Test_Replaced", "new"}, {"ACP_TEST_TEXT", "caf\xc3\xa9 \xe2\x82\xac"}};
    REQUIRE(run.spawn(options).ok());
    CHECK(run.wait_closed().code() == Errc::connection_closed);
    ::SetEnvironmentVariableW(L"ACP_TEST_UNSET_ME", nullptr);
    ::SetEnvironmentVariableW(L"ACP_TEST_REPLACED", nullptr);
    const std::string& env = run.output();
    CHECK(env.find("ACP_TEST_UNSET_ME=") == std::string::npos);
    // One variable, the host's value gone: two spellings of one name would be two entries.
    CHECK(env.find("Acp_Test_Replaced=new\n") != std::string::npos);
    CHECK(env.find("ACP_TEST_REPLACED=") == std::string::npos);
    CHECK(env.find("ACP_TEST_TEXT=caf\xc3\xa9 \xe2\x82\xac\n") != std::string::npos);
    std::string lower = env;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(lower.find("path=") != std::string::npos);  // the rest of the host's environment
}
