// SPDX-License-Identifier: Apache-2.0
// acp::ToolServer: the host's tools and their checks (the MCP side is tools/tool_endpoint).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>

#include "jsonrpc/json.hpp"
#include "tools/tool_server_impl.hpp"

namespace acp {

namespace {

// MCP tool names: 1..128 of [A-Za-z0-9_.-] (what the agents' model APIs accept).
bool valid_tool_name(const std::string& name) {
    if (name.empty() || name.size() > 128) return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '-' || c == '.';
        if (!ok) return false;
    }
    return true;
}

// A host's raw JSON, compact, or why not.
Result<std::string> compact_object(const RawJson& raw, const std::string& what) {
    rapidjson::Document document;
    document.Parse(raw.text.data(), raw.text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return Status(Errc::invalid_argument, what + " is not a JSON object");
    }
    return detail::to_json_text(document);
}

}  // namespace

Status ToolServer::Impl::add(Tool tool) {
    if (!valid_tool_name(tool.name)) {
        return Status(Errc::invalid_argument, "tool name '" + tool.name + "' is not 1-128 of [A-Za-z0-9_.-]");
    }
    if (find(tool.name))
        return Status(Errc::invalid_argument, "server '" + name + "' already has a tool '" + tool.name + "'");
    if (!tool.handler) return Status(Errc::invalid_argument, "tool '" + tool.name + "' has no handler");
    if (tool.input_schema.text.empty()) tool.input_schema.text = R"({"type":"object"})";
    auto entry = std::make_shared<Entry>();
    auto input = compact_object(tool.input_schema, "the input schema of tool '" + tool.name + "'");
    if (!input) return input.status();
    auto input_schema = detail::tools::JsonSchema::parse(*input);
    if (!input_schema) return input_schema.status();
    entry->input = std::move(input_schema.value());
    std::string output;
    if (tool.output_schema) {
        auto compact = compact_object(*tool.output_schema, "the output schema of tool '" + tool.name + "'");
        if (!compact) return compact.status();
        output = std::move(compact.value());
        auto output_schema = detail::tools::JsonSchema::parse(output);
        if (!output_schema) return output_schema.status();
        entry->output = std::move(output_schema.value());
    }
    std::string annotations;
    if (tool.annotations) {
        auto compact = compact_object(*tool.annotations, "the annotations of tool '" + tool.name + "'");
        if (!compact) return compact.status();
        annotations = std::move(compact.value());
    }

    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    writer.StartObject();
    writer.Key("name");
    detail::write_string(writer, tool.name);
    if (!tool.title.empty()) {
        writer.Key("title");
        detail::write_string(writer, tool.title);
    }
    if (!tool.description.empty()) {
        writer.Key("description");
        detail::write_string(writer, tool.description);
    }
    writer.Key("inputSchema");
    detail::write_raw_json(writer, *input, rapidjson::kObjectType);
    if (!output.empty()) {
        writer.Key("outputSchema");
        detail::write_raw_json(writer, output, rapidjson::kObjectType);
    }
    if (!annotations.empty()) {
        writer.Key("annotations");
        detail::write_raw_json(writer, annotations, rapidjson::kObjectType);
    }
    writer.EndObject();
    entry->listing.assign(buffer.GetString(), buffer.GetSize());
    entry->tool = std::move(tool);
    tools.push_back(std::move(entry));
    return Status();
}

std::shared_ptr<const ToolServer::Impl::Entry> ToolServer::Impl::find(std::string_view tool_name) const {
    for (const auto& entry : tools) {
        if (entry->tool.name == tool_name) return entry;
    }
    return nullptr;
}

Result<std::shared_ptr<ToolServer>> ToolServer::create(std::string name, ToolServerOptions options) {
    if (name.empty()) return Status(Errc::invalid_argument, "a tool server needs a name");
    if (options.max_concurrent_calls == 0)
        return Status(Errc::invalid_argument, "max_concurrent_calls must be at least 1");
    return std::shared_ptr<ToolServer>(new ToolServer(std::make_shared<Impl>(std::move(name), std::move(options))));
}

ToolServer::ToolServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
ToolServer::~ToolServer() = default;

Status ToolServer::add_tool(Tool tool) { return impl_->add(std::move(tool)); }
const std::string& ToolServer::name() const { return impl_->name; }
std::size_t ToolServer::tool_count() const { return impl_->tools.size(); }

}  // namespace acp
