// SPDX-License-Identifier: Apache-2.0
// MCP over stdio for the demo agent: the server is a child process (the client's stdio
// entry: command, args, env) spoken to in newline-delimited JSON-RPC on its stdin and
// stdout, on the agent's libuv loop. Its stderr is the agent's.
//
// The child lives as long as this object: destroying it closes the child's stdin, sends
// SIGTERM, and SIGKILL 2 s later if it is still running; the loop reaps it. A line over
// kMaxMcpMessageBytes ends the child too.
#pragma once

#include <uv.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mcp_client.hpp"

namespace demo {

class StdioMcpClient final : public McpClient {
public:
    // env is added to (or replaces in) the agent's own environment.
    static acp::Result<std::unique_ptr<StdioMcpClient>> spawn(
        uv_loop_t* loop, const std::string& name, const std::string& command, const std::vector<std::string>& args,
        const std::vector<std::pair<std::string, std::string>>& env);
    ~StdioMcpClient() override;

private:
    struct Child;  // the child's handles: they outlive this object until closed
    StdioMcpClient(std::string name, Child* child);
    void send(uint64_t id, const std::string& message) override;
    void on_output(const char* data, std::size_t size);
    void on_too_long();
    void on_ended(const std::string& why);

    Child* child_;
    std::string line_;  // the start of a line not yet ended
};

}  // namespace demo
