// SPDX-License-Identifier: Apache-2.0
// initialize and the protocol version (internal): v2 first, v1 when the agent answers 1
// or fails with -32022 listing 1 (CLIENT-MUST-23, -24), or v1 first when the host asked
// for it; at most one switch per attempt (docs/client.md, docs/v1.md).
//
//   negotiation.run([](Result<Negotiation::Outcome> outcome) { ... choose the driver ... });
#pragma once

#include <functional>
#include <optional>

#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "jsonrpc/connection.hpp"

namespace acp::detail {

struct ClientCore;

class Negotiation {
public:
    // What the agent said: its answer as v2 (a v1 one lifted, protocolVersion 1) and, for
    // a v1 agent, the v1 answer as sent.
    struct Outcome {
        v2::InitializeResponse agent;
        std::optional<v1::InitializeResponse> agent_v1;
    };
    using Done = std::function<void(Result<Outcome>)>;

    explicit Negotiation(ClientCore& core) : core_(core) {}

    // Sends initialize in the version ClientOptions::protocol_version names first.
    void run(Done done);

private:
    // may_switch: the agent's answer may still move the connection to the other version
    // (once: a second initialize in the version it named).
    void send_v2(Done done, bool may_switch);
    void send_v1(Done done, bool may_switch);
    void on_v2_reply(const Reply& reply, const Done& done, bool may_switch);
    void on_v1_reply(const Reply& reply, const Done& done, bool may_switch);
    void fail_and_close(const Done& done, Status why);

    ClientCore& core_;
};

}  // namespace acp::detail
