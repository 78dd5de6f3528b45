// SPDX-License-Identifier: Apache-2.0
#include "tools/acp_carrier.hpp"

#include <uv.h>

#include <cstdio>
#include <utility>
#include <vector>

namespace acp::detail::tools {

namespace {

// An opaque id nobody can guess or that collides with an earlier one on this connection:
// the server's name, a random part and a serial.
std::string fresh_server_id(const std::string& name, uint64_t serial) {
    unsigned char bytes[8] = {};
    if (uv_random(nullptr, nullptr, bytes, sizeof bytes, 0, nullptr) != 0) {
        // No randomness: the serial alone still keeps ids unique per connection.
    }
    char hex[2 * sizeof bytes + 1];
    for (std::size_t i = 0; i < sizeof bytes; ++i) std::snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    return name + ":" + hex + "-" + std::to_string(serial);
}

const JsonValue* optional_object(const JsonValue* params, std::string_view key, bool& malformed) {
    const JsonValue* value = find_member(*params, key);
    if (value == nullptr || value->IsNull()) return nullptr;
    if (!value->IsObject()) malformed = true;
    return value;
}

}  // namespace

// One active mcp/message request: what the endpoint answers goes back on its response.
class McpOverAcp::RequestPeer final : public McpPeer, public std::enable_shared_from_this<RequestPeer> {
public:
    RequestPeer(McpOverAcp& owner, std::string server_id, std::string request_id, Responder responder)
        : owner_(owner),
          server_id_(std::move(server_id)),
          request_id_(std::move(request_id)),
          responder_(std::move(responder)) {}

    void send(std::string message, std::string_view) override {
        if (done_) return;
        rapidjson::Document document;
        document.Parse(message.data(), message.size());
        if (document.HasParseError() || !document.IsObject()) return;
        const JsonValue* method = find_member(document, "method");
        if (method != nullptr && find_member(document, "id") == nullptr) {
            const JsonValue* params = find_member(document, "params");
            owner_.rpc_.send_notification(kMcpMessageMethod, [&](JsonWriter& w) {
                w.StartObject();
                w.Key("serverId");
                write_string(w, server_id_);
                w.Key("requestId");
                write_string(w, request_id_);
                w.Key("method");
                write_string(w, string_view_of(*method));
                if (params != nullptr) {
                    w.Key("params");
                    params->Accept(w);
                }
                w.EndObject();
            });
            return;
        }
        const JsonValue* result = find_member(document, "result");
        const JsonValue* error = find_member(document, "error");
        if (result == nullptr && error == nullptr) return;
        auto keep_alive = shared_from_this();
        finish();
        responder_.respond([&](JsonWriter& w) {
            w.StartObject();
            w.Key(result != nullptr ? "result" : "error");
            (result != nullptr ? result : error)->Accept(w);
            w.EndObject();
        });
    }

    std::string describe() const override { return "MCP over ACP (serverId " + server_id_ + ")"; }

    // As the TS SDK's binding answers a handler that threw (core.js toOuterError): the
    // outer -33002 with the failure's message as data.details.
    bool fail_backend(std::string_view, std::string_view details) override {
        if (done_) return true;
        auto keep_alive = shared_from_this();
        finish();
        responder_.fail(binding_code::backend_failed, "MCP server handler failed", [&](JsonWriter& w) {
            w.StartObject();
            w.Key("details");
            write_string(w, details);
            w.EndObject();
        });
        return true;
    }

    // The request ends without the endpoint's answer: cancelled, disposed, connection gone.
    void cancel(McpEndpoint& endpoint) {
        if (done_) return;
        auto keep_alive = shared_from_this();
        finish();
        endpoint.on_mcp_peer_closed(*this);
        responder_.fail(binding_code::request_cancelled, "Request cancelled");
    }

    const Responder& responder() const { return responder_; }

private:
    void finish() {
        done_ = true;
        auto it = owner_.servers_.find(server_id_);
        if (it != owner_.servers_.end()) it->second->active.erase(request_id_);
    }

    McpOverAcp& owner_;
    std::string server_id_;
    std::string request_id_;
    Responder responder_;
    bool done_ = false;
};

McpOverAcp::~McpOverAcp() { clear(); }

std::string McpOverAcp::add(const std::string& name, McpEndpoint& endpoint, std::size_t max_active) {
    std::string id = fresh_server_id(name, ++next_id_);
    auto registration = std::make_unique<Registration>();
    registration->name = name;
    registration->endpoint = &endpoint;
    registration->max_active = max_active == 0 ? 1 : max_active;
    servers_[id] = std::move(registration);
    return id;
}

void McpOverAcp::cancel_all(Registration& registration) {
    std::vector<std::shared_ptr<RequestPeer>> active;
    for (auto& entry : registration.active) active.push_back(entry.second);
    for (auto& peer : active) peer->cancel(*registration.endpoint);
}

void McpOverAcp::remove(const std::string& server_id) {
    auto it = servers_.find(server_id);
    if (it == servers_.end()) return;
    std::unique_ptr<Registration> registration = std::move(it->second);
    servers_.erase(it);
    cancel_all(*registration);
}

void McpOverAcp::clear() {
    while (!servers_.empty()) remove(servers_.begin()->first);
}

std::size_t McpOverAcp::active_requests() const {
    std::size_t count = 0;
    for (const auto& entry : servers_) count += entry.second->active.size();
    return count;
}

void McpOverAcp::on_request(const JsonValue* params, Responder responder) {
    // The envelope first (MessageMcpRequest): anything malformed is the outer -32602.
    const JsonValue* server_id = params ? find_member(*params, "serverId") : nullptr;
    const JsonValue* request_id = params ? find_member(*params, "requestId") : nullptr;
    const JsonValue* method = params ? find_member(*params, "method") : nullptr;
    bool malformed = params == nullptr || !params->IsObject() || server_id == nullptr || !server_id->IsString() ||
                     request_id == nullptr || !request_id->IsString() || method == nullptr || !method->IsString();
    const JsonValue* inner_params = malformed ? nullptr : optional_object(params, "params", malformed);
    if (!malformed) optional_object(params, "_meta", malformed);
    if (malformed) {
        return responder.fail(binding_code::invalid_params,
                              "Invalid params: mcp/message needs serverId, requestId and method strings, "
                              "params and _meta objects");
    }
    const std::string server(string_view_of(*server_id));
    const std::string request(string_view_of(*request_id));
    auto quoted = [](std::string_view text) {
        rapidjson::StringBuffer buffer;
        JsonWriter w(buffer);
        write_string(w, text);
        return std::string(buffer.GetString(), buffer.GetSize());
    };
    auto it = servers_.find(server);
    if (it == servers_.end()) {
        const std::string data = R"({"serverId":)" + quoted(server) + "}";
        return responder.fail(binding_code::server_unavailable, "MCP server registration unavailable",
                              [&](JsonWriter& w) { write_raw_json(w, data, rapidjson::kObjectType); });
    }
    Registration& registration = *it->second;
    if (registration.active.count(request) != 0) {
        const std::string data = R"({"serverId":)" + quoted(server) + R"(,"requestId":)" + quoted(request) + "}";
        return responder.fail(binding_code::invalid_params, "Invalid params: duplicate active MCP request ID",
                              [&](JsonWriter& w) { write_raw_json(w, data, rapidjson::kObjectType); });
    }
    if (registration.active.size() >= registration.max_active) {
        const std::string data = R"({"serverId":)" + quoted(server) + "}";
        return responder.fail(binding_code::resource_limit_exceeded, "MCP-over-ACP active request limit exceeded",
                              [&](JsonWriter& w) { write_raw_json(w, data, rapidjson::kObjectType); });
    }

    auto peer = std::make_shared<RequestPeer>(*this, server, request, responder);
    registration.active[request] = peer;
    McpEndpoint* endpoint = registration.endpoint;
    std::weak_ptr<RequestPeer> weak = peer;
    responder.on_cancel([weak, endpoint] {
        if (auto p = weak.lock()) p->cancel(*endpoint);
    });

    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    w.Key("jsonrpc");
    w.String("2.0");
    w.Key("id");
    write_string(w, request);
    w.Key("method");
    write_string(w, string_view_of(*method));
    if (inner_params != nullptr) {
        w.Key("params");
        inner_params->Accept(w);
    }
    w.EndObject();
    endpoint->on_mcp_message(*peer, std::string_view(buffer.GetString(), buffer.GetSize()));
}

}  // namespace acp::detail::tools
