// SPDX-License-Identifier: Apache-2.0
// acp-chat: a line-oriented terminal client for any ACP agent, on libacp's public C++ API.
//
//   acp-chat [options] [AGENT | [--] AGENT COMMAND...]
//
// An agent is named (the user's agents.json, the ACP registry: agents.cpp) or given as a
// command; without either it starts the agents file's default, else the demo agent
// (acp-demo-agent next to this binary, else the one it was built with). Everything shown comes from the session model
// the Client keeps (acp::SessionStore events): streamed replies, dimmed thoughts, tool calls with status and kind,
// coloured diffs, plans as checklists, terminal output, a status line after each turn, the agent's Markdown rendered
// (md4c). On a terminal the prompt is edited with libedit (history, arrow keys, bracketed paste), a permission prompt
// takes one key and Ctrl-C cancels the running turn (twice at the prompt quits); with
// stdin not a terminal it reads one prompt or command per line, each after the previous
// one finished. Exit codes and commands: see kUsage and docs/samples.md. ACP v1 agents
// work too: libacp lifts their traffic into the same v2 model.
#include <langinfo.h>
#include <unistd.h>
#include <uv.h>

#include <climits>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "agents.hpp"
#include "chat.hpp"

using namespace chat;

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, options)) return exit_usage;
    if (!options.cwd.empty() && options.cwd[0] != '/') {
        char buffer[PATH_MAX];
        options.cwd = absolute(getcwd(buffer, sizeof buffer) != nullptr ? buffer : "/", options.cwd);
    }
    acp::Catalogue catalogue;
    if (!load_catalogue(options, catalogue)) return exit_usage;
    if (int picked = pick_agent(options, catalogue); picked != exit_ok) return picked;
    // Fully buffered also on a terminal: acp-chat flushes once per loop iteration.
    static char output_buffer[1 << 16];
    std::setvbuf(stdout, output_buffer, _IOFBF, sizeof output_buffer);
    // The line editor reads and measures UTF-8 (the protocol's text) whatever the locale says.
    if (std::setlocale(LC_CTYPE, "") == nullptr || std::strcmp(nl_langinfo(CODESET), "UTF-8") != 0) {
        std::setlocale(LC_CTYPE, "C.UTF-8");
    }
    const bool tty = isatty(STDIN_FILENO) != 0;
    const char* no_color = std::getenv("NO_COLOR");
    const bool color = options.color && isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0');
    uv_loop_t* loop = uv_default_loop();
    int code;
    {
        const bool markdown = !options.plain && (options.markdown || isatty(STDOUT_FILENO) != 0);
        Chat chat(loop, std::move(options), std::move(catalogue), tty, color, markdown);
        code = chat.run();
    }
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    return code;
}
