// SPDX-License-Identifier: Apache-2.0
// acp_tool_server: the host's tool servers (definitions, thread-safe) and their calls as
// ACP_EVENT_TOOL_CALL events of the client that offered them.
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "capi/barrier.hpp"
#include "capi/json_text.hpp"
#include "capi/tool_servers.hpp"
#include "tools/tool_server_impl.hpp"

struct acp_tool_server {
    struct Definition {
        acp::Tool tool;                                                // without a handler: each setup gives it one
        std::shared_ptr<const acp::detail::tools::JsonSchema> output;  // null: no output schema
    };

    mutable std::mutex mutex;
    std::string name;
    acp::ToolServerOptions options;
    // The C++ API checks every definition once, as it would a C++ host's (names, schemas).
    std::shared_ptr<acp::ToolServer> checked;
    std::vector<Definition> tools;
};

namespace acp::capi {

namespace {

// RawJson of an optional JSON object argument, or ACP_EINVAL naming it.
int optional_object(const char* json, std::optional<RawJson>& out, const char* what) {
    if (json == nullptr) return ACP_OK;
    RawJson value;
    if (int valid = object_json(json, value, what); valid != ACP_OK) return valid;
    out = std::move(value);
    return ACP_OK;
}

// A structured answer must fit the tool's output schema: checked where the host answers.
std::function<Status(const RawJson&)> structured_check(std::shared_ptr<const detail::tools::JsonSchema> schema,
                                                       const std::string& tool) {
    if (!schema) return nullptr;
    return [schema = std::move(schema), tool](const RawJson& value) -> Status {
        rapidjson::Document document;
        document.Parse(value.text.data(), value.text.size());
        if (document.HasParseError()) return Status(Errc::invalid_argument, "not JSON");
        if (Status s = schema->validate(document); !s) {
            return Status(Errc::invalid_argument,
                          "the result does not match the output schema of tool '" + tool + "': " + s.message());
        }
        return Status();
    };
}

// One call of a tool, delivered to the client that offered the server (loop thread).
void deliver_call(const std::weak_ptr<Core>& weak, const std::function<Status(const RawJson&)>& check,
                  const ToolCall& call, ToolResponder answer) {
    auto core = weak.lock();
    if (!core) return;  // the responder, dropped, answers the MCP error -32603
    const unsigned long id = core->next_id();
    auto event = core->request_event(ACP_EVENT_TOOL_CALL, id);
    event->responder->check_structured = check;
    answer.on_cancelled(core->withdrawal_reporter(*event));
    core->answers[id].tool.emplace(std::move(answer));
    if (!call.session_id.empty()) event->session_id = call.session_id;
    event->json = call.arguments.text.empty() ? "{}" : call.arguments.text;
    event->tool_server = call.server;
    event->tool_name = call.tool;
    core->emit(std::move(event));
}

}  // namespace

int setup_tool_servers(ToolServers& out, const std::shared_ptr<Core>& core, acp_tool_server* const* servers,
                       std::size_t count) {
    out.clear();
    if (count != 0 && servers == nullptr) return fail(ACP_EINVAL, "servers is NULL");
    std::set<std::string> names;
    std::weak_ptr<Core> weak = core;
    for (std::size_t i = 0; i < count; ++i) {
        const acp_tool_server* host = servers[i];
        if (host == nullptr) return fail(ACP_EINVAL, "servers[" + std::to_string(i) + "] is NULL");
        std::lock_guard<std::mutex> lock(host->mutex);
        if (!names.insert(host->name).second) {
            return fail(ACP_EINVAL, "two tool servers are named '" + host->name + "'");
        }
        auto server = ToolServer::create(host->name, host->options);
        if (!server) return fail(code_of(server.status()), server.status().message());
        for (const auto& definition : host->tools) {
            Tool tool = definition.tool;
            auto check = structured_check(definition.output, tool.name);
            tool.handler = [weak, check](const ToolCall& call, ToolResponder answer) {
                deliver_call(weak, check, call, std::move(answer));
            };
            if (Status added = (*server)->add_tool(std::move(tool)); !added) {
                return fail(ACP_EINTERNAL, "a checked tool was refused: " + added.message());
            }
        }
        out.push_back(std::move(*server));
    }
    return ACP_OK;
}

}  // namespace acp::capi

using namespace acp;
using namespace acp::capi;

extern "C" {

int acp_tool_server_options_init(acp_tool_server_options* options, unsigned int version) {
    if (options == nullptr) return fail(ACP_EINVAL, "options is NULL");
    if (version != ACP_TOOL_SERVER_OPTIONS_VERSION) {
        return fail(ACP_EINVAL, "unknown acp_tool_server_options version " + std::to_string(version));
    }
    const acp_tool_server_options defaults = ACP_TOOL_SERVER_OPTIONS_INIT;
    *options = defaults;
    return ACP_OK;
}

int acp_tool_server_new(acp_tool_server** out, const char* name, const acp_tool_server_options* options) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
        *out = nullptr;
        if (int ok = need(name, "name"); ok != ACP_OK) return ok;
        if (options != nullptr && options->version != ACP_TOOL_SERVER_OPTIONS_VERSION) {
            return fail(ACP_EINVAL, "unknown acp_tool_server_options version " + std::to_string(options->version));
        }
        ToolServerOptions cxx;
        if (options != nullptr) {
            if (options->server_version != nullptr) cxx.version = options->server_version;
            if (options->max_concurrent_calls != 0) cxx.max_concurrent_calls = options->max_concurrent_calls;
            if (options->max_message_bytes != 0) cxx.max_message_bytes = options->max_message_bytes;
        }
        auto checked = ToolServer::create(name, cxx);
        if (!checked) return fail(code_of(checked.status()), checked.status().message());
        auto server = std::make_unique<acp_tool_server>();
        server->name = name;
        server->options = std::move(cxx);
        server->checked = std::move(*checked);
        *out = server.release();
        return ACP_OK;
    });
}

int acp_tool_server_add_tool(acp_tool_server* server, const char* name, const char* title, const char* description,
                             const char* input_schema_json, const char* output_schema_json,
                             const char* annotations_json) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (int ok = need(server, "server"); ok != ACP_OK) return ok;
        if (int ok = need(name, "name"); ok != ACP_OK) return ok;
        Tool tool;
        tool.name = name;
        if (title != nullptr) tool.title = title;
        if (description != nullptr) tool.description = description;
        std::optional<RawJson> input;
        if (int ok = optional_object(input_schema_json, input, "input_schema_json"); ok != ACP_OK) return ok;
        if (input) tool.input_schema = std::move(*input);
        if (int ok = optional_object(output_schema_json, tool.output_schema, "output_schema_json"); ok != ACP_OK) {
            return ok;
        }
        if (int ok = optional_object(annotations_json, tool.annotations, "annotations_json"); ok != ACP_OK) return ok;

        std::lock_guard<std::mutex> lock(server->mutex);
        Tool checked = tool;
        checked.handler = [](const ToolCall&, ToolResponder) {};  // never called: it only passes the check
        if (Status added = server->checked->add_tool(std::move(checked)); !added) {
            return fail(code_of(added), added.message());
        }
        auto entry = server->checked->impl()->find(tool.name);
        server->tools.push_back(acp_tool_server::Definition{std::move(tool), entry ? entry->output : nullptr});
        return ACP_OK;
    });
}

int acp_tool_server_tool_count(const acp_tool_server* server) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (server == nullptr) return fail(ACP_EINVAL, "server is NULL");
        std::lock_guard<std::mutex> lock(server->mutex);
        return static_cast<int>(server->tools.size());
    });
}

void acp_tool_server_free(acp_tool_server* server) {
    guarded_void([&] { delete server; });
}

const char* acp_event_tool_server(const acp_event* event) {
    return event != nullptr ? c_str_or_null(event->tool_server) : nullptr;
}
const char* acp_event_tool_name(const acp_event* event) {
    return event != nullptr ? c_str_or_null(event->tool_name) : nullptr;
}

}  // extern "C"
