// SPDX-License-Identifier: Apache-2.0
// tools/call round trips per second through the carriers of host-offered tools
// (lib/tools/): the official MCP TypeScript SDK client calls an echo tool over the loopback
// HTTP carrier and through the stdio bridge, against the same SDK client calling the SDK's
// own server over the same transport, in the same run. MCP over ACP: the TypeScript ACP
// SDK's McpOverAcpCaller (tests/peers/ts-agent/tools-agent.mjs) calls an acp::ToolServer
// offered by an acp::Client, against the same agent calling the ACP SDK's own
// McpOverAcpProvider in an SDK client (bench/tools_ts_client.mjs). Reported as calls per
// second and as the ratio libacp / SDK (above 1: libacp's side is faster).
//
//   acp_bench_carriers [calls]        (default 2000; needs node and npm ci in tests/peers/ts-agent)
//
// The libacp side is the carrier plus a minimal endpoint (tests/support/mcp_test_endpoint.hpp),
// so this measures the carrier, not the tool server logic above it. Sequential calls: the
// latency of one round trip is what an agent waiting on a tool sees.
#include <uv.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acp/client.hpp"
#include "acp/tools.hpp"
#include "acp/turn.hpp"
#include "support/logger.hpp"
#include "support/mcp_test_endpoint.hpp"
#include "tools/bridge_carrier.hpp"
#include "tools/http_carrier.hpp"

namespace {

// A child on the loop with its stdout collected; stdin stays open until it is destroyed.
struct Child {
    uv_process_t process{};
    uv_pipe_t in{};
    uv_pipe_t out{};
    std::string output;
    bool exited = false;
    int64_t status = -1;
};

std::unique_ptr<Child> spawn(uv_loop_t* loop, std::vector<std::string> args) {
    auto child = std::make_unique<Child>();
    uv_pipe_init(loop, &child->in, 0);
    uv_pipe_init(loop, &child->out, 0);
    child->out.data = child.get();
    child->process.data = child.get();
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    uv_stdio_container_t stdio[3];
    stdio[0].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_READABLE_PIPE);
    stdio[0].data.stream = reinterpret_cast<uv_stream_t*>(&child->in);
    stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
    stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&child->out);
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    uv_process_options_t options{};
    options.file = argv[0];
    options.args = argv.data();
    options.stdio = stdio;
    options.stdio_count = 3;
    options.exit_cb = [](uv_process_t* process, int64_t status, int) {
        auto* self = static_cast<Child*>(process->data);
        self->exited = true;
        self->status = status;
    };
    if (int rc = uv_spawn(loop, &child->process, &options); rc != 0) {
        std::fprintf(stderr, "cannot run %s: %s\n", args[0].c_str(), uv_strerror(rc));
        std::exit(1);
    }
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&child->out),
        [](uv_handle_t*, std::size_t, uv_buf_t* buf) {
            static char scratch[65536];
            *buf = uv_buf_init(scratch, sizeof scratch);
        },
        [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
            if (nread > 0) static_cast<Child*>(stream->data)->output.append(buf->base, static_cast<std::size_t>(nread));
            if (nread < 0) uv_read_stop(stream);
        });
    return child;
}

void finish(uv_loop_t* loop, std::unique_ptr<Child> child) {
    uv_close(reinterpret_cast<uv_handle_t*>(&child->in), nullptr);
    while (!child->exited) uv_run(loop, UV_RUN_ONCE);
    uv_close(reinterpret_cast<uv_handle_t*>(&child->out), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&child->process), nullptr);
    uv_run(loop, UV_RUN_NOWAIT);
}

// Runs mcp-client.mjs with flags until it exits; its calls per second.
double run_client(uv_loop_t* loop, std::vector<std::string> flags) {
    std::vector<std::string> args = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/mcp-client.mjs"};
    for (auto& flag : flags) args.push_back(std::move(flag));
    auto child = spawn(loop, args);
    while (!child->exited) uv_run(loop, UV_RUN_ONCE);
    std::string output = child->output;
    const bool ok = child->status == 0;
    finish(loop, std::move(child));
    auto at = output.find("\"perSecond\":");
    if (!ok || at == std::string::npos) {
        std::fprintf(stderr, "mcp-client.mjs failed: %s\n", output.c_str());
        std::exit(1);
    }
    return std::atof(output.c_str() + at + 12);
}

// The SDK's own server over HTTP, in its own process as the carrier's host is.
double run_sdk_http(uv_loop_t* loop, const std::string& calls) {
    auto server = spawn(loop, {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/mcp-client.mjs", "--serve-http"});
    while (server->output.find('\n') == std::string::npos && !server->exited) uv_run(loop, UV_RUN_ONCE);
    auto at = server->output.find("\"url\":\"");
    if (at == std::string::npos) {
        std::fprintf(stderr, "the SDK server did not start: %s\n", server->output.c_str());
        std::exit(1);
    }
    std::string url = server->output.substr(at + 7, server->output.find('"', at + 7) - at - 7);
    double rate = run_client(loop, {"--http=" + url, "--calls=" + calls});
    finish(loop, std::move(server));
    return rate;
}

// MCP over ACP, libacp's side: an acp::Client offers an echo tool to tools-agent.mjs, whose
// SDK caller calls it `calls` times in one turn; calls per second from prompt to turn end.
double run_libacp_acp(uv_loop_t* loop, const std::string& calls) {
    acp::SpawnOptions agent;
    agent.argv = {ACP_NODE, std::string(ACP_TS_AGENT_DIR) + "/tools-agent.mjs"};
    auto client = acp::Client::spawn(loop, agent, acp::ClientOptions{});
    auto server = acp::ToolServer::create("bench");
    if (!client || !server) {
        std::fprintf(stderr, "cannot start the ACP pair: %s\n",
                     (!client ? client.status() : server.status()).to_string().c_str());
        std::exit(1);
    }
    acp::Tool echo;
    echo.name = "echo";
    echo.handler = [](const acp::ToolCall& call, acp::ToolResponder answer) { answer.text(call.arguments.text); };
    if (acp::Status added = (*server)->add_tool(std::move(echo)); !added) {
        std::fprintf(stderr, "the echo tool: %s\n", added.to_string().c_str());
        std::exit(1);
    }
    acp::Client& c = **client;
    auto init = acp::wait_for<acp::v2::InitializeResponse>(loop, [&](auto done) { c.initialize(done); });
    acp::v2::NewSessionRequest request;
    request.cwd = "/tmp";
    auto session =
        acp::wait_for<acp::v2::NewSessionResponse>(loop, [&](auto done) { c.new_session(request, {*server}, done); });
    if (!init || !session) {
        std::fprintf(stderr, "the ACP pair: %s\n", (!init ? init.status() : session.status()).to_string().c_str());
        std::exit(1);
    }
    std::string script;
    const long count = std::atol(calls.c_str());
    for (long i = 0; i < count; ++i) script += "call echo {\"i\":" + std::to_string(i) + "}\n";
    long answers = 0;
    const auto started = std::chrono::steady_clock::now();
    auto end = acp::wait_for<acp::TurnEnd>(loop, [&](auto done) {
        acp::prompt_turn(
            c, session->sessionId, script,
            [&](const acp::TurnText& t) {
                if (t.text.find("\"result\"") != std::string_view::npos) ++answers;
            },
            done);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!end || answers != count) {
        std::fprintf(stderr, "the ACP pair: %ld answers of %ld (%s)\n", answers, count,
                     end ? "turn ended" : end.status().to_string().c_str());
        std::exit(1);
    }
    std::optional<acp::Status> closed;
    c.on_closed([&](const acp::Status& why) { closed = why; });
    c.close();
    while (!closed) uv_run(loop, UV_RUN_ONCE);
    return static_cast<double>(count) / seconds;
}

// MCP over ACP, the SDK's side: the same agent calling the ACP SDK's McpOverAcpProvider.
double run_sdk_acp(uv_loop_t* loop, const std::string& calls) {
    auto child = spawn(loop, {ACP_NODE, std::string(ACP_BENCH_DIR) + "/tools_ts_client.mjs", calls});
    while (!child->exited) uv_run(loop, UV_RUN_ONCE);
    std::string output = child->output;
    const bool ok = child->status == 0;
    finish(loop, std::move(child));
    auto at = output.find("\"perSecond\":");
    if (!ok || at == std::string::npos) {
        std::fprintf(stderr, "tools_ts_client.mjs failed: %s\n", output.c_str());
        std::exit(1);
    }
    return std::atof(output.c_str() + at + 12);
}

}  // namespace

int main(int argc, char** argv) {
    const std::string calls = argc > 1 ? argv[1] : "2000";
    uv_loop_t* loop = uv_default_loop();
    acp::test::McpTestEndpoint endpoint(loop);
    auto http = acp::detail::tools::HttpCarrier::start(loop, endpoint, acp::detail::Logger());
    auto bridge = acp::detail::tools::BridgeCarrier::start(loop, endpoint, acp::detail::Logger());
    if (!http || !bridge) {
        std::fprintf(stderr, "carrier: %s\n", (!http ? http.status() : bridge.status()).to_string().c_str());
        return 1;
    }

    const double sdk_http = run_sdk_http(loop, calls);
    const double carrier_http =
        run_client(loop, {"--http=" + (*http)->url(), "--token=" + (*http)->bearer_token(), "--calls=" + calls});
    const double sdk_stdio =
        run_client(loop, {"--stdio=" ACP_NODE, "--arg=" + std::string(ACP_TS_AGENT_DIR) + "/mcp-client.mjs",
                          "--arg=--serve-stdio", "--calls=" + calls});
    std::vector<std::string> flags = {"--stdio=" + (*bridge)->command(), "--calls=" + calls};
    for (const auto& arg : (*bridge)->args()) flags.push_back("--arg=" + arg);
    for (const auto& [name, value] : (*bridge)->env()) flags.push_back("--env=" + name + "=" + value);
    const double carrier_bridge = run_client(loop, flags);

    const double sdk_acp = run_sdk_acp(loop, calls);
    const double libacp_acp = run_libacp_acp(loop, calls);

    std::printf("tools/call round trips per second, %s sequential calls, MCP SDK client:\n", calls.c_str());
    std::printf("  HTTP:  libacp carrier %8.0f/s   SDK server %8.0f/s   ratio %.2f\n", carrier_http, sdk_http,
                carrier_http / sdk_http);
    std::printf("  stdio: libacp bridge  %8.0f/s   SDK server %8.0f/s   ratio %.2f\n", carrier_bridge, sdk_stdio,
                carrier_bridge / sdk_stdio);
    std::printf("MCP over ACP, one turn of the ACP SDK's McpOverAcpCaller (tools-agent.mjs):\n");
    std::printf("  acp:   libacp client  %8.0f/s   SDK client %8.0f/s   ratio %.2f\n", libacp_acp, sdk_acp,
                libacp_acp / sdk_acp);
    http->reset();
    bridge->reset();
    uv_run(loop, UV_RUN_NOWAIT);
    return 0;
}
