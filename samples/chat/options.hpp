// SPDX-License-Identifier: Apache-2.0
// acp-chat's command line: the options, the usage text and the exit codes.
#pragma once

#include <acp/transport_options.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace chat {

// Exit codes (documented in docs/samples.md).
enum ExitCode {
    exit_ok = 0,
    exit_error = 1,          // a command or the session failed otherwise
    exit_usage = 2,          // bad command line
    exit_agent_start = 3,    // the agent could not be started
    exit_agent_exited = 4,   // the agent exited or closed the connection on its own
    exit_protocol = 5,       // the agent speaks no ACP version libacp speaks (1 or 2)
    exit_auth_required = 6,  // the agent requires authentication (see --login)
};

// The command line (--help prints it with kCommands).
extern const char* const kUsage;
// The commands typed at the prompt (/help and --help print them).
extern const char* const kCommands;
// The /help line of an unstable command ("/fork  ..."), given its name.
const char* unstable_help(const std::string& name);

struct Options {
    std::vector<std::string> agent;     // the words after the options
    bool agent_is_command = false;      // they came after "--": never a name
    std::string agent_name;             // --agent NAME, or the name picked (agents.hpp)
    std::string registry;               // --registry FILE|URL: the ACP registry to read
    long registry_max_age = 24 * 3600;  // --registry-max-age SECONDS: a fetched one's cache
    acp::SpawnOptions spawn;            // what starts the agent (pick_agent)
    std::string connect;                // --connect URL: a remote agent instead of a command
    std::vector<std::string> headers;   // --header "Name: value", sent with every request
    std::string ca_file;                // --ca-file PEM
    std::string cwd;
    std::string login;
    std::string log_file;
    std::string dump_file;
    std::string resume;            // a session to resume at start instead of creating one
    std::size_t resume_turns = 3;  // --resume-turns N: the turns of a resumed history shown
    bool color = true;
    bool plain = false;              // agent text exactly as sent (sanitised): no colours, no formatting
    bool unstable = false;           // --unstable: the agent's unstable ACP surface (/fork, /title, ...)
    bool markdown = false;           // --markdown: rendered also when stdout is not a terminal
    std::size_t max_line_bytes = 0;  // 0: libacp's default
};

// Parses argv (getopt_long) into options; prints the help or the version and exits on
// --help and --version. False on a bad command line (the reason is on stderr).
bool parse(int argc, char** argv, Options& options);

}  // namespace chat
