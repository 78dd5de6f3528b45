// SPDX-License-Identifier: Apache-2.0
// acp-chat's agents by name (docs/agents.md): the catalogue it reads (--registry or the
// bundled snapshot, then the user's agents.json) and the agent it starts: --agent NAME, a
// single known name as the command, the user's default, else the demo agent.
#pragma once

#include <acp/catalogue.hpp>

#include <string>
#include <vector>

#include "options.hpp"

namespace chat {

// The registry (--registry FILE, else the bundled snapshot) and the user's agents file.
// False when --registry or the agents file cannot be read (the reason is on stderr).
bool load_catalogue(const Options& options, acp::Catalogue& catalogue);

// Fills options.spawn (and options.agent_name) from the command line, the catalogue and
// the default. Returns exit_ok, or the exit code after saying why on stderr: exit_usage
// for a name the catalogue does not know, exit_agent_start when it cannot run here.
int pick_agent(Options& options, const acp::Catalogue& catalogue);

// /agents: one line per agent, registry text sanitised, the default and current marked.
std::vector<std::string> agent_lines(const acp::Catalogue& catalogue, const std::string& current);

}  // namespace chat
