// SPDX-License-Identifier: Apache-2.0
// Command lines for Windows (lib/platform/windows/command_line.hpp): the MSVCRT quoting
// checked by its rules and by a real child (acp_windows_args, split by the C runtime),
// and the batch-file line's refusals (the "BatBadBut" class).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/windows/command_line.hpp"
#include "platform/windows/wide_text.hpp"
#include "windows/agent_run.hpp"
#include "windows/wine_paths.hpp"

using acp::Errc;
using acp::detail::batch_command_line;
using acp::detail::exe_command_line;
using acp::detail::is_batch_file;
using acp::detail::quote_argument;

namespace {

// What acp_windows_args printed: its arguments, each followed by a NUL.
std::vector<std::string> split_nul(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\0', start)) != std::string::npos; start = end + 1) {
        out.push_back(text.substr(start, end - start));
    }
    return out;
}

std::vector<std::string> args_received(const std::vector<std::string>& args) {
    AgentRun run;
    acp::SpawnOptions options;
    options.argv = {windows_path(ACP_WINDOWS_ARGS)};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    REQUIRE(run.spawn(options).ok());
    acp::Status closed = run.wait_closed();
    REQUIRE(closed.agent_exit() != nullptr);
    CHECK(closed.agent_exit()->exit_code == 0);
    return split_nul(run.output());
}

// Arguments that break naive quoting: backslash runs before quotes and at the end,
// quotes alone and doubled, white space of every kind, characters cmd.exe would act on
// (harmless to a program started directly), and text beyond ASCII.
const std::vector<std::string> kHostile = {
    "",
    " ",
    "plain",
    "two words",
    "tab\there",
    "\"",
    "\"\"",
    "a\"b",
    "\\",
    "\\\\",
    "a\\",
    "a\\\\",
    "a\\\"b",
    "a\\\\\"b",
    "\\\"",
    "C:\\Program Files\\x\\",
    "C:\\Program Files (x86)\\agent",
    "trailing space ",
    "\"quoted\" and \\\"escaped\\\"",
    "%PATH%",
    "!x!",
    "a&b|c<d>e^f",
    "semi;comma,equals=",
    "line\nfeed",
    "caret^\"",
    "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
};

}  // namespace

TEST_CASE("quoting: arguments without white space or quotes are left as they are") {
    CHECK(quote_argument("plain") == "plain");
    CHECK(quote_argument("C:\\dir\\file") == "C:\\dir\\file");
    CHECK(quote_argument("a\\\\b\\") == "a\\\\b\\");
    CHECK(quote_argument("%x%&|") == "%x%&|");
}

TEST_CASE("quoting: the MSVCRT rules for backslashes and quotes") {
    CHECK(quote_argument("") == "\"\"");
    CHECK(quote_argument("two words") == "\"two words\"");
    CHECK(quote_argument("tab\tx") == "\"tab\tx\"");
    CHECK(quote_argument("a\"b") == "\"a\\\"b\"");
    // A run before a quote: doubled, plus one for the quote.
    CHECK(quote_argument("a\\\"b") == "\"a\\\\\\\"b\"");
    // A run at the end, before the closing quote: doubled.
    CHECK(quote_argument("dir x\\") == "\"dir x\\\\\"");
    // A run elsewhere: as it is.
    CHECK(quote_argument("a\\b c") == "\"a\\b c\"");
}

TEST_CASE("quoting: argv[0] is quoted and never escaped; a quote or NUL in it is refused") {
    auto line = exe_command_line({"C:\\agents\\agent.exe", "x y"});
    REQUIRE(line.ok());
    CHECK(*line == "\"C:\\agents\\agent.exe\" \"x y\"");
    CHECK(exe_command_line({"a\"b.exe"}).status().code() == Errc::invalid_argument);
    CHECK(exe_command_line({std::string("a\0b", 3)}).status().code() == Errc::invalid_argument);
    CHECK(exe_command_line({"a.exe", std::string("x\0y", 3)}).status().code() == Errc::invalid_argument);
    CHECK(exe_command_line({}).status().code() == Errc::invalid_argument);
}

TEST_CASE("quoting: a child split by the C runtime gets every hostile argument back exactly") {
    CHECK(args_received(kHostile) == kHostile);
}

TEST_CASE("batch files: known by their extension, in any case") {
    CHECK(is_batch_file("C:\\x\\npx.cmd"));
    CHECK(is_batch_file("C:\\x\\RUN.BAT"));
    CHECK(is_batch_file("a.Cmd"));
    CHECK_FALSE(is_batch_file("agent.exe"));
    CHECK_FALSE(is_batch_file("cmd"));
    CHECK_FALSE(is_batch_file("x.cmd.exe"));
}

TEST_CASE("batch files: cmd.exe /d /v:off /s /c with every argument quoted") {
    auto line = batch_command_line("C:\\Windows\\system32\\cmd.exe", "C:\\npm\\npx.cmd",
                                   {"npx", "@scope/agent", "two words", "", "C:\\dir\\", "a,b;c=d"});
    REQUIRE(line.ok());
    CHECK(*line ==
          "\"C:\\Windows\\system32\\cmd.exe\" /d /v:off /s /c \"\"C:\\npm\\npx.cmd\" \"@scope/agent\" "
          "\"two words\" \"\" \"C:\\dir\\\\\" \"a,b;c=d\"\"");
}

TEST_CASE("batch files: what cmd.exe could act on is refused, naming the argument and the character") {
    for (std::string bad : {"\"", "%", "!", "\r", "\n", "&", "|", "<", ">", "^"}) {
        for (const std::string& argument : {bad, "a" + bad + "b", "safe " + bad}) {
            CAPTURE(argument);
            auto line = batch_command_line("cmd.exe", "C:\\x.cmd", {"x", "fine", argument});
            REQUIRE_FALSE(line.ok());
            CHECK(line.status().code() == Errc::invalid_argument);
            CHECK(line.status().message().find("argument 2") != std::string::npos);
        }
    }
    auto nul = batch_command_line("cmd.exe", "C:\\x.cmd", {"x", std::string("a\0b", 3)});
    CHECK(nul.status().message().find("a NUL byte") != std::string::npos);
    auto percent = batch_command_line("cmd.exe", "C:\\x.cmd", {"x", "%PATH%"});
    CHECK(percent.status().message().find("'%'") != std::string::npos);
    // The script's own path is checked the same way.
    CHECK(batch_command_line("cmd.exe", "C:\\100%\\x.cmd", {"x"}).status().code() == Errc::invalid_argument);
}

TEST_CASE("wide text: UTF-8 in, UTF-16 out, and invalid UTF-8 refused with a clear error") {
    auto wide = acp::detail::to_wide("\xc3\xa9\xf0\x9f\x98\x80", "the test text");
    REQUIRE(wide.ok());
    CHECK(*wide == std::wstring(L"\u00e9\U0001F600"));
    CHECK(acp::detail::to_utf8(*wide) == "\xc3\xa9\xf0\x9f\x98\x80");
    auto invalid = acp::detail::to_wide("a\xff", "argument 3");
    REQUIRE_FALSE(invalid.ok());
    CHECK(invalid.status().code() == Errc::invalid_argument);
    CHECK(invalid.status().message() == "argument 3 is not valid UTF-8");
    CHECK_FALSE(acp::detail::to_wide("\xed\xa0\x80", "a surrogate").ok());
    CHECK_FALSE(acp::detail::to_wide(std::string("a\0b", 3), "x").ok());
    // An unpaired surrogate from Windows becomes U+FFFD.
    CHECK(acp::detail::to_utf8(std::wstring(1, wchar_t(0xD800))) == "\xef\xbf\xbd");
}
