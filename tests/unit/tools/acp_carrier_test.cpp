// SPDX-License-Identifier: Apache-2.0
// MCP over ACP (lib/tools/acp_carrier): the agent's mcp/message requests, answered as the
// TypeScript SDK 2.4.0's McpOverAcpProvider answers them (dist/mcp/core.js), over a real
// JSON-RPC connection whose far end the test drives as the agent.
#include <doctest/doctest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "jsonrpc/connection.hpp"
#include "support/raw_peer.hpp"
#include "support/test_loop.hpp"
#include "tools/acp_carrier.hpp"
#include "tools/tool_endpoint.hpp"
#include "transport/memory_transport.hpp"

using namespace acp::detail;
using namespace acp::detail::tools;
using acp::test::RawPeer;
using acp::test::TestLoop;

namespace {

constexpr const char* kMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})";

struct Harness {
    TestLoop loop;
    std::optional<Connection> rpc;
    std::optional<RawPeer> agent;
    std::optional<McpOverAcp> acp;
    std::shared_ptr<acp::ToolServer> server;
    std::shared_ptr<ToolEndpoint> endpoint;
    std::vector<acp::ToolResponder> held;
    int handled = 0;
    std::string server_id;

    explicit Harness(std::size_t max_active = 64) {
        auto pair = make_memory_transport_pair(loop.get());
        rpc.emplace(loop.get(), std::move(pair.first), Logger());
        agent.emplace(std::move(pair.second));
        acp.emplace(*rpc, Logger());
        rpc->on_request(std::string(kMcpMessageMethod),
                        [this](const JsonValue* p, Responder r) { acp->on_request(p, std::move(r)); });
        rpc->start();
        server = acp::ToolServer::create("editor").value();
        acp::Tool now;
        now.name = "current_selection";
        now.handler = [this](const acp::ToolCall&, acp::ToolResponder answer) {
            ++handled;
            answer.text("sel");
        };
        REQUIRE(server->add_tool(std::move(now)).ok());
        acp::Tool later;
        later.name = "slow";
        later.handler = [this](const acp::ToolCall&, acp::ToolResponder answer) {
            ++handled;
            held.push_back(answer);
        };
        REQUIRE(server->add_tool(std::move(later)).ok());
        endpoint = ToolEndpoint::create(server->impl(), ToolEndpoint::Mode::acp_binding, Logger());
        server_id = acp->add("editor", *endpoint, max_active);
    }
    ~Harness() { acp.reset(); }

    void send(int id, const std::string& params) {
        agent->send_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"mcp/message","params":)" +
                         params + "}");
    }
    void call(int id, const std::string& request_id, const std::string& tool, const std::string& to = "") {
        send(id, R"({"serverId":")" + (to.empty() ? server_id : to) + R"(","requestId":")" + request_id +
                     R"(","method":"tools/call","params":{"name":")" + tool + R"(","arguments":{},)" + kMeta + "}}");
    }
    // The answer to the agent's request `id`, once it came.
    std::optional<rapidjson::Document> answer(int id) {
        std::optional<rapidjson::Document> found;
        loop.run_until([&] {
            for (std::size_t i = 0; i < agent->lines.size(); ++i) {
                auto doc = agent->parsed(i);
                if (doc.IsObject() && doc.HasMember("id") && doc["id"].IsInt() && doc["id"].GetInt() == id &&
                    !doc.HasMember("method")) {
                    found.emplace();
                    found->CopyFrom(doc, found->GetAllocator());
                    return true;
                }
            }
            return false;
        });
        return found;
    }
};

int error_code(const rapidjson::Document& doc) { return doc.HasMember("error") ? doc["error"]["code"].GetInt() : 0; }

}  // namespace

TEST_CASE("mcp over acp: a tool call's answer is the inner result of a successful response") {
    Harness h;
    h.call(1, "r1", "current_selection");
    auto doc = h.answer(1);
    REQUIRE(doc);
    REQUIRE(doc->HasMember("result"));
    CHECK(std::string((*doc)["result"]["result"]["content"][0]["text"].GetString()) == "sel");
    CHECK(h.handled == 1);
}

TEST_CASE("mcp over acp: an inner MCP error travels in the result's error carrier") {
    Harness h;
    h.call(1, "r1", "no_such_tool");
    auto doc = h.answer(1);
    REQUIRE(doc);
    REQUIRE(doc->HasMember("result"));
    CHECK((*doc)["result"]["error"]["code"].GetInt() == -32602);
    // No metadata: the binding's inner -32602, still in the carrier.
    h.send(2, R"({"serverId":")" + h.server_id + R"(","requestId":"r2","method":"tools/list"})");
    doc = h.answer(2);
    REQUIRE(doc);
    CHECK((*doc)["result"]["error"]["code"].GetInt() == -32602);
}

TEST_CASE("mcp over acp: unknown server ids are -33001 and malformed envelopes -32602") {
    Harness h;
    h.call(1, "r1", "current_selection", "editor:nobody");
    auto doc = h.answer(1);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::server_unavailable);
    CHECK(std::string((*doc)["error"]["data"]["serverId"].GetString()) == "editor:nobody");
    const char* malformed[] = {R"({})",
                               R"({"serverId":1,"requestId":"a","method":"ping"})",
                               R"({"serverId":"x","requestId":2,"method":"ping"})",
                               R"({"serverId":"x","requestId":"a"})",
                               R"({"serverId":"x","requestId":"a","method":"ping","params":[1]})",
                               R"({"serverId":"x","requestId":"a","method":"ping","_meta":"m"})"};
    int id = 10;
    for (const char* params : malformed) {
        CAPTURE(params);
        h.send(++id, params);
        doc = h.answer(id);
        REQUIRE(doc);
        CHECK(error_code(*doc) == binding_code::invalid_params);
    }
    CHECK(h.handled == 0);
}

TEST_CASE("mcp over acp: a duplicate active requestId is -32602 and the active bound -33000") {
    Harness h(2);
    h.call(1, "a", "slow");
    h.call(2, "a", "slow");
    auto doc = h.answer(2);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::invalid_params);
    CHECK(std::string((*doc)["error"]["data"]["requestId"].GetString()) == "a");
    h.call(3, "b", "slow");
    h.call(4, "c", "slow");
    doc = h.answer(4);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::resource_limit_exceeded);
    CHECK(h.handled == 2);
    CHECK(h.acp->active_requests() == 2);
    // One ends: its slot and its requestId are free again.
    h.held[0].text("done");
    REQUIRE(h.answer(1));
    h.call(5, "a", "current_selection");
    doc = h.answer(5);
    REQUIRE(doc);
    CHECK(doc->HasMember("result"));
}

TEST_CASE("mcp over acp: a handler that throws is the outer -33002 with its message as details") {
    // As core.js's toOuterError: a handler failure that is no McpProtocolError is the
    // binding's backendFailed, never an inner error.
    Harness h;
    acp::Tool thrower;
    thrower.name = "throw";
    thrower.handler = [](const acp::ToolCall&, acp::ToolResponder) { throw std::runtime_error("boom"); };
    REQUIRE(h.server->add_tool(std::move(thrower)).ok());
    h.call(1, "r1", "throw");
    auto doc = h.answer(1);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::backend_failed);
    CHECK(std::string((*doc)["error"]["message"].GetString()) == "MCP server handler failed");
    CHECK(std::string((*doc)["error"]["data"]["details"].GetString()) == "boom");
    CHECK(h.acp->active_requests() == 0);
    CHECK(h.endpoint->calls_in_flight() == 0);
    // The request id is free again, and the server still answers.
    h.call(2, "r1", "current_selection");
    doc = h.answer(2);
    REQUIRE(doc);
    CHECK(std::string((*doc)["result"]["result"]["content"][0]["text"].GetString()) == "sel");
}

TEST_CASE("mcp over acp: $/cancel_request tells the handler and answers -32800") {
    Harness h;
    h.call(1, "a", "slow");
    REQUIRE(h.loop.run_until([&] { return h.held.size() == 1; }));
    bool told = false;
    h.held[0].on_cancelled([&] { told = true; });
    h.agent->send_line(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}})");
    auto doc = h.answer(1);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::request_cancelled);
    CHECK(told);
    CHECK(h.acp->active_requests() == 0);
}

TEST_CASE("mcp over acp: progress is an mcp/message notification of the active request only") {
    Harness h;
    h.send(1, R"({"serverId":")" + h.server_id +
                  R"(","requestId":"p","method":"tools/call","params":{"name":"slow",)"
                  R"("_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                  R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
    REQUIRE(h.loop.run_until([&] { return h.held.size() == 1; }));
    h.held[0].progress(0.5);
    REQUIRE(h.loop.run_until([&] { return !h.agent->lines.empty(); }));
    auto note = h.agent->parsed(0);
    CHECK(std::string(note["method"].GetString()) == "mcp/message");
    CHECK(!note.HasMember("id"));
    CHECK(std::string(note["params"]["serverId"].GetString()) == h.server_id);
    CHECK(std::string(note["params"]["requestId"].GetString()) == "p");
    CHECK(std::string(note["params"]["method"].GetString()) == "notifications/progress");
    CHECK(note["params"]["params"]["progressToken"].GetInt() == 7);
    h.held[0].text("done");
    REQUIRE(h.answer(1));
    const std::size_t lines = h.agent->lines.size();
    h.held[0].progress(1.0);  // after the answer: dropped
    h.loop.run_until([] { return false; }, std::chrono::milliseconds(20));
    CHECK(h.agent->lines.size() == lines);
}

TEST_CASE("mcp over acp: a disposed server cancels its requests (-32800) and refuses later ones (-33001)") {
    Harness h;
    h.call(1, "a", "slow");
    REQUIRE(h.loop.run_until([&] { return h.held.size() == 1; }));
    h.acp->remove(h.server_id);
    auto doc = h.answer(1);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::request_cancelled);
    CHECK(h.held[0].cancelled());
    h.call(2, "b", "current_selection");
    doc = h.answer(2);
    REQUIRE(doc);
    CHECK(error_code(*doc) == binding_code::server_unavailable);
    CHECK(h.handled == 1);
    // A new registration never gets the old id back.
    CHECK(h.acp->add("editor", *h.endpoint, 4) != h.server_id);
}
