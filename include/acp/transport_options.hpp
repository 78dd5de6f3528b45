// SPDX-License-Identifier: Apache-2.0
// acp/transport_options.hpp — how libacp reaches an agent: a process it spawns, streams
// the host already opened, or an agent on the network (WebSocket or Streamable HTTP).
//
//   acp::SpawnOptions agent;
//   agent.argv = {"npx", "@agentclientprotocol/claude-agent-acp"};
//   agent.cwd = "/home/me/project";
//   agent.env_set = {{"NO_COLOR", "1"}};
//   agent.env_unset = {"ANTHROPIC_API_KEY"};
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace acp {

// An agent process to start. It is never run through a shell: argv[0] is looked up on
// the PATH of the agent's environment, the rest are passed as they are. On Windows a
// .cmd or .bat agent (npx.cmd) runs through cmd.exe, and an argument cmd.exe could act
// on (" % ! & | < > ^, a line break) is refused with invalid_argument.
struct SpawnOptions {
    std::vector<std::string> argv;
    std::string cwd;  // empty: the host's working directory
    // The agent's environment is the host's, minus env_unset, plus env_set (which wins).
    // Names match as the system matches them: on Windows without regard to case. Of
    // env_set entries naming one variable, the last wins.
    std::vector<std::pair<std::string, std::string>> env_set;
    std::vector<std::string> env_unset;

    // Shutdown ladder: close the agent's stdin, wait shutdown_grace, SIGTERM its process
    // group, wait terminate_grace, SIGKILL the group. On Windows: CTRL_BREAK_EVENT to its
    // process group (when the host has a console to share), then terminating its Job
    // Object (docs/untrusted-agent.md).
    std::chrono::milliseconds shutdown_grace{2000};
    std::chrono::milliseconds terminate_grace{2000};
    // How much of the agent's stderr is kept for the error report when it exits.
    std::size_t stderr_tail_bytes = 64 * 1024;

    // No agent outlives its host (docs/untrusted-agent.md): the agent runs under libacp's
    // guard process, which stops the agent and everything it started (descendants that
    // left its process group with setsid() included) when the agent exits, when the
    // client is closed, and when the host process dies, even by SIGKILL. Signals the
    // ladder sends reach the agent's process group as before. false: the agent is the
    // host's direct child, and only its process group is stopped (and nothing happens
    // when the host dies).
    bool use_guard_process = true;
};

// Streams the host opened itself (for hosts that spawn the agent on their own, or carry
// their own libuv whose SIGCHLD handling must not be disturbed). libacp takes ownership
// of the descriptors and closes them. read_fd and write_fd may be the same socket. On
// Windows they are C runtime descriptors: _open_osfhandle() of the pipe HANDLEs.
struct AdoptedFds {
    int read_fd = -1;    // the agent's stdout
    int write_fd = -1;   // the agent's stdin
    int stderr_fd = -1;  // optional: the agent's stderr, forwarded to the log sink
};

// An agent on the network (docs/remote.md). The scheme picks the transport:
//   ws://, wss://      WebSocket, one JSON-RPC message per text message
//   http://, https://  Streamable HTTP: client messages are POSTed, the agent's arrive on
//                      server-sent event streams (one for the connection, one per session)
// The message size cap is ClientOptions::max_line_bytes, as for a process.
struct RemoteOptions {
    std::string url;
    // Sent with the WebSocket upgrade and with every HTTP request, e.g.
    // {"Authorization", "Bearer ..."}. Header values never reach the log, and neither does
    // a URL's user:password or query.
    std::vector<std::pair<std::string, std::string>> headers;
    // PEM file of the certificate authorities to trust for wss:// and https://; empty:
    // the system's. Certificates and host names are always verified.
    std::string ca_file;
    // How long opening the connection (TCP, TLS, the upgrade or the first response) may
    // take before connect fails with Errc::timed_out; 0 = the libraries' defaults.
    std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
};

}  // namespace acp
