// SPDX-License-Identifier: Apache-2.0
// acp/client_v1.hpp — the Client's API for ACP v1 agents only: the fs/* and terminal/*
// methods a v1 agent may call on the client (v2 has none). Kept apart from acp/client.hpp
// so that a host that does not serve them does not compile the v1 protocol types.
//
//   #include "acp/client_v1.hpp"
//   client->on_read_text_file([](const acp::v1::ReadTextFileRequest& request, acp::ClientMethodResponder r) {
//       acp::v1::ReadTextFileResponse response;
//       response.content = read_confined(request.sessionId, request.path);
//       r.respond(response);
//   });
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "acp/client.hpp"
#include "acp/export.hpp"
#include "acp/v1/types.hpp"

namespace acp {

// Answers one request of the v1 client methods (fs/*, terminal/*), exactly once; dropping
// it unanswered answers -32603. respond() takes the response type of the request's method.
class ACP_EXPORT ClientMethodResponder {
public:
    void respond(const v1::ReadTextFileResponse& response) const;
    void respond(const v1::WriteTextFileResponse& response) const;
    void respond(const v1::CreateTerminalResponse& response) const;
    void respond(const v1::TerminalOutputResponse& response) const;
    void respond(const v1::WaitForTerminalExitResponse& response) const;
    void respond(const v1::KillTerminalResponse& response) const;
    void respond(const v1::ReleaseTerminalResponse& response) const;
    // For example error_code::resource_not_found (-32002) for a missing file.
    void fail(int code, const std::string& message) const;
    bool answered() const;
    // The agent withdrew the request ($/cancel_request); answer it anyway (fail() is fine).
    void on_withdrawn(std::function<void()> fn) const;

    struct State;
    explicit ClientMethodResponder(std::shared_ptr<State> state);

private:
    std::shared_ptr<State> state_;
};

// The v1 terminal/* methods; advertised (clientCapabilities.terminal) only when all five
// are set.
struct TerminalHandlers {
    std::function<void(const v1::CreateTerminalRequest&, ClientMethodResponder)> create;
    std::function<void(const v1::TerminalOutputRequest&, ClientMethodResponder)> output;
    std::function<void(const v1::WaitForTerminalExitRequest&, ClientMethodResponder)> wait_for_exit;
    std::function<void(const v1::KillTerminalRequest&, ClientMethodResponder)> kill;
    std::function<void(const v1::ReleaseTerminalRequest&, ClientMethodResponder)> release;
};

}  // namespace acp
