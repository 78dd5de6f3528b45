// SPDX-License-Identifier: Apache-2.0
// Finding a tool (npx, uvx) on a PATH value the way the system's shell would, for the
// catalogue to say in advance whether an agent can start. Only absolute entries are looked
// in: an empty or relative entry would mean the working directory, never searched for a tool.
//
//   POSIX    entries separated by ':'; a regular file this user may execute
//   Windows  entries separated by ';'; the name with .exe, .cmd, .bat or .com (how npm
//            installs npx is npx.cmd), a regular file
//
//   std::string npx = find_program("npx", path);  // "" when not found
#pragma once

#include <string>

namespace acp::detail {

std::string find_program(const std::string& tool, const std::string& path_value);

// Whether path names a file that can be run as a program (an installed agent binary).
bool is_program_file(const std::string& path);

}  // namespace acp::detail
