// SPDX-License-Identifier: Apache-2.0
#include "tools/tool_endpoint.hpp"

#include <rapidjson/stringbuffer.h>

#include <exception>
#include <utility>
#include <vector>

#include "acp/version.hpp"
#include "jsonrpc/envelope_peek.hpp"

namespace acp::detail::tools {

namespace {

namespace code {
constexpr int parse_error = -32700;
constexpr int invalid_request = -32600;
constexpr int method_not_found = -32601;
constexpr int invalid_params = -32602;
constexpr int internal_error = -32603;
constexpr int unsupported_version = -32022;  // what the MCP-over-ACP binding answers
constexpr int server_busy = -32000;
}  // namespace code

// Oldest first; an initialize asking for another gets the newest.
constexpr std::string_view kRevisions[] = {"2025-06-18", "2025-11-25", "2026-07-28"};

bool supported_revision(std::string_view revision) {
    for (auto known : kRevisions) {
        if (known == revision) return true;
    }
    return false;
}

std::string quote(std::string_view text) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    write_string(writer, text);
    return std::string(buffer.GetString(), buffer.GetSize());
}

template <class Body>
std::string envelope(Body&& body) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartObject();
    writer.Key("jsonrpc");
    writer.String("2.0");
    body(writer);
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::shared_ptr<ToolEndpoint> ToolEndpoint::create(std::shared_ptr<ToolServer::Impl> server, Mode mode, Logger logger) {
    return std::shared_ptr<ToolEndpoint>(new ToolEndpoint(std::move(server), mode, std::move(logger)));
}

ToolEndpoint::~ToolEndpoint() { close(false); }

void ToolEndpoint::log(LogLevel level, std::string_view message) const {
    logger_(level, log_source::client, "tool server '" + server_->name + "': " + std::string(message));
}

void ToolEndpoint::respond(McpPeer& to, const RequestId& id, std::string_view result_json) {
    to.send(envelope([&](JsonWriter& w) {
                w.Key("id");
                id.write(w);
                w.Key("result");
                write_raw_json(w, result_json, rapidjson::kObjectType);
            }),
            id.to_string());
}

void ToolEndpoint::respond_error(McpPeer& to, const std::optional<RequestId>& id, int error_code,
                                 std::string_view message, std::string_view data_json) {
    to.send(envelope([&](JsonWriter& w) {
                w.Key("id");
                if (id) {
                    id->write(w);
                } else {
                    w.Null();
                }
                w.Key("error");
                w.StartObject();
                w.Key("code");
                w.Int(error_code);
                w.Key("message");
                write_string(w, message);
                if (!data_json.empty()) {
                    w.Key("data");
                    write_raw_json(w, data_json, rapidjson::kObjectType);
                }
                w.EndObject();
            }),
            id ? id->to_string() : std::string());
}

void ToolEndpoint::on_mcp_message(McpPeer& from, std::string_view message) {
    auto keep_alive = shared_from_this();
    if (message.size() > server_->options.max_message_bytes) {
        // Not parsed at all: the head says whom to refuse.
        const EnvelopePeek peek = peek_envelope(message.substr(0, 4096));
        if (!told_oversized_) {
            told_oversized_ = true;
            log(LogLevel::warning, "refused a message of " + std::to_string(message.size()) + " bytes from " +
                                       from.describe() + " (ToolServerOptions::max_message_bytes is " +
                                       std::to_string(server_->options.max_message_bytes) + "; logged once)");
        }
        if (peek.looks_like_request()) {
            respond_error(from, peek.id, code::invalid_params,
                          "the message is larger than the server takes (" +
                              std::to_string(server_->options.max_message_bytes) + " bytes)");
        }
        return;
    }
    buffer_.assign(message.data(), message.size());
    const JsonValue* parsed = parser_.parse(buffer_.data(), buffer_.size());
    if (parsed == nullptr) return respond_error(from, std::nullopt, code::parse_error, "Parse error");
    if (!parsed->IsObject()) {
        return respond_error(from, std::nullopt, code::invalid_request, "Invalid Request: not a JSON-RPC object");
    }
    const JsonValue* method = find_member(*parsed, "method");
    const JsonValue* id_value = find_member(*parsed, "id");
    const JsonValue* params = find_member(*parsed, "params");
    if (params != nullptr && params->IsNull()) params = nullptr;
    if (method == nullptr) return;  // a response: this server sends no requests
    std::optional<RequestId> id = id_value ? RequestId::from_json(*id_value) : std::nullopt;
    if (!method->IsString() || (id_value != nullptr && !id) || (params != nullptr && !params->IsObject())) {
        if (id_value == nullptr) return;  // an invalid notification is not answered
        return respond_error(from, id, code::invalid_request, "Invalid Request");
    }
    if (!id) return handle_notification(from, string_view_of(*method), params);
    handle_request(from, *id, string_view_of(*method), params);
}

void ToolEndpoint::handle_request(McpPeer& from, const RequestId& id, std::string_view method,
                                  const JsonValue* params) {
    if (closed_) return respond_error(from, id, code::server_busy, "the tool server was closed with its session");
    const JsonValue* meta = params ? find_member(*params, "_meta") : nullptr;
    if (meta != nullptr && !meta->IsObject()) meta = nullptr;
    if (mode_ == Mode::acp_binding) {
        // MCP 2026-07-28 over ACP: each request says its revision and capabilities.
        const JsonValue* revision = meta ? find_member(*meta, kMetaProtocolVersion) : nullptr;
        const JsonValue* capabilities = meta ? find_member(*meta, kMetaClientCapabilities) : nullptr;
        if (revision == nullptr || !revision->IsString()) {
            return respond_error(from, id, code::invalid_params,
                                 "Invalid params: missing " + std::string(kMetaProtocolVersion) + " in params._meta");
        }
        if (string_view_of(*revision) != kMcpBindingRevision) {
            return respond_error(from, id, code::unsupported_version, "Unsupported protocol version",
                                 R"({"supported":[")" + std::string(kMcpBindingRevision) + R"("],"requested":)" +
                                     quote(string_view_of(*revision)) + "}");
        }
        if (capabilities == nullptr || !capabilities->IsObject()) {
            return respond_error(
                from, id, code::invalid_params,
                "Invalid params: missing " + std::string(kMetaClientCapabilities) + " in params._meta");
        }
    }
    const std::string server_info =
        R"({"name":)" + quote(server_->name) + R"(,"version":)" + quote(server_->options.version) + "}";
    if (method == "tools/call") return call_tool(from, id, params);
    if (method == "tools/list") {
        std::string result = R"({"tools":[)";
        for (std::size_t i = 0; i < server_->tools.size(); ++i) {
            if (i != 0) result += ',';
            result += server_->tools[i]->listing;
        }
        return respond(from, id, result + "]}");
    }
    if (method == "ping") return respond(from, id, "{}");
    if (method == "initialize") {
        const JsonValue* asked = params ? find_member(*params, "protocolVersion") : nullptr;
        std::string_view revision = std::end(kRevisions)[-1];
        if (asked != nullptr && asked->IsString() && supported_revision(string_view_of(*asked))) {
            revision = string_view_of(*asked);
        }
        return respond(from, id,
                       R"({"protocolVersion":)" + quote(revision) +
                           R"(,"capabilities":{"tools":{"listChanged":false}},"serverInfo":)" + server_info + "}");
    }
    if (method == "server/discover") {
        std::string versions;
        for (auto known : kRevisions) versions += (versions.empty() ? "" : ",") + quote(known);
        return respond(from, id,
                       R"({"supportedVersions":[)" + versions +
                           R"(],"capabilities":{"tools":{"listChanged":false}},"serverInfo":)" + server_info + "}");
    }
    respond_error(from, id, code::method_not_found, "Method not found: " + std::string(method));
}

void ToolEndpoint::handle_notification(McpPeer& from, std::string_view method, const JsonValue* params) {
    if (method != "notifications/cancelled" || params == nullptr) return;  // initialized, roots, ...: nothing to do
    const JsonValue* request = find_member(*params, "requestId");
    std::optional<RequestId> id = request ? RequestId::from_json(*request) : std::nullopt;
    if (!id) return;
    for (const auto& [serial, call] : calls_) {
        if (call.peer == &from && call.id == *id) return cancel(serial);
    }
}

void ToolEndpoint::call_tool(McpPeer& from, const RequestId& id, const JsonValue* params) {
    const JsonValue* name = params ? find_member(*params, "name") : nullptr;
    if (name == nullptr || !name->IsString()) {
        return respond_error(from, id, code::invalid_params, "Invalid params: tools/call needs a tool name");
    }
    auto tool = server_->find(string_view_of(*name));
    if (!tool)
        return respond_error(from, id, code::invalid_params, "Unknown tool: " + std::string(string_view_of(*name)));
    const JsonValue* arguments = find_member(*params, "arguments");
    static const JsonValue kNoArguments(rapidjson::kObjectType);
    if (arguments == nullptr || arguments->IsNull()) arguments = &kNoArguments;
    if (!arguments->IsObject()) {
        return respond_error(from, id, code::invalid_params, "Invalid params: arguments must be an object");
    }
    if (Status valid = tool->input->validate(*arguments); !valid) {
        return respond_error(from, id, code::invalid_params,
                             "Invalid arguments for tool " + tool->tool.name + ": " + valid.message());
    }
    if (calls_.size() >= server_->options.max_concurrent_calls) {
        return respond_error(from, id, code::server_busy,
                             "too many tool calls in flight (" + std::to_string(server_->options.max_concurrent_calls) +
                                 "); try again when one has ended");
    }
    auto state = std::make_shared<ToolResponder::State>();
    state->endpoint = weak_from_this();
    state->call = ++next_call_;
    state->tool = tool;
    const JsonValue* meta = find_member(*params, "_meta");
    const JsonValue* token = meta ? find_member(*meta, "progressToken") : nullptr;
    if (token != nullptr && (token->IsString() || token->IsInt64())) state->progress_token = to_json_text(*token);
    calls_.emplace(state->call, Call{&from, id, id.to_string(), state});

    ToolCall call;
    call.server = server_->name;
    call.tool = tool->tool.name;
    call.arguments.text = to_json_text(*arguments);
    call.session_id = session_id_;
    // Kept here too, so a handler that throws does not answer "no answer" while unwinding.
    std::shared_ptr<ToolResponder::State> kept = state;
    auto failed = [&](const std::string& details) {
        log(LogLevel::error, "the handler of tool '" + tool->tool.name + "' threw: " + details);
        if (kept->answered || kept->cancelled) return;
        kept->answered = true;
        fail_handler(kept->call, details);
    };
    try {
        tool->tool.handler(call, ToolResponder(std::move(state)));
    } catch (const std::exception& e) {
        failed(e.what());
    } catch (...) {
        failed("unknown exception");
    }
}

void ToolEndpoint::fail_handler(uint64_t serial, std::string_view details) {
    auto it = calls_.find(serial);
    if (it == calls_.end()) return;
    Call call = std::move(it->second);
    calls_.erase(it);
    if (call.peer->fail_backend(call.id_json, details)) return;
    respond_error(*call.peer, call.id, code::internal_error, "the tool's handler failed");
}

bool ToolEndpoint::finish(uint64_t serial, std::string_view result, int error_code, std::string_view error_message) {
    auto it = calls_.find(serial);
    if (it == calls_.end()) return false;
    Call call = std::move(it->second);
    calls_.erase(it);
    if (error_code != 0) {
        respond_error(*call.peer, call.id, error_code, error_message);
    } else {
        respond(*call.peer, call.id, result);
    }
    return true;
}

void ToolEndpoint::progress(uint64_t serial, std::string_view notification_params) {
    auto it = calls_.find(serial);
    if (it == calls_.end()) return;
    it->second.peer->send(envelope([&](JsonWriter& w) {
                              w.Key("method");
                              w.String("notifications/progress");
                              w.Key("params");
                              write_raw_json(w, notification_params, rapidjson::kObjectType);
                          }),
                          it->second.id_json);
}

void ToolEndpoint::cancel(uint64_t serial, bool tell_host) {
    auto it = calls_.find(serial);
    if (it == calls_.end()) return;
    auto responder = it->second.responder.lock();
    calls_.erase(it);
    if (responder) responder->cancel(tell_host);
}

void ToolEndpoint::on_mcp_peer_closed(McpPeer& from) {
    auto keep_alive = shared_from_this();
    std::vector<uint64_t> gone;
    for (const auto& [serial, call] : calls_) {
        if (call.peer == &from) gone.push_back(serial);
    }
    for (uint64_t serial : gone) cancel(serial);
}

void ToolEndpoint::close(bool tell_host) {
    if (closed_) return;
    closed_ = true;
    std::vector<uint64_t> gone;
    for (const auto& entry : calls_) gone.push_back(entry.first);
    for (uint64_t serial : gone) cancel(serial, tell_host);
}

}  // namespace acp::detail::tools
