// SPDX-License-Identifier: Apache-2.0
// The shared state behind the public responders (internal): the JSON-RPC responder that
// answers the agent's request, and what the client watches of the answer. The client's
// parts that receive agent requests build these; client/responders.cpp implements the
// public classes on them.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>

#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "jsonrpc/connection.hpp"

namespace acp {

struct PermissionResponder::State {
    detail::Responder responder;
    std::set<std::string> offered;
    std::function<void()> on_withdrawn;

    explicit State(detail::Responder r) : responder(std::move(r)) {}
    // Unanswered at the end: never an approval.
    ~State();
    void send_cancelled() const;
};

struct ElicitationResponder::State {
    detail::Responder responder;
    std::function<void()> on_withdrawn;

    explicit State(detail::Responder r) : responder(std::move(r)) {}
    ~State();  // unanswered: "cancel"
    void send(v2::CreateElicitationResponseAction action) const;
};

struct ExtResponder::State {
    detail::Responder responder;
    std::function<void()> on_withdrawn;

    explicit State(detail::Responder r) : responder(std::move(r)) {}
};

struct ClientMethodResponder::State {
    detail::Responder responder;
    std::function<void()> on_withdrawn;
    // What the host's terminal answers show the session model (Client::on_terminal).
    std::function<void(const v1::CreateTerminalResponse&)> terminal_created;
    std::function<void(const v1::TerminalOutputResponse&)> terminal_output;
    std::function<void(const v1::WaitForTerminalExitResponse&)> terminal_exited;

    explicit State(detail::Responder r) : responder(std::move(r)) {}
};

}  // namespace acp
