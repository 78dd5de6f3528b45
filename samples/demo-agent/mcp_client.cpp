// SPDX-License-Identifier: Apache-2.0
#include "mcp_client.hpp"

#include <cstdio>
#include <utility>

#include "json_text.hpp"

namespace demo {

using acp::detail::find_member;
using acp::detail::JsonValue;
using acp::detail::string_view_of;

namespace {

std::string request_text(uint64_t id, const std::string& method, const std::string& params) {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":)" + quote(method) + R"(,"params":)" +
           params + "}";
}

}  // namespace

acp::Result<uint64_t> McpClient::request(const std::string& method, const std::string& params, Reply reply) {
    if (state_ == State::failed) return acp::Status(acp::Errc::connection_closed, failure_);
    const uint64_t id = next_id_++;
    replies_.emplace(id, std::move(reply));
    if (state_ == State::ready) {
        send(id, request_text(id, method, params));
    } else {
        queued_.push_back(Queued{id, request_text(id, method, params)});
        if (state_ == State::fresh) start_handshake();
    }
    return id;
}

void McpClient::cancel(uint64_t id) {
    if (replies_.erase(id) == 0) return;
    for (auto it = queued_.begin(); it != queued_.end(); ++it) {
        if (it->id == id) {
            queued_.erase(it);  // never sent: nothing to tell
            return;
        }
    }
    send(0, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" + std::to_string(id) +
                R"(,"reason":"the turn ended"}})");
    abandon(id);
}

// The newest revision this agent speaks; the server may answer with the older one.
void McpClient::start_handshake() {
    state_ = State::initializing;
    const uint64_t id = next_id_++;
    replies_.emplace(
        id, [this](const JsonValue* response, const std::string& failure) { on_initialized(response, failure); });
    send(id, request_text(id, "initialize",
                          R"({"protocolVersion":"2025-11-25","capabilities":{},)"
                          R"("clientInfo":{"name":"acp-demo-agent","version":"1"}})"));
}

void McpClient::on_initialized(const JsonValue* response, const std::string& failure) {
    if (response == nullptr) return fail_all("initialize failed: " + failure);
    const JsonValue* result = find_member(*response, "result");
    const JsonValue* version = result != nullptr ? find_member(*result, "protocolVersion") : nullptr;
    if (version == nullptr || !version->IsString()) {
        return fail_all("the server " + name_ + " refused initialize");
    }
    const std::string agreed(string_view_of(*version));
    if (agreed != "2025-11-25" && agreed != "2025-06-18") {
        // Quoted and cut: the server chose this text.
        return fail_all("the server " + name_ + " speaks MCP " + quote(agreed.substr(0, 40)));
    }
    protocol_version_ = agreed;
    send_initialized(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", [this] {
        if (state_ != State::initializing) return;
        state_ = State::ready;
        std::deque<Queued> queued;
        queued.swap(queued_);
        for (auto& request : queued) send(request.id, request.message);
    });
}

void McpClient::receive(std::string text) {
    const JsonValue* message = parser_.parse(text.data(), text.size());
    if (message == nullptr || !message->IsObject()) {
        if (!complained_) {  // once: a server could send nothing else
            std::fprintf(stderr, "acp-demo-agent: the MCP server %s sent something that is no JSON-RPC message\n",
                         name_.c_str());
        }
        complained_ = true;
        return;
    }
    const JsonValue* id = find_member(*message, "id");
    if (find_member(*message, "method") != nullptr) {
        // The server's own requests (sampling, roots, elicitation): nothing of that here.
        if (id == nullptr || !(id->IsString() || id->IsInt64())) return;  // a notification
        send(0, R"({"jsonrpc":"2.0","id":)" + acp::detail::to_json_text(*id) +
                    R"(,"error":{"code":-32601,"message":"the demo agent serves no requests"}})");
        return;
    }
    if (id == nullptr || !id->IsUint64()) return;
    auto it = replies_.find(id->GetUint64());
    if (it == replies_.end()) return;  // answered, cancelled or never asked
    Reply reply = std::move(it->second);
    replies_.erase(it);
    reply(message, {});
}

void McpClient::fail(uint64_t id, const std::string& why) {
    auto it = replies_.find(id);
    if (it == replies_.end()) return;
    Reply reply = std::move(it->second);
    replies_.erase(it);
    reply(nullptr, why);
}

void McpClient::fail_all(const std::string& why) {
    if (state_ == State::failed) return;
    state_ = State::failed;
    failure_ = why;
    queued_.clear();
    std::map<uint64_t, Reply> replies;
    replies.swap(replies_);
    for (auto& [id, reply] : replies) reply(nullptr, why);
}

}  // namespace demo
