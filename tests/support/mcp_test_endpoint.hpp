// SPDX-License-Identifier: Apache-2.0
// A small MCP server for driving the carriers (lib/tools/) without the real tool server:
// initialize, ping, tools/list with one `echo` tool, tools/call answering with the text it
// was given. A call that asks for progress gets one notifications/progress first, and with
// `deferred` set every answer goes out a loop turn later (the carrier must hold the
// request open). Tool `hang` is never answered; tool `close` runs on_close (a test closes
// the carrier from inside the endpoint's call with it). It counts what it saw.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <uv.h>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/uv_handle.hpp"
#include "tools/mcp_carrier.hpp"

namespace acp::test {

class McpTestEndpoint : public acp::detail::tools::McpEndpoint {
public:
    using McpPeer = acp::detail::tools::McpPeer;

    explicit McpTestEndpoint(uv_loop_t* loop, bool deferred = false) : deferred_(deferred), timer_(new uv_timer_t) {
        uv_timer_init(loop, timer_.get());
        timer_->data = this;
    }
    McpTestEndpoint(const McpTestEndpoint&) = delete;
    McpTestEndpoint& operator=(const McpTestEndpoint&) = delete;

    void on_mcp_message(McpPeer& from, std::string_view message) override {
        ++messages;
        last_message.assign(message);
        open_peers.insert(&from);
        max_open_peers = std::max(max_open_peers, open_peers.size());
        rapidjson::Document document;
        document.Parse(message.data(), message.size());
        if (document.HasParseError() || !document.IsObject() || !document.HasMember("method")) return;
        const std::string method = document["method"].GetString();
        methods.push_back(method);
        if (!document.HasMember("id")) return;  // a notification
        const std::string id = text_of(document["id"]);
        if (method == "initialize") {
            std::string version = "2025-06-18";
            if (document.HasMember("params") && document["params"].HasMember("protocolVersion")) {
                version = document["params"]["protocolVersion"].GetString();
            }
            answer(from, id,
                   R"({"protocolVersion":")" + version +
                       R"(","capabilities":{"tools":{}},"serverInfo":{"name":"test","version":"1.0.0"}})");
        } else if (method == "ping") {
            answer(from, id, "{}");
        } else if (method == "tools/list") {
            answer(from, id,
                   R"({"tools":[{"name":"echo","description":"Echoes its text","inputSchema":{"type":"object",)"
                   R"("properties":{"text":{"type":"string"}},"required":["text"]}}]})");
        } else if (method == "tools/call") {
            const auto& params = document["params"];
            const std::string tool = params["name"].GetString();
            if (tool == "hang") return;
            if (tool == "close") {
                if (on_close) on_close();
                return;
            }
            if (params.HasMember("_meta") && params["_meta"].HasMember("progressToken")) {
                later(from,
                      R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":)" +
                          text_of(params["_meta"]["progressToken"]) + R"(,"progress":1,"total":2}})",
                      id);
            }
            answer(from, id, R"({"content":[{"type":"text","text":)" + text_of(params["arguments"]["text"]) + "}]}");
        } else {
            later(from, R"({"jsonrpc":"2.0","id":)" + id + R"(,"error":{"code":-32601,"message":"no such method"}})",
                  id);
        }
    }

    void on_mcp_peer_closed(McpPeer& from) override {
        ++closed_peers;
        open_peers.erase(&from);
        std::vector<Outgoing> kept;
        for (auto& out : queue_) {
            if (out.to != &from) kept.push_back(std::move(out));
        }
        queue_ = std::move(kept);
    }

    bool deferred_;
    int messages = 0;
    int closed_peers = 0;
    std::set<McpPeer*> open_peers;
    std::size_t max_open_peers = 0;
    std::vector<std::string> methods;
    std::string last_message;
    std::function<void()> on_close;

private:
    struct Outgoing {
        McpPeer* to;
        std::string message;
        std::string in_reply_to;
    };

    static std::string text_of(const rapidjson::Value& value) {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
        value.Accept(writer);
        return std::string(buffer.GetString(), buffer.GetSize());
    }

    void answer(McpPeer& to, const std::string& id, const std::string& result) {
        later(to, R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":)" + result + "}", id);
    }

    void later(McpPeer& to, std::string message, const std::string& in_reply_to) {
        if (!deferred_) {
            to.send(std::move(message), in_reply_to);
            return;
        }
        queue_.push_back({&to, std::move(message), in_reply_to});
        uv_timer_start(
            timer_.get(), [](uv_timer_t* timer) { static_cast<McpTestEndpoint*>(timer->data)->flush(); }, 1, 0);
    }

    void flush() {
        std::vector<Outgoing> due = std::move(queue_);
        queue_.clear();
        for (auto& out : due) out.to->send(std::move(out.message), out.in_reply_to);
    }

    acp::detail::UvHandlePtr<uv_timer_t> timer_;
    std::vector<Outgoing> queue_;
};

}  // namespace acp::test
