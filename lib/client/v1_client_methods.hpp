// SPDX-License-Identifier: Apache-2.0
// The v1 client methods a v1 agent may call (internal): fs/read_text_file,
// fs/write_text_file and terminal/*, served by the host's handlers (docs/v1.md). They
// exist only on a v1 connection: the v1 driver hands them here, the v2 driver answers
// them -32601 (CLIENT-MUST-08).
//
// The host's terminals show in the session model as v2 display terminals (CLIENT-GUIDE
// §10), built from the host's own answers: created, output snapshots, exit.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "client/responder_state.hpp"

namespace acp::detail {

struct ClientCore;
class UpdateRouter;

class V1ClientMethods {
public:
    // before_request(session_id) runs before the host sees a request: the turn's
    // synthesized start goes first.
    V1ClientMethods(ClientCore& core, UpdateRouter& router, std::function<void(const std::string&)> before_request);
    V1ClientMethods(const V1ClientMethods&) = delete;
    V1ClientMethods& operator=(const V1ClientMethods&) = delete;

    // The names of the methods (for the connection's dispatch).
    static const std::string_view names[7];

    // One call of the agent's; a method without a host handler is answered -32601 (a v1
    // agent calls only advertised ones; a handler unset since is not advertised either).
    void serve(std::string_view method, const JsonValue* params, Responder responder);

    // Applies the terminal updates the host's answers showed and that still wait for their
    // loop turn. The driver calls it before the agent's next session/update: the agent
    // wrote that update after reading the answer, so the model must see the answer first.
    void flush_shown();

private:
    template <class Request>
    using Watch = void (V1ClientMethods::*)(ClientMethodResponder::State&, const Request&);
    // watch installs what the answer shows the model (the terminal methods).
    template <class Request>
    void serve_with(std::function<void(const Request&, ClientMethodResponder)> handler, const JsonValue* params,
                    Responder responder, Watch<Request> watch = nullptr);
    // On the next loop turn (the host's respond() call must not run its own callbacks),
    // or earlier through flush_shown().
    void show_terminal(const std::string& session_id, v2::TerminalUpdate update);
    void watch_create(ClientMethodResponder::State& state, const v1::CreateTerminalRequest& request);
    void watch_output(ClientMethodResponder::State& state, const v1::TerminalOutputRequest& request);
    void watch_exit(ClientMethodResponder::State& state, const v1::WaitForTerminalExitRequest& request);

    ClientCore& core_;
    UpdateRouter& router_;
    std::function<void(const std::string&)> before_request_;
    std::vector<v2::UpdateSessionNotification> shown_;  // in the order of the answers
};

}  // namespace acp::detail
