// SPDX-License-Identifier: Apache-2.0
// The command line CreateProcessW gets for an agent's argv, in UTF-8 (wide_text.hpp turns
// it into UTF-16; every character that matters here is ASCII, so working on UTF-8 bytes
// is exact).
//
// Windows passes a program one string, and the program splits it itself. Programs built
// with the Microsoft C runtime (and mingw's, and node.exe) split it by the MSVCRT rules,
// which exe_command_line() quotes for. A .cmd or .bat agent (npx.cmd, how npm installs
// commands on Windows) is run by cmd.exe, which parses the line by quite different rules
// before the batch file sees it: batch_command_line() quotes for both, and refuses the
// arguments no quoting makes safe (the "BatBadBut" injection class, CVE-2024-24576 in
// Rust's std) with invalid_argument, before anything runs.
//
//   auto line = is_batch_file(path) ? batch_command_line(cmd_exe, path, argv) : exe_command_line(argv);
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acp/status.hpp"

namespace acp::detail {

// One argument quoted so that the MSVCRT splitter gives back exactly `arg`.
std::string quote_argument(std::string_view arg);

// argv[0] then the arguments, for a program that splits by the MSVCRT rules. argv[0] is
// read by different rules (no escapes: up to the closing quote), so a `"` in it is
// refused; Windows file names cannot hold one anyway.
Result<std::string> exe_command_line(const std::vector<std::string>& argv);

// Whether Windows would run the file through cmd.exe: a .cmd or .bat extension, in any case.
bool is_batch_file(std::string_view path);

// `"cmd_exe" /d /v:off /s /c ""script" "arg1" ..."`: runs the batch file `script` (a full
// path: cmd.exe would search the working directory first) with argv[1...]. Every
// argument is quoted; the ones cmd.exe could act on are refused (see the .cpp for which
// and why).
Result<std::string> batch_command_line(std::string_view cmd_exe, std::string_view script,
                                       const std::vector<std::string>& argv);

}  // namespace acp::detail
