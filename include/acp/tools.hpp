// SPDX-License-Identifier: Apache-2.0
// acp/tools.hpp — editor tools for the agent: MCP servers the host offers (issue 26).
//
// In ACP v2 the client serves no fs/* or terminal/*: an editor gives the agent its own
// features (the selection, unsaved buffers, diagnostics) as tools of an MCP server it
// provides in the session's mcpServers. A ToolServer is that server: a name and its tools,
// each with a JSON Schema for its input and a handler. Attach it to a session's setup
// (Client::new_session / resume_session with tools) and libacp serves it over the transport
// the agent advertised, in this order: MCP over ACP (session.mcp.acp), loopback HTTP
// (session.mcp.http), the stdio bridge (session.mcp.stdio). It lives as long as the
// sessions it was offered to.
//
// The agent is untrusted: arguments are checked against the tool's input schema before
// the handler sees them (a bad call is answered with an MCP error and the handler is not
// called), their size is capped, and so is the number of calls in flight.
//
//   auto editor = acp::ToolServer::create("editor");
//   acp::Tool tool;
//   tool.name = "current_selection";
//   tool.description = "The text selected in the editor";
//   tool.handler = [](const acp::ToolCall&, acp::ToolResponder answer) { answer.text(selection()); };
//   (*editor)->add_tool(std::move(tool));
//   client->new_session(request, {*editor}, [](acp::Result<acp::v2::NewSessionResponse> r) { ... });
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "acp/export.hpp"
#include "acp/json.hpp"
#include "acp/status.hpp"

namespace acp {

// One call of a tool, its arguments already checked against the tool's input schema.
struct ToolCall {
    std::string server;      // the ToolServer's name
    std::string tool;        // the tool's name
    RawJson arguments;       // a JSON object ({} when the agent sent none)
    std::string session_id;  // the session the server was offered to ("" while session/new is pending)
};

// Answers one tool call, exactly once; later answers are ignored. Dropping it unanswered
// answers an MCP internal error. Any copy may answer; all share the call.
class ACP_EXPORT ToolResponder {
public:
    // A text result: content [{type: "text", text}].
    void text(const std::string& text) const;
    // A structured result (structuredContent, a JSON object) with its JSON text as the text
    // content. Refused (nothing sent) when it is not an object, or does not match the tool's
    // output schema.
    Status structured(const RawJson& value) const;
    // The tool failed: a result with isError true and the message as its text, which the
    // model sees (MCP tool execution error).
    void error(const std::string& message) const;
    // A whole CallToolResult as the host wrote it (a JSON object); refused otherwise.
    Status result(const RawJson& call_tool_result) const;
    // notifications/progress for this call, when the agent asked for progress (its
    // progressToken); otherwise nothing is sent. total <= 0: unknown.
    void progress(double progress, double total = 0, const std::string& message = {}) const;

    bool answered() const;
    // The agent cancelled the call, or its session or connection ended: answers are no
    // longer sent.
    bool cancelled() const;
    // Told once when the call is cancelled (at once when it already is).
    void on_cancelled(std::function<void()> fn) const;

    struct State;
    explicit ToolResponder(std::shared_ptr<State> state);

private:
    std::shared_ptr<State> state_;
};

struct Tool {
    std::string name;  // unique in its server; [A-Za-z0-9_.-], 1..128 characters
    std::string title;
    std::string description;
    // A JSON Schema object for the arguments; empty: {"type":"object"} (no input).
    // Checked on every call: type, properties, required, additionalProperties, enum,
    // const, items, minItems/maxItems, minLength/maxLength, minimum/maximum; other
    // keywords are passed to the agent but not checked.
    RawJson input_schema;
    std::optional<RawJson> output_schema;  // an object schema: structured() results must match it
    std::optional<RawJson> annotations;    // MCP ToolAnnotations (readOnlyHint, ...), passed as given
    std::function<void(const ToolCall& call, ToolResponder answer)> handler;
};

struct ToolServerOptions {
    std::string version = "1.0.0";  // serverInfo.version
    // Calls in flight (the handler has not answered) at once, per session the server is
    // offered to; more are refused with an error until one ends.
    std::size_t max_concurrent_calls = 64;
    // The largest MCP message taken from the agent (a call's arguments included); a larger
    // call is refused without reaching the handler.
    std::size_t max_message_bytes = 1024u * 1024u;
};

class ACP_EXPORT ToolServer {
public:
    // name: what the agent sees as the server's name (e.g. "editor"); not empty.
    static Result<std::shared_ptr<ToolServer>> create(std::string name, ToolServerOptions options = {});
    ~ToolServer();
    ToolServer(const ToolServer&) = delete;
    ToolServer& operator=(const ToolServer&) = delete;

    // Refused (and nothing added) for a bad or duplicate name, a schema that is not a JSON
    // object, or no handler. Tools added after the server was offered are listed from then on.
    Status add_tool(Tool tool);
    const std::string& name() const;
    std::size_t tool_count() const;

    class Impl;
    const std::shared_ptr<Impl>& impl() const { return impl_; }

private:
    explicit ToolServer(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> impl_;
};

using ToolServers = std::vector<std::shared_ptr<ToolServer>>;

// The MCP transports libacp may serve tool servers over (ClientOptions::tool_transports).
// Of those allowed here, the first the agent advertised is used, in libacp's order (MCP
// over ACP, HTTP, stdio). A host restricts them for an agent whose support of one is
// broken, e.g. stdio only: {false, false, true}.
struct ToolTransports {
    bool acp = true;
    bool http = true;
    bool stdio = true;
};

}  // namespace acp
