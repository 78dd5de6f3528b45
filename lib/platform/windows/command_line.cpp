// SPDX-License-Identifier: Apache-2.0
#include "platform/windows/command_line.hpp"

#include <cctype>

namespace acp::detail {

namespace {

// The MSVCRT splitter ends an argument at a space or tab outside quotes; an empty
// argument needs quotes to exist at all. \n and \v are quoted too (some splitters treat
// them as white space).
bool needs_quotes(std::string_view arg) {
    return arg.empty() || arg.find_first_of(" \t\n\v\"") != std::string_view::npos;
}

// Inside quotes, for the MSVCRT rules: backslashes are literal except in a run that ends
// at a `"`, where 2n backslashes give n and 2n+1 give n and a literal quote. So a run
// before an embedded quote is doubled and one more escapes the quote; a run before the
// closing quote is doubled, so it does not escape it.
void append_quoted(std::string_view arg, std::string& out) {
    out.push_back('"');
    std::size_t backslashes = 0;
    for (char c : arg) {
        if (c == '\\') {
            ++backslashes;
            continue;
        }
        if (c == '"') {
            out.append(backslashes * 2 + 1, '\\');
        } else {
            out.append(backslashes, '\\');
        }
        backslashes = 0;
        out.push_back(c);
    }
    out.append(backslashes * 2, '\\');
    out.push_back('"');
}

Status check_no_nul(std::string_view arg, std::size_t index) {
    if (arg.find('\0') == std::string_view::npos) return Status();
    return Status(Errc::invalid_argument,
                  "cannot start agent: argument " + std::to_string(index) + " contains a NUL byte");
}

// What cmd.exe could act on in a batch file's arguments, quoted or not:
//   "        ends the quoting: whatever follows is cmd.exe's to parse (the BatBadBut hole;
//            `\"` is an MSVCRT escape, cmd.exe knows nothing of it)
//   %        variables are expanded inside quotes too, and no escape works there
//   !        the same with delayed expansion: off for this cmd.exe (/v:off), but a batch
//            file may turn it on (setlocal enabledelayedexpansion) and expand %1 again
//   \r \n    a line feed ends the command inside quotes; a carriage return is dropped
//   NUL      cannot be passed at all
// and what is harmless inside the quotes this code adds but becomes a command separator,
// a pipe, a redirection or an escape as soon as a batch file takes the quotes off (%~1,
// which is common) and uses the argument on a command line of its own:
//   & | < > ^
// Refused rather than escaped: an escape right for cmd.exe's line is wrong for the batch
// file's own lines, and no agent needs these characters in its startup arguments (a
// prompt or a path with them goes in a file or the session, not on the command line).
// Kept: ( and ), which ordinary paths hold ("C:\Program Files (x86)") and which matter
// only inside a parenthesised block of a batch file that also took the quotes off; and
// space, tab, comma, semicolon and equals, which split batch arguments only outside
// quotes, and every argument is quoted.
constexpr std::string_view kBatchUnsafe = "\"%!\r\n&|<>^";

std::string describe(char c) {
    switch (c) {
        case '\r': return "a carriage return";
        case '\n': return "a line feed";
        case '\0': return "a NUL byte";
        default: return std::string("'") + c + "'";
    }
}

Status check_batch_safe(std::string_view text, const std::string& what) {
    auto at = text.find_first_of(std::string(kBatchUnsafe) + std::string(1, '\0'));
    if (at == std::string_view::npos) return Status();
    return Status(Errc::invalid_argument, "cannot start agent: " + what + " contains " + describe(text[at]) +
                                              ", which cmd.exe could act on; a .cmd or .bat agent cannot be "
                                              "given it safely (start the program the script runs instead)");
}

}  // namespace

std::string quote_argument(std::string_view arg) {
    if (!needs_quotes(arg)) return std::string(arg);
    std::string out;
    out.reserve(arg.size() + 2);
    append_quoted(arg, out);
    return out;
}

Result<std::string> exe_command_line(const std::vector<std::string>& argv) {
    if (argv.empty()) return Status(Errc::invalid_argument, "cannot start agent: argv is empty");
    const std::string& program = argv[0];
    if (program.find('"') != std::string::npos) {
        return Status(Errc::invalid_argument, "cannot start agent: the program name contains '\"'");
    }
    if (Status status = check_no_nul(program, 0); !status) return status;
    // argv[0] is read up to the next white space, or inside quotes up to the next quote,
    // with backslashes literal: always quoted, never escaped.
    std::string line = "\"" + program + "\"";
    for (std::size_t i = 1; i < argv.size(); ++i) {
        if (Status status = check_no_nul(argv[i], i); !status) return status;
        line.push_back(' ');
        line += quote_argument(argv[i]);
    }
    return line;
}

bool is_batch_file(std::string_view path) {
    if (path.size() < 4) return false;
    std::string extension;
    for (char c : path.substr(path.size() - 4)) {
        extension.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
    return extension == ".cmd" || extension == ".bat";
}

Result<std::string> batch_command_line(std::string_view cmd_exe, std::string_view script,
                                       const std::vector<std::string>& argv) {
    if (Status status = check_batch_safe(script, "the script's path '" + std::string(script) + "'"); !status) {
        return status;
    }
    // /d: no AutoRun commands from the registry; /v:off: no delayed expansion of `!`;
    // /s /c: cmd.exe takes off the first and the last quote of what follows and runs the
    // rest as it is, so the line needs no quoting of its own beyond the outer pair.
    std::string inner;
    append_quoted(script, inner);
    for (std::size_t i = 1; i < argv.size(); ++i) {
        if (Status status = check_batch_safe(argv[i], "argument " + std::to_string(i)); !status) return status;
        inner.push_back(' ');
        // Always quoted: spaces, commas, semicolons and equals signs split a batch file's
        // arguments outside quotes. With no `"` in it, only a trailing run of backslashes
        // needs doubling, for the MSVCRT splitter of whatever program the script runs with %*.
        append_quoted(argv[i], inner);
    }
    return "\"" + std::string(cmd_exe) + "\" /d /v:off /s /c \"" + inner + "\"";
}

}  // namespace acp::detail
