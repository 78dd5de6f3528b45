// SPDX-License-Identifier: Apache-2.0
// The MCP server logic behind a host's tool servers (lib/tools/tool_endpoint), driven
// message by message as an agent would, through a peer that records what it is sent.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <memory>
#include <string>
#include <vector>

#include "acp/tools.hpp"
#include "tools/json_schema.hpp"
#include "tools/tool_endpoint.hpp"

using namespace acp::detail::tools;
using acp::RawJson;

namespace {

struct RecordingPeer : McpPeer {
    std::vector<std::string> sent;
    void send(std::string message, std::string_view) override { sent.push_back(std::move(message)); }
    std::string describe() const override { return "test peer"; }

    rapidjson::Document last() const {
        rapidjson::Document doc;
        doc.Parse(sent.back().c_str());
        return doc;
    }
    int last_error_code() const {
        auto doc = last();
        return doc.HasMember("error") ? doc["error"]["code"].GetInt() : 0;
    }
    std::string last_error_message() const {
        auto doc = last();
        return doc.HasMember("error") ? doc["error"]["message"].GetString() : "";
    }
};

struct Fixture {
    std::shared_ptr<acp::ToolServer> server;
    std::shared_ptr<ToolEndpoint> endpoint;
    RecordingPeer peer;
    int handled = 0;
    std::vector<acp::ToolResponder> held;  // answers kept for later
    std::vector<std::string> arguments;
    std::vector<std::string> log;

    explicit Fixture(ToolEndpoint::Mode mode = ToolEndpoint::Mode::session, acp::ToolServerOptions options = {}) {
        server = acp::ToolServer::create("editor", options).value();
        acp::Tool selection;
        selection.name = "current_selection";
        selection.handler = [this](const acp::ToolCall& call, acp::ToolResponder answer) {
            ++handled;
            arguments.push_back(call.arguments.text);
            answer.text("int main()");
        };
        REQUIRE(server->add_tool(std::move(selection)).ok());
        acp::Tool open;
        open.name = "open_file";
        open.input_schema =
            RawJson{R"({"type":"object","properties":{"path":{"type":"string","minLength":1,"maxLength":16},)"
                    R"("line":{"type":"integer","minimum":1},"mode":{"enum":["view","edit"]},)"
                    R"("tags":{"type":"array","items":{"type":"string"},"maxItems":2}},)"
                    R"("required":["path"],"additionalProperties":false})"};
        open.handler = [this](const acp::ToolCall& call, acp::ToolResponder answer) {
            ++handled;
            arguments.push_back(call.arguments.text);
            held.push_back(answer);
        };
        REQUIRE(server->add_tool(std::move(open)).ok());
        endpoint =
            ToolEndpoint::create(server->impl(), mode,
                                 acp::detail::Logger([this](const acp::LogRecord& r) { log.emplace_back(r.message); }));
    }

    void call(int id, const std::string& tool, const std::string& arguments_json, const std::string& meta = "") {
        endpoint->on_mcp_message(peer, R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                                           R"(,"method":"tools/call","params":{"name":")" + tool + R"(","arguments":)" +
                                           arguments_json + (meta.empty() ? "" : ",\"_meta\":" + meta) + "}}");
    }
};

}  // namespace

TEST_CASE("tools: initialize answers the revision asked for when supported, else the newest") {
    Fixture f;
    for (const char* revision : {"2025-06-18", "2025-11-25", "2026-07-28"}) {
        f.endpoint->on_mcp_message(f.peer, std::string(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)"
                                                       R"({"protocolVersion":")") +
                                               revision +
                                               R"(","capabilities":{},"clientInfo":{"name":"a","version":"1"}}})");
        auto doc = f.peer.last();
        CHECK(std::string(doc["result"]["protocolVersion"].GetString()) == revision);
        CHECK(std::string(doc["result"]["serverInfo"]["name"].GetString()) == "editor");
        CHECK(doc["result"]["capabilities"]["tools"].IsObject());
    }
    f.endpoint->on_mcp_message(
        f.peer, R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})");
    CHECK(std::string(f.peer.last()["result"]["protocolVersion"].GetString()) == "2026-07-28");
    f.endpoint->on_mcp_message(f.peer, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    f.endpoint->on_mcp_message(f.peer, R"({"jsonrpc":"2.0","id":"p","method":"ping"})");
    CHECK(f.peer.sent.back() == R"({"jsonrpc":"2.0","id":"p","result":{}})");
}

TEST_CASE("tools: tools/list lists every tool with its input schema") {
    Fixture f;
    f.endpoint->on_mcp_message(f.peer, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    auto doc = f.peer.last();
    REQUIRE(doc["result"]["tools"].Size() == 2);
    CHECK(std::string(doc["result"]["tools"][0]["name"].GetString()) == "current_selection");
    CHECK(std::string(doc["result"]["tools"][0]["inputSchema"]["type"].GetString()) == "object");
    CHECK(doc["result"]["tools"][1]["inputSchema"]["required"][0] == "path");
}

TEST_CASE("tools: a valid call reaches the handler and its answer is the result") {
    Fixture f;
    f.call(7, "current_selection", "{}");
    CHECK(f.handled == 1);
    CHECK(f.peer.sent.back() ==
          R"j({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"int main()"}]}})j");
    f.call(8, "open_file", R"({"path":"a.c","line":3,"mode":"edit","tags":["x"]})");
    REQUIRE(f.held.size() == 1);
    CHECK(f.arguments.back() == R"({"path":"a.c","line":3,"mode":"edit","tags":["x"]})");
    CHECK(f.endpoint->calls_in_flight() == 1);
    REQUIRE(f.held[0].structured(RawJson{R"({"opened":true})"}).ok());
    auto doc = f.peer.last();
    CHECK(doc["result"]["structuredContent"]["opened"].GetBool());
    CHECK(f.endpoint->calls_in_flight() == 0);
    f.held[0].text("again");  // a second answer is ignored
    CHECK(f.peer.sent.size() == 2);
}

TEST_CASE("tools: arguments that break the input schema are an MCP error and the handler is not called") {
    Fixture f;
    const char* bad[] = {
        R"({})",                                    // required path missing
        R"({"path":7})",                            // wrong type
        R"({"path":""})",                           // minLength
        R"({"path":"aaaaaaaaaaaaaaaaaaaaaaaaa"})",  // maxLength
        R"({"path":"a","line":0})",                 // minimum
        R"({"path":"a","line":1.5})",               // not an integer
        R"({"path":"a","mode":"delete"})",          // enum
        R"({"path":"a","tags":["x",1]})",           // items
        R"({"path":"a","tags":["x","y","z"]})",     // maxItems
        R"({"path":"a","other":true})",             // additionalProperties false
        R"([1,2])",                                 // not an object
    };
    int id = 0;
    for (const char* arguments : bad) {
        CAPTURE(arguments);
        f.call(++id, "open_file", arguments);
        CHECK(f.peer.last_error_code() == -32602);
    }
    CHECK(f.handled == 0);
    f.call(++id, "no_such_tool", "{}");
    CHECK(f.peer.last_error_code() == -32602);
    CHECK(f.peer.last_error_message().find("Unknown tool") != std::string::npos);
    CHECK(f.handled == 0);
}

TEST_CASE("tools: 10 MB of arguments are refused unparsed, the handler not called, logged once") {
    Fixture f;
    const std::string big(10u * 1024u * 1024u, 'a');
    f.call(1, "open_file", R"({"path":")" + big + R"("})");
    CHECK(f.peer.last_error_code() == -32602);
    f.call(2, "current_selection", R"({"x":")" + big + R"("})");
    CHECK(f.peer.last_error_code() == -32602);
    CHECK(f.handled == 0);
    CHECK(f.log.size() == 1);
}

TEST_CASE("tools: 10000 concurrent calls: the bound holds and the rest are errors") {
    acp::ToolServerOptions options;
    options.max_concurrent_calls = 64;
    Fixture f(ToolEndpoint::Mode::session, options);
    int refused = 0;
    for (int i = 0; i < 10000; ++i) {
        f.call(i, "open_file", R"({"path":"a"})");
        if (!f.peer.sent.empty() && f.peer.last_error_code() == -32000) ++refused;
        f.peer.sent.clear();  // the recorder itself stays small
    }
    CHECK(f.handled == 64);
    CHECK(refused == 10000 - 64);
    CHECK(f.endpoint->calls_in_flight() == 64);
    // Answering frees a slot.
    f.held[0].text("done");
    f.held.erase(f.held.begin());
    f.call(20000, "open_file", R"({"path":"a"})");
    CHECK(f.handled == 65);
}

TEST_CASE("tools: notifications/cancelled reaches the handler and nothing is sent for the call afterwards") {
    Fixture f;
    f.call(5, "open_file", R"({"path":"a"})");
    REQUIRE(f.held.size() == 1);
    bool told = false;
    f.held[0].on_cancelled([&] { told = true; });
    const std::size_t before = f.peer.sent.size();
    f.endpoint->on_mcp_message(
        f.peer, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"x"}})");
    CHECK(told);
    CHECK(f.held[0].cancelled());
    f.held[0].text("late");
    CHECK(f.peer.sent.size() == before);
    CHECK(f.endpoint->calls_in_flight() == 0);
}

TEST_CASE("tools: progress goes out for a call that asked for it, before its answer") {
    Fixture f;
    f.call(3, "open_file", R"({"path":"a"})", R"({"progressToken":"tok"})");
    f.held[0].progress(1, 4, "reading");
    auto doc = f.peer.last();
    CHECK(std::string(doc["method"].GetString()) == "notifications/progress");
    CHECK(std::string(doc["params"]["progressToken"].GetString()) == "tok");
    CHECK(doc["params"]["total"].GetDouble() == 4);
    f.call(4, "open_file", R"({"path":"b"})");  // no token: no progress
    const std::size_t before = f.peer.sent.size();
    f.held[1].progress(1);
    CHECK(f.peer.sent.size() == before);
}

TEST_CASE("tools: after close, calls in flight are cancelled and new ones refused without the handler") {
    Fixture f;
    f.call(1, "open_file", R"({"path":"a"})");
    bool told = false;
    f.held[0].on_cancelled([&] { told = true; });
    f.endpoint->close();
    CHECK(told);
    f.call(2, "current_selection", "{}");
    CHECK(f.peer.last_error_code() == -32000);
    CHECK(f.handled == 1);
}

TEST_CASE("tools: a closed peer cancels its calls only") {
    Fixture f;
    RecordingPeer other;
    f.call(1, "open_file", R"({"path":"a"})");
    f.endpoint->on_mcp_message(
        other,
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open_file","arguments":{"path":"b"}}})");
    REQUIRE(f.held.size() == 2);
    f.endpoint->on_mcp_peer_closed(f.peer);
    CHECK(f.held[0].cancelled());
    CHECK_FALSE(f.held[1].cancelled());
    f.held[1].text("ok");
    CHECK(other.sent.size() == 1);
}

TEST_CASE("tools: a dropped responder answers an internal error and so does a throwing handler") {
    auto server = acp::ToolServer::create("s").value();
    acp::Tool drop;
    drop.name = "drop";
    drop.handler = [](const acp::ToolCall&, acp::ToolResponder) {};
    REQUIRE(server->add_tool(std::move(drop)).ok());
    acp::Tool thrower;
    thrower.name = "throw";
    thrower.handler = [](const acp::ToolCall&, acp::ToolResponder) { throw std::runtime_error("boom"); };
    REQUIRE(server->add_tool(std::move(thrower)).ok());
    auto endpoint = ToolEndpoint::create(server->impl(), ToolEndpoint::Mode::session, acp::detail::Logger());
    RecordingPeer peer;
    endpoint->on_mcp_message(peer, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"drop"}})");
    CHECK(peer.last_error_code() == -32603);
    endpoint->on_mcp_message(peer, R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"throw"}})");
    CHECK(peer.last_error_code() == -32603);
    CHECK(endpoint->calls_in_flight() == 0);
}

TEST_CASE("tools: malformed messages get JSON-RPC errors, never a crash") {
    Fixture f;
    f.endpoint->on_mcp_message(f.peer, "not json");
    CHECK(f.peer.last_error_code() == -32700);
    f.endpoint->on_mcp_message(f.peer, "[1]");
    CHECK(f.peer.last_error_code() == -32600);
    f.endpoint->on_mcp_message(f.peer, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]})");
    CHECK(f.peer.last_error_code() == -32600);
    f.endpoint->on_mcp_message(f.peer, R"({"jsonrpc":"2.0","id":2,"method":"resources/list"})");
    CHECK(f.peer.last_error_code() == -32601);
    f.endpoint->on_mcp_message(f.peer, std::string(100000, '['));
    CHECK(f.peer.last_error_code() == -32700);
    CHECK(f.handled == 0);
}

TEST_CASE("tools: over ACP every request needs MCP 2026-07-28's metadata, as the TS SDK binding checks") {
    Fixture f(ToolEndpoint::Mode::acp_binding);
    f.call(1, "current_selection", "{}");
    CHECK(f.peer.last_error_code() == -32602);
    CHECK(f.peer.last_error_message() ==
          "Invalid params: missing io.modelcontextprotocol/protocolVersion in params._meta");
    f.call(2, "current_selection", "{}", R"({"io.modelcontextprotocol/protocolVersion":"2025-06-18"})");
    CHECK(f.peer.last_error_code() == -32022);
    CHECK(std::string(f.peer.last()["error"]["data"]["requested"].GetString()) == "2025-06-18");
    f.call(3, "current_selection", "{}", R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28"})");
    CHECK(f.peer.last_error_message() ==
          "Invalid params: missing io.modelcontextprotocol/clientCapabilities in params._meta");
    CHECK(f.handled == 0);
    f.call(
        4, "current_selection", "{}",
        R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}})");
    CHECK(f.handled == 1);
}

TEST_CASE("tools: ToolServer refuses bad tools and keeps nothing of them") {
    auto server = acp::ToolServer::create("s").value();
    acp::Tool tool;
    tool.name = "bad name";
    tool.handler = [](const acp::ToolCall&, acp::ToolResponder) {};
    CHECK_FALSE(server->add_tool(tool).ok());
    tool.name = "ok";
    tool.input_schema = RawJson{"[1]"};
    CHECK_FALSE(server->add_tool(tool).ok());
    tool.input_schema = RawJson{};
    tool.handler = nullptr;
    CHECK_FALSE(server->add_tool(tool).ok());
    tool.handler = [](const acp::ToolCall&, acp::ToolResponder) {};
    CHECK(server->add_tool(tool).ok());
    CHECK_FALSE(server->add_tool(tool).ok());  // duplicate
    CHECK(server->tool_count() == 1);
    CHECK_FALSE(acp::ToolServer::create("").ok());
}
