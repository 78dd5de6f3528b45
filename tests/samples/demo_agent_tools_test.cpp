// SPDX-License-Identifier: Apache-2.0
// The demo agent calls a tool of a server the host offers through libacp (acp::ToolServer)
// over each MCP transport it can advertise: MCP over ACP, Streamable HTTP to libacp's
// loopback endpoint, and stdio through libacp's bridge, which the demo agent spawns. The
// reply is the same text over all three, and once the session or the client is closed
// nothing is left listening or running: no HTTP port, no bridge, no stdio server the agent
// started.
#include <arpa/inet.h>
#include <dirent.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "acp/session.hpp"
#include "acp/tools.hpp"
#include "samples/demo_peer.hpp"
#include "support/loop_child.hpp"

using acp::test::DemoPeer;
using acp::test::TempDir;
namespace v2 = acp::v2;

namespace {

constexpr const char* kSelection = "int answer = 42";

// The transports this build can carry tools over (HTTP needs libcurl and libmicrohttpd).
std::vector<std::string> transports(std::vector<std::string> all) {
#ifndef ACP_TEST_HTTP_TOOLS
    all.erase(std::remove(all.begin(), all.end(), "http"), all.end());
#endif
    return all;
}

// What a file of /proc holds (empty when the process is gone or not ours).
std::string read_proc_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The processes with needle in their command line (what: "cmdline") or environment ("environ").
std::vector<std::string> pids_with(const std::string& what, const std::string& needle) {
    std::vector<std::string> pids;
    DIR* proc = opendir("/proc");
    REQUIRE(proc != nullptr);
    while (dirent* entry = readdir(proc)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        const std::string text = read_proc_file(std::string("/proc/") + entry->d_name + "/" + what);
        // A zombie has neither: it is gone but for its parent's wait.
        if (text.find(needle) != std::string::npos) pids.emplace_back(entry->d_name);
    }
    closedir(proc);
    return pids;
}

int processes_with(const std::string& what, const std::string& needle) {
    return static_cast<int>(pids_with(what, needle).size());
}

// What a process's open descriptors are (readlink of /proc/PID/fd/*).
std::vector<std::string> descriptors(const std::string& pid) {
    std::vector<std::string> targets;
    DIR* fds = opendir(("/proc/" + pid + "/fd").c_str());
    REQUIRE(fds != nullptr);
    while (dirent* entry = readdir(fds)) {
        if (entry->d_name[0] == '.') continue;
        char target[256] = {};
        const std::string link = "/proc/" + pid + "/fd/" + entry->d_name;
        if (readlink(link.c_str(), target, sizeof target - 1) > 0) targets.emplace_back(target);
    }
    closedir(fds);
    return targets;
}

std::string parent_of(const std::string& pid) {
    const std::string status = read_proc_file("/proc/" + pid + "/status");
    const auto at = status.find("\nPPid:");
    REQUIRE(at != std::string::npos);
    return std::to_string(std::atoi(status.c_str() + at + 7));
}

std::string descriptor(const std::string& pid, int fd) {
    char target[256] = {};
    const std::string link = "/proc/" + pid + "/fd/" + std::to_string(fd);
    REQUIRE(readlink(link.c_str(), target, sizeof target - 1) > 0);
    return target;
}

// Whether something listens on 127.0.0.1:port.
bool listening(int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    const int error = errno;
    ::close(fd);
    if (!connected) CHECK(error == ECONNREFUSED);
    return connected;
}

// The mcpServers entry libacp sent in session/new.
rapidjson::Document sent_entry(const DemoPeer& peer) {
    for (const auto& line : peer.sent) {
        rapidjson::Document message;
        message.Parse(line.c_str());
        if (message.HasParseError() || !message.HasMember("method") || message["method"] != "session/new") continue;
        REQUIRE(message["params"]["mcpServers"].Size() == 1);
        rapidjson::Document entry;
        entry.CopyFrom(message["params"]["mcpServers"][0], entry.GetAllocator());
        return entry;
    }
    FAIL("no session/new was sent");
    return {};
}

std::string agent_text(const acp::SessionState& state) {
    std::string text;
    for (const auto& item : state.items()) {
        if (item.kind() != acp::ItemKind::agent_message) continue;
        for (const auto& block : item.message()->content) {
            if (block.text() != nullptr) text += block.text()->text;
        }
    }
    return text;
}

// The editor server of the examples, counting its calls.
std::shared_ptr<acp::ToolServer> editor_server(int& calls) {
    auto editor = acp::ToolServer::create("editor");
    REQUIRE(editor.ok());
    acp::Tool tool;
    tool.name = "current_selection";
    tool.description = "The text selected in the editor";
    tool.handler = [&calls](const acp::ToolCall&, acp::ToolResponder answer) {
        ++calls;
        answer.text(kSelection);
    };
    REQUIRE((*editor)->add_tool(std::move(tool)).ok());
    return *editor;
}

// A session offering the editor over the one transport the demo agent advertises; the
// prompt makes it call current_selection. Returns the session id.
std::string ask_for_selection(DemoPeer& peer, const std::string& transport, int& calls) {
    peer.initialize();
    v2::NewSessionRequest request;
    request.cwd = "/tmp/project";
    auto session = peer.wait<v2::NewSessionResponse>(
        [&](auto done) { peer.client->new_session(request, {editor_server(calls)}, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    CHECK(std::string(sent_entry(peer)["type"].GetString()) == transport);
    peer.prompt_turn(session->sessionId, "What is selected?");
    return session->sessionId;
}

// What is left of a transport once its session is gone: the port, or the bridge.
struct Leftovers {
    int port = 0;               // http: libacp's endpoint
    std::string bridge_socket;  // stdio: the bridge's socket path, in its command line
    bool any() {
        if (port != 0 && listening(port)) return true;
        return !bridge_socket.empty() && processes_with("cmdline", bridge_socket) > 0;
    }
};

Leftovers leftovers_of(const DemoPeer& peer, const std::string& transport) {
    Leftovers left;
    rapidjson::Document entry = sent_entry(peer);
    if (transport == "http") {
        const std::string url = entry["url"].GetString();
        left.port = std::atoi(url.c_str() + url.rfind(':') + 1);
        REQUIRE(left.port > 0);
    } else if (transport == "stdio") {
        REQUIRE(entry["args"].Size() >= 1);
        left.bridge_socket = entry["args"][0].GetString();
    }
    return left;
}

}  // namespace

TEST_CASE(
    "demo agent: calls the host's tool over each MCP transport with the same reply and leaves nothing after "
    "close_session") {
    std::map<std::string, std::string> replies;
    for (const std::string& transport : transports({"acp", "http", "stdio"})) {
        CAPTURE(transport);
        TempDir dir;
        DemoPeer peer(dir.path(), {"--mcp", transport});
        peer.check_agent_messages = transport != "acp";
        int calls = 0;
        const std::string id = ask_for_selection(peer, transport, calls);
        CHECK(calls == 1);
        const acp::SessionState& state = peer.session(id);
        CHECK(state.foreground().stop_reason == std::optional<std::string>("end_turn"));
        const acp::SessionItem* call = state.item(acp::ItemKind::tool_call, "tc1");
        REQUIRE(call != nullptr);
        CHECK(call->tool_call()->status == v2::ToolCallStatus::completed);
        replies[transport] = agent_text(state);
        CHECK(replies[transport] == std::string("The tool current_selection of editor says: ") + kSelection);

        Leftovers left = leftovers_of(peer, transport);
        // While the session lives, the endpoint listens and the bridge runs (the agent
        // keeps its stdio server for the session, as agents do).
        if (transport == "http") CHECK(listening(left.port));
        if (transport == "stdio") CHECK(processes_with("cmdline", left.bridge_socket) == 1);
        auto closed = peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(id, done); });
        REQUIRE(closed.ok());
        CHECK(peer.loop.run_until([&] { return !left.any(); }));
    }
    for (const auto& [transport, reply] : replies) CHECK(reply == replies["acp"]);
}

TEST_CASE("demo agent: closing the client leaves no HTTP endpoint and no bridge and the agent exits by itself") {
    for (const std::string& transport : transports({"http", "stdio"})) {
        CAPTURE(transport);
        TempDir dir;
        Leftovers left;
        {
            DemoPeer peer(dir.path(), {"--mcp", transport});
            int calls = 0;
            ask_for_selection(peer, transport, calls);
            CHECK(calls == 1);
            left = leftovers_of(peer, transport);
            peer.client->close();
            REQUIRE(peer.loop.run_until([&] { return peer.closed.has_value(); }));
            const acp::AgentExit* exit = peer.closed->agent_exit();
            REQUIRE(exit != nullptr);
            CHECK(exit->exited);
            CHECK(exit->term_signal == 0);
            CHECK(exit->exit_code == 0);
        }
        // The agent ended its bridge before it exited; libacp closed its endpoint.
        CHECK(!left.any());
    }
}

TEST_CASE("demo agent: a stdio server that never answers is ended with the session") {
    // Not libacp's bridge: a command of the host's own entry, which only the agent can end.
    // It ignores its closed stdin; the demo agent's SIGTERM ends it.
    TempDir dir;
    DemoPeer peer(dir.path(), {"--mcp", "stdio"});
    peer.initialize();
    const std::string mark = "ACP_DEMO_TOOLS_MARK=" + dir.path();
    v2::McpServerStdio stdio;
    stdio.name = "silent";
    stdio.command = "/bin/sleep";
    stdio.args = std::vector<std::string>{"600"};
    v2::EnvVariable variable;
    variable.name = "ACP_DEMO_TOOLS_MARK";
    variable.value = dir.path();
    stdio.env = std::vector<v2::EnvVariable>{variable};
    v2::NewSessionRequest request;
    request.cwd = "/tmp/project";
    request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_stdio(stdio)};
    auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
    REQUIRE_MESSAGE(session.ok(), session.status().to_string());
    v2::PromptRequest prompt;
    prompt.sessionId = session->sessionId;
    v2::TextContent text;
    text.text = "What is selected?";
    prompt.prompt.push_back(v2::ContentBlock::make_text(std::move(text)));
    REQUIRE(peer.wait<v2::PromptResponse>([&](auto done) { peer.client->prompt(prompt, done); }).ok());
    // The agent started it and waits for its initialize answer. It does not hold the
    // agent's ACP pipes (the agent's stdin and stdout).
    REQUIRE(peer.loop.run_until([&] { return processes_with("environ", mark) == 1; }));
    const std::string server = pids_with("environ", mark).front();
    const std::string agent = parent_of(server);
    const std::vector<std::string> held = descriptors(server);
    CHECK(std::count(held.begin(), held.end(), descriptor(agent, 0)) == 0);
    CHECK(std::count(held.begin(), held.end(), descriptor(agent, 1)) == 0);
    auto closed =
        peer.wait<v2::CloseSessionResponse>([&](auto done) { peer.client->close_session(session->sessionId, done); });
    REQUIRE(closed.ok());
    CHECK(peer.session(session->sessionId).foreground().stop_reason == std::optional<std::string>("cancelled"));
    CHECK(peer.loop.run_until([&] { return processes_with("environ", mark) == 0; }));
}

#ifdef ACP_NODE
// The official MCP TypeScript SDK's server (tests/peers/ts-agent/mcp-client.mjs) as the
// host's own entry: over HTTP it answers every request with an event stream and checks
// the session id and protocol version headers; over stdio it is the agent's child.
TEST_CASE("demo agent: calls the MCP SDK's server over HTTP (event streams) and stdio") {
    const std::string script = std::string(ACP_TS_AGENT_DIR) + "/mcp-client.mjs";
    for (const std::string& transport : transports({"http", "stdio"})) {
        CAPTURE(transport);
        TempDir dir;
        DemoPeer peer(dir.path(), {"--mcp", transport});
        std::unique_ptr<acp::test::LoopChild> server;
        v2::NewSessionRequest request;
        request.cwd = "/tmp/project";
        const std::string mark = "ACP_DEMO_TOOLS_MARK=" + dir.path();
        if (transport == "http") {
            server = std::make_unique<acp::test::LoopChild>(
                peer.loop.get(), std::vector<std::string>{ACP_NODE, script, "--serve-http", "--sse"});
            REQUIRE(
                peer.loop.run_until([&] { return server->out().find('\n') != std::string::npos || server->exited(); }));
            rapidjson::Document line;
            line.Parse(server->out().c_str());
            REQUIRE_MESSAGE(!line.HasParseError(), server->out() << server->err());
            v2::McpServerHttp http;
            http.name = "sdk";
            http.url = line["url"].GetString();
            request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_http(http)};
        } else {
            v2::McpServerStdio stdio;
            stdio.name = "sdk";
            stdio.command = ACP_NODE;
            stdio.args = std::vector<std::string>{script, "--serve-stdio"};
            v2::EnvVariable variable;
            variable.name = "ACP_DEMO_TOOLS_MARK";
            variable.value = dir.path();
            stdio.env = std::vector<v2::EnvVariable>{variable};
            request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_stdio(stdio)};
        }
        peer.initialize();
        auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
        REQUIRE_MESSAGE(session.ok(), session.status().to_string());
        peer.prompt_turn(session->sessionId, R"(/tool echo {"text":"int answer = 42"})");
        CHECK(agent_text(peer.session(session->sessionId)) == "The tool echo of sdk says: int answer = 42");
        if (transport == "stdio") CHECK(processes_with("environ", mark) == 1);
        auto closed = peer.wait<v2::CloseSessionResponse>(
            [&](auto done) { peer.client->close_session(session->sessionId, done); });
        REQUIRE(closed.ok());
        CHECK(peer.loop.run_until([&] { return processes_with("environ", mark) == 0; }));
        if (server) {
            server->close_stdin();
            REQUIRE(peer.loop.run_until([&] { return server->exited(); }));
        }
    }
}
#endif

TEST_CASE("demo agent: a server's message over 1 MiB fails the call and the agent goes on") {
    // Untrusted server: 3 MB in one line over stdio (the agent ends it at once), one 3 MB
    // JSON body over HTTP (the transfer is aborted).
    const std::string big = "head -c 3000000 /dev/zero | tr '\\0' a; exec sleep 600";
    const std::string http_server =
        "import http.server\n"
        "class H(http.server.BaseHTTPRequestHandler):\n"
        "    def do_POST(self):\n"
        "        self.rfile.read(int(self.headers['Content-Length']))\n"
        "        body = b'{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"' + b'a' * 3000000 + b'\"}}'\n"
        "        self.send_response(200)\n"
        "        self.send_header('Content-Type', 'application/json')\n"
        "        self.send_header('Content-Length', str(len(body)))\n"
        "        self.end_headers()\n"
        "        self.wfile.write(body)\n"
        "    def log_message(self, *args): pass\n"
        "server = http.server.HTTPServer(('127.0.0.1', 0), H)\n"
        "print(server.server_address[1], flush=True)\n"
        "server.serve_forever()\n";
    for (const std::string& transport : transports({"http", "stdio"})) {
        CAPTURE(transport);
        TempDir dir;
        DemoPeer peer(dir.path(), {"--mcp", transport});
        std::unique_ptr<acp::test::LoopChild> server;
        v2::NewSessionRequest request;
        request.cwd = "/tmp/project";
        const std::string mark = "ACP_DEMO_TOOLS_MARK=" + dir.path();
        if (transport == "http") {
            server = std::make_unique<acp::test::LoopChild>(peer.loop.get(),
                                                            std::vector<std::string>{ACP_PYTHON, "-c", http_server});
            REQUIRE(
                peer.loop.run_until([&] { return server->out().find('\n') != std::string::npos || server->exited(); }));
            v2::McpServerHttp http;
            http.name = "big";
            http.url = "http://127.0.0.1:" + std::to_string(std::atoi(server->out().c_str())) + "/mcp";
            request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_http(http)};
        } else {
            v2::McpServerStdio stdio;
            stdio.name = "big";
            stdio.command = "/bin/sh";
            stdio.args = std::vector<std::string>{"-c", big};
            v2::EnvVariable variable;
            variable.name = "ACP_DEMO_TOOLS_MARK";
            variable.value = dir.path();
            stdio.env = std::vector<v2::EnvVariable>{variable};
            request.mcpServers = std::vector<v2::McpServer>{v2::McpServer::make_stdio(stdio)};
        }
        peer.initialize();
        auto session = peer.wait<v2::NewSessionResponse>([&](auto done) { peer.client->new_session(request, done); });
        REQUIRE_MESSAGE(session.ok(), session.status().to_string());
        peer.prompt_turn(session->sessionId, "What is selected?");
        const std::string text = agent_text(peer.session(session->sessionId));
        CHECK(text.find("I cannot list the tools of big: ") == 0);
        CHECK(text.find("over 1048576 bytes") != std::string::npos);
        // The usual turn followed, to its end.
        CHECK(text.find("Done: NOTES.md has your line") != std::string::npos);
        CHECK(peer.session(session->sessionId).foreground().stop_reason == std::optional<std::string>("end_turn"));
        // Over stdio the agent ended the server already, not waiting for the session's end.
        CHECK(peer.loop.run_until([&] { return processes_with("environ", mark) == 0; }));
    }  // the HTTP server is killed with its LoopChild
}
