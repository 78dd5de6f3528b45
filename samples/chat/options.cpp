// SPDX-License-Identifier: Apache-2.0
#include "options.hpp"

#include <getopt.h>
#include <acp/version.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace chat {

const char* const kUsage =
    "usage: acp-chat [options] [AGENT | [--] AGENT COMMAND...]\n"
    "       acp-chat [options] --connect URL\n"
    "Chat with an ACP agent: one named in ~/.config/acp/agents.json or the ACP registry\n"
    "(a single word; after -- it is always a command), or a command. Without either, the\n"
    "agents file's \"default\", else the bundled demo agent.\n"
    "\n"
    "options:\n"
    "  --agent NAME       the agent of that name in the agents file or the registry\n"
    "  --registry FILE|URL  read the ACP registry (registry.json) from FILE, or fetch it from\n"
    "                     an https URL, instead of the snapshot built into libacp. A fetched\n"
    "                     one is cached (~/.cache/acp/registry.json); when the fetch fails the\n"
    "                     cache, else the snapshot, is used (said on stderr)\n"
    "  --registry-max-age SECONDS  use the cached registry while it is younger (default 86400)\n"
    "  --connect URL      an agent on the network: ws:// or wss:// (WebSocket), http:// or\n"
    "                     https:// (Streamable HTTP)\n"
    "  --header 'N: V'    with --connect: send this header with every request (repeatable;\n"
    "                     e.g. 'Authorization: Bearer ...'; values are never shown or logged)\n"
    "  --ca-file FILE     for --connect, a --registry URL and registry agents' archives: trust the\n"
    "                     CAs in this PEM file, not the system's\n"
    "  --cwd DIR          working directory of new sessions (default: the current directory)\n"
    "  --resume SESSION   resume this session instead of starting one; its last turns are shown\n"
    "  --resume-turns N   the turns of a resumed session's history shown (default 3; /history\n"
    "                     shows them all)\n"
    "  --login METHOD     log in with this auth method if the agent asks for authentication\n"
    "  --log FILE         write the protocol traffic, the agent's stderr and libacp's warnings\n"
    "                     to FILE (one JSON record per line)\n"
    "  --dump-state FILE  at exit, write every session's model as canonical JSON to FILE\n"
    "  --no-color         no colours (also when NO_COLOR is set or stdout is not a terminal)\n"
    "  --plain            the agent's text as sent (made safe), no colours or formatting\n"
    "  --markdown         render the agent's Markdown also when stdout is not a terminal\n"
    "  --unstable         use what the agent offers of ACP's unstable surface: /fork, /title,\n"
    "                     /archive, /unarchive, /status, /providers (it may change)\n"
    "  --max-line-bytes N  the longest message accepted from the agent (default 32 MiB);\n"
    "                     a longer one is dropped and the screen says so\n"
    "  --version          acp-chat's and libacp's version\n"
    "  --help             this text\n"
    "\n"
    "On a terminal a permission question takes one key (1-9, y, n; Ctrl-C cancels the turn);\n"
    "with stdin not a terminal, acp-chat reads one prompt, command or answer per line.\n"
    "\n"
    "exit codes: 0 ok, 1 error, 2 usage, 3 agent could not start, 4 agent exited,\n"
    "            5 protocol version unsupported, 6 authentication required\n";

const char* const kCommands =
    "commands:\n"
    "  /agents           the agents acp-chat knows by name (agents file, registry)\n"
    "  /image PATH [TEXT]  send an image (PNG, JPEG, GIF, WebP; if the agent takes images)\n"
    "  /new              start a new session (with the /cwd, /add-dir and /mcp settings)\n"
    "  /sessions         list the agent's sessions\n"
    "  /resume ID        resume a session and show its last turns (--resume-turns)\n"
    "  /history [N]      the current session's whole history, or its last N turns\n"
    "  /close            close the current session\n"
    "  /delete ID        delete a session\n"
    "  /config [ID VALUE]  list the session's options, or set one\n"
    "  /cwd [DIR]        show or set the working directory for /new\n"
    "  /add-dir PATH     add a directory to the next /new (if the agent supports it)\n"
    "  /mcp NAME COMMAND [ARGS...] | /mcp NAME URL   add an MCP server to the next /new\n"
    "  /stderr           the agent's stderr and libacp's warnings (also in --log)\n"
    "  /help, /quit\n"
    "  /NAME [INPUT]     one of the agent's commands (sent as a prompt)\n"
    "anything else is sent to the agent as a prompt. Ctrl-C cancels a running turn.\n";

const char* unstable_help(const std::string& name) {
    if (name == "/fork") return "/fork             continue in a copy of the current session";
    if (name == "/title") return "/title TEXT       rename the current session";
    if (name == "/archive") return "/archive [ID]     archive a session (default: the current one)";
    if (name == "/unarchive") return "/unarchive ID     bring an archived session back to the list";
    if (name == "/status") return "/status [ID]      whether the agent has the session in memory, and its state";
    if (name == "/providers") return "/providers [set ID API_TYPE BASE_URL | disable ID]  the agent's model providers";
    return "";
}

bool parse(int argc, char** argv, Options& options) {
    enum {
        agent_name = 800,
        registry,
        registry_max_age,
        connect = 900,
        header,
        ca_file,
        cwd = 1000,
        resume,
        resume_turns,
        login,
        log,
        dump_state,
        no_color,
        plain,
        markdown,
        unstable,
        max_line,
        version,
        help
    };
    static const option kLong[] = {
        {"agent", required_argument, nullptr, agent_name},
        {"registry", required_argument, nullptr, registry},
        {"registry-max-age", required_argument, nullptr, registry_max_age},
        {"connect", required_argument, nullptr, connect},
        {"header", required_argument, nullptr, header},
        {"ca-file", required_argument, nullptr, ca_file},
        {"cwd", required_argument, nullptr, cwd},
        {"resume", required_argument, nullptr, resume},
        {"resume-turns", required_argument, nullptr, resume_turns},
        {"login", required_argument, nullptr, login},
        {"log", required_argument, nullptr, log},
        {"dump-state", required_argument, nullptr, dump_state},
        {"no-color", no_argument, nullptr, no_color},
        {"plain", no_argument, nullptr, plain},
        {"markdown", no_argument, nullptr, markdown},
        {"unstable", no_argument, nullptr, unstable},
        {"max-line-bytes", required_argument, nullptr, max_line},
        {"version", no_argument, nullptr, version},
        {"help", no_argument, nullptr, help},
        {nullptr, 0, nullptr, 0},
    };
    optind = 1;
    opterr = 1;  // getopt_long says what is wrong on stderr
    int c;
    // "+": options stop at the agent command, whose own options are its business.
    while ((c = getopt_long(argc, argv, "+h", kLong, nullptr)) != -1) {
        switch (c) {
            case agent_name: options.agent_name = optarg; break;
            case registry: options.registry = optarg; break;
            case registry_max_age: {
                char* end = nullptr;
                const long seconds = std::strtol(optarg, &end, 10);
                if (end == optarg || *end != '\0' || seconds < 0) {
                    std::fprintf(stderr, "acp-chat: --registry-max-age takes a number of seconds\n");
                    return false;
                }
                options.registry_max_age = seconds;
                break;
            }
            case connect: options.connect = optarg; break;
            case header:
                if (std::strchr(optarg, ':') == nullptr) {
                    std::fprintf(stderr, "acp-chat: --header takes 'Name: value'\n");
                    return false;
                }
                options.headers.emplace_back(optarg);
                break;
            case ca_file: options.ca_file = optarg; break;
            case cwd: options.cwd = optarg; break;
            case resume: options.resume = optarg; break;
            case resume_turns: {
                char* end = nullptr;
                const unsigned long turns = std::strtoul(optarg, &end, 10);
                if (end == optarg || *end != '\0' || optarg[0] == '-') {
                    std::fprintf(stderr, "acp-chat: --resume-turns takes a number of turns\n");
                    return false;
                }
                options.resume_turns = turns;
                break;
            }
            case login: options.login = optarg; break;
            case log: options.log_file = optarg; break;
            case dump_state: options.dump_file = optarg; break;
            case no_color: options.color = false; break;
            case markdown: options.markdown = true; break;
            case unstable: options.unstable = true; break;
            case plain:
                options.plain = true;
                options.color = false;
                break;
            case max_line: {
                char* end = nullptr;
                const unsigned long long n = std::strtoull(optarg, &end, 10);
                if (end == optarg || *end != '\0' || n < 1024) {
                    std::fprintf(stderr, "acp-chat: --max-line-bytes takes a number of bytes, at least 1024\n");
                    return false;
                }
                options.max_line_bytes = static_cast<std::size_t>(n);
                break;
            }
            case version:
                // The version built with, and the library linked (the same for the static build).
                std::printf("acp-chat %s (libacp %s)\n", ACP_VERSION_STRING, acp::version_string());
                std::exit(exit_ok);
            case 'h':
            case help:
                std::fputs(kUsage, stdout);
                std::fputs("\n", stdout);
                std::fputs(kCommands, stdout);
                std::exit(exit_ok);
            default: std::fputs(kUsage, stderr); return false;
        }
    }
    options.agent_is_command = optind > 1 && std::strcmp(argv[optind - 1], "--") == 0;
    for (int i = optind; i < argc; ++i) options.agent.emplace_back(argv[i]);
    if ((!options.connect.empty() ? 1 : 0) + (!options.agent.empty() ? 1 : 0) + (!options.agent_name.empty() ? 1 : 0) >
        1) {
        std::fprintf(stderr, "acp-chat: --connect, --agent and an agent command exclude each other\n");
        return false;
    }
    // The CAs serve a remote agent, a registry URL, and the archive of a registry agent's
    // binary build (from a registry file too); an agent command after -- uses none.
    const bool registry_url = options.registry.find("://") != std::string::npos;
    if (options.connect.empty() && !options.headers.empty()) {
        std::fprintf(stderr, "acp-chat: --header goes with --connect\n");
        return false;
    }
    if (!options.ca_file.empty() && options.agent_is_command && !registry_url) {
        std::fprintf(stderr, "acp-chat: --ca-file goes with --connect, a --registry URL or an agent by name\n");
        return false;
    }
    return true;
}

}  // namespace chat
