// acp-rpc-demo: spawns a test agent, talks JSON-RPC with it, and prints what happened.
//
// A stand-in until the acp-chat client exists: it shows the bottom layers at work (a
// supervised agent process, the NDJSON framing, requests both ways, the traffic log, the
// agent's stderr, and its exit report).
//
//   acp-rpc-demo [AGENT COMMAND...]     (default: the scripted test peer)
#include <cstdio>
#include <string>
#include <vector>

#include "acp/version.hpp"
#include "jsonrpc/connection.hpp"
#include "transport/process_transport.hpp"

using namespace acp::detail;

int main(int argc, char** argv) {
    std::printf("libacp %s: JSON-RPC demo\n", acp::version_string());
    uv_loop_t* loop = uv_default_loop();

    acp::SpawnOptions agent;
    for (int i = 1; i < argc; ++i) agent.argv.emplace_back(argv[i]);
    if (agent.argv.empty()) agent.argv = {ACP_SCRIPTED_PEER, "--stderr-on-exit", "scripted peer: stdin closed, bye"};

    Logger logger([](const acp::LogRecord& r) {
        std::printf("  [%s %s] %.*s\n", std::string(r.source).c_str(), acp::log_level_name(r.level),
                    static_cast<int>(r.message.size()), r.message.data());
    });
    auto transport = ProcessTransport::spawn(loop, agent, logger);
    if (!transport) {
        std::fprintf(stderr, "error: %s\n", transport.status().to_string().c_str());
        return 2;
    }
    std::printf("spawned agent pid %d: %s\n", transport.value()->pid(), agent.argv[0].c_str());

    Connection rpc(loop, std::move(transport.value()), logger);
    rpc.set_traffic_observer([](Direction direction, std::string_view line, std::chrono::system_clock::time_point) {
        std::printf("%s %.*s\n", direction == Direction::outgoing ? "-->" : "<--", static_cast<int>(line.size()),
                    line.data());
    });
    // The agent may call the client: answer its questions.
    rpc.on_request("demo/question", [](const JsonValue*, Responder responder) {
        responder.respond([](JsonWriter& w) {
            w.StartObject();
            w.Key("answer");
            w.Int(42);
            w.EndObject();
        });
    });
    int exit_code = 0;
    rpc.on_closed([&](const acp::Status& why) {
        std::printf("connection closed: %s\n", why.message().c_str());
        if (!why.agent_exit() || !why.agent_exit()->requested) exit_code = 1;
    });
    rpc.start();

    auto fail = [&](const char* step, const acp::Status& status) {
        std::printf("%s failed: %s\n", step, status.to_string().c_str());
        exit_code = 1;
        rpc.close();
    };
    // echo, then ask the agent to ask us something, then shut down.
    rpc.send_request("echo", [](JsonWriter& w) {
        w.StartObject();
        w.Key("greeting");
        w.String("hello, agent");
        w.EndObject();
    }, [&](const Reply& reply) {
        if (!reply.status) return fail("echo", reply.status);
        std::printf("echo answered: %s\n", to_json_text(*reply.result).c_str());
        rpc.send_request("call_client", [](JsonWriter& w) {
            w.StartObject();
            w.Key("method");
            w.String("demo/question");
            w.EndObject();
        }, [&](const Reply& inner) {
            if (!inner.status) return fail("call_client", inner.status);
            std::printf("the agent asked us a question and got: %s\n", to_json_text(*inner.result).c_str());
            rpc.close();
        });
    });

    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    std::printf(exit_code == 0 ? "demo finished cleanly\n" : "demo failed\n");
    return exit_code;
}
