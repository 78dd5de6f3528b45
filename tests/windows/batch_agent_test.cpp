// SPDX-License-Identifier: Apache-2.0
// A .cmd agent, as npm installs commands on Windows (npx.cmd): started through cmd.exe
// with its arguments quoted so they arrive intact, and the arguments cmd.exe could act on
// (the "BatBadBut" class) refused before anything runs.
//
// The script first leaves a mark that it ran, then hands its arguments (%*, as npm's
// scripts do) to acp_windows_args, which prints them as the C runtime split them.
// libuv's header first: it brings winsock2.h, which must come before windows.h.
#include <uv.h>

#include <windows.h>

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "platform/windows/wide_text.hpp"
#include "windows/agent_run.hpp"
#include "windows/wine_paths.hpp"

using acp::Errc;

namespace {

struct BatchAgent {
    std::string dir;
    std::string script;
    std::string mark;

    BatchAgent() {
        wchar_t temp[MAX_PATH];
        DWORD size = ::GetTempPathW(MAX_PATH, temp);
        REQUIRE(size > 0);
        // A space and a parenthesis in the folder, as in "Program Files (x86)".
        dir = acp::detail::to_utf8(std::wstring(temp, size)) + "acp agent (" + std::to_string(::GetCurrentProcessId()) +
              ")";
        auto wide_dir = acp::detail::to_wide(dir, "the folder");
        REQUIRE(wide_dir.ok());
        ::CreateDirectoryW(wide_dir->c_str(), nullptr);
        script = dir + "\\agent.cmd";
        mark = dir + "\\ran.txt";
        std::ofstream out(script, std::ios::binary);
        out << "@echo off\r\necho ran> \"%~dp0ran.txt\"\r\n\"" << windows_path(ACP_WINDOWS_ARGS) << "\" %*\r\n";
    }
    ~BatchAgent() {
        ::DeleteFileA(mark.c_str());
        ::DeleteFileA(script.c_str());
        ::RemoveDirectoryA(dir.c_str());
    }

    bool ran() const { return ::GetFileAttributesA(mark.c_str()) != INVALID_FILE_ATTRIBUTES; }
};

std::vector<std::string> split_nul(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\0', start)) != std::string::npos; start = end + 1) {
        out.push_back(text.substr(start, end - start));
    }
    return out;
}

}  // namespace

TEST_CASE("batch agent: safe arguments arrive intact through cmd.exe") {
    BatchAgent agent;
    const std::vector<std::string> safe = {
        "plain",   "two words",
        "",        "C:\\Program Files (x86)\\dir\\",
        "a,b;c=d", "tab\there",
        "(paren)", "it's `ok`",
        "\\",      "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
    };
    AgentRun run;
    acp::SpawnOptions options;
    options.argv = {agent.script};
    options.argv.insert(options.argv.end(), safe.begin(), safe.end());
    REQUIRE(run.spawn(options).ok());
    acp::Status closed = run.wait_closed();
    REQUIRE(closed.agent_exit() != nullptr);
    CHECK(agent.ran());
    CHECK(split_nul(run.output()) == safe);
}

TEST_CASE("batch agent: an argument cmd.exe could act on is refused before anything runs") {
    BatchAgent agent;
    for (std::string bad :
         {"\"", "%PATH%", "!x!", "a&calc", "a|b", "<in", ">out", "^", "a\nb", "a\rb", "\" & echo injected & \""}) {
        CAPTURE(bad);
        AgentRun run;
        acp::SpawnOptions options;
        options.argv = {agent.script, "fine", bad};
        acp::Status status = run.spawn(options);
        CHECK(status.code() == Errc::invalid_argument);
        CHECK(status.message().find("argument 2") != std::string::npos);
        CHECK(status.message().find("cmd.exe") != std::string::npos);
    }
    CHECK_FALSE(agent.ran());
}
