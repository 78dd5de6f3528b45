// SPDX-License-Identifier: Apache-2.0
#include "client/negotiation.hpp"

#include <rapidjson/document.h>

#include <string>
#include <utility>

#include "client/agent_tolerance.hpp"
#include "client/client_core.hpp"
#include "client/v1_adapter.hpp"
#include "client/v1_unstable.hpp"
#include "protocol/request_checks.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"

namespace acp::detail {

namespace av1 = acp::v1;
namespace av2 = acp::v2;
namespace codec = acp::v2::codec;
namespace v1codec = acp::v1::codec;
namespace method = acp::v2::method;

namespace {

constexpr int kProtocolVersion = 2;

// The versions a -32022 error lists (its data.supported), empty when it lists none.
std::vector<int64_t> supported_versions(const Status& status) {
    rapidjson::Document data;
    data.Parse(status.rpc_data_json().c_str());
    av2::UnsupportedProtocolVersionErrorData versions;
    if (data.HasParseError() || !codec::decode(data, versions)) return {};
    return {versions.supported.begin(), versions.supported.end()};
}

}  // namespace

void Negotiation::run(Done done) {
    // The client's own strings go out in either version: UTF-8 or nothing is sent.
    rapidjson::StringBuffer info;
    JsonWriter writer(info);
    codec::encode(writer, core_.options.info);
    if (Status s = check_written_message(std::string_view(info.GetString(), info.GetSize())); !s) {
        return core_.refuse(std::move(done), Status(Errc::invalid_argument, "ClientOptions::info: " + s.message()));
    }
    if (core_.options.protocol_version == 1) return send_v1(std::move(done), true);
    send_v2(std::move(done), true);
}

void Negotiation::send_v2(Done done, bool may_switch) {
    av2::InitializeRequest request;
    request.protocolVersion = kProtocolVersion;
    request.info = core_.options.info;
    av2::ClientCapabilities capabilities;
    // CLIENT-MUST-26: a mode is advertised only when the host handles it.
    const HostHandlers& host = core_.host;
    core_.advertised_form = host.elicitation && host.elicitation_form;
    core_.advertised_url = host.elicitation && host.elicitation_url;
    if (host.elicitation && (host.elicitation_form || host.elicitation_url)) {
        av2::ElicitationCapabilities elicitation;
        if (host.elicitation_form) elicitation.form = av2::ElicitationFormCapabilities{};
        if (host.elicitation_url) elicitation.url = av2::ElicitationUrlCapabilities{};
        capabilities.elicitation = std::move(elicitation);
    }
    if (core_.options.auth_terminal) {
        av2::ClientAuthCapabilities auth;
        auth.terminal = av2::TerminalAuthCapabilities{};
        capabilities.auth = std::move(auth);
    }
    request.capabilities = std::move(capabilities);
    core_.rpc->send_request(
        method::initialize, [&request](JsonWriter& w) { codec::encode(w, request); },
        [this, done = std::move(done), may_switch](const Reply& reply) {
            auto keep_alive = core_.keep_alive();
            if (!core_.orphaned) on_v2_reply(reply, done, may_switch);
        },
        core_.step_options(core_.options.initialize_timeout));
}

// A v1 agent learns the client's real info and capabilities only from a v1-shaped
// initialize: v1 has other field names, and a v1 agent reads nothing of the v2 ones
// (CLIENT-GUIDE §10). Sent first when the host asks for v1, else after a v2 attempt was
// answered with 1, on the same connection (allowed: nothing else was sent yet).
void Negotiation::send_v1(Done done, bool may_switch) {
    const HostHandlers& host = core_.host;
    V1ClientFeatures features;
    features.read_text_file = static_cast<bool>(host.read_text_file);
    features.write_text_file = static_cast<bool>(host.write_text_file);
    features.terminal = host.terminal.create && host.terminal.output && host.terminal.wait_for_exit &&
                        host.terminal.kill && host.terminal.release;
    features.elicitation_form = host.elicitation && host.elicitation_form;
    features.elicitation_url = host.elicitation && host.elicitation_url;
    core_.advertised_form = features.elicitation_form;
    core_.advertised_url = features.elicitation_url;
    features.auth_terminal = core_.options.auth_terminal;
    const av1::InitializeRequest request = v1_initialize_request(core_.options.info, features);
    core_.rpc->send_request(
        method::initialize, [&request](JsonWriter& w) { v1codec::encode(w, request); },
        [this, done = std::move(done), may_switch](const Reply& reply) {
            auto keep_alive = core_.keep_alive();
            if (!core_.orphaned) on_v1_reply(reply, done, may_switch);
        },
        core_.step_options(core_.options.initialize_timeout));
}

void Negotiation::on_v2_reply(const Reply& reply, const Done& done, bool may_switch) {
    if (!reply.status) {
        if (reply.status.rpc_code() != error_code::unsupported_protocol_version) {
            // The connection stays uninitialized; initialize may be retried.
            return done(core_.step_failed(reply.status, "initialize (ACP v2)", core_.options.initialize_timeout,
                                          "initialize_timeout"));
        }
        const std::vector<int64_t> versions = supported_versions(reply.status);
        std::string supported;
        for (auto version : versions) {
            supported += (supported.empty() ? "" : ", ") + std::to_string(version);
            // CLIENT-GUIDE §2.2: re-send with a version it has.
            if (version == 1 && may_switch) return send_v1(done, false);
        }
        return fail_and_close(
            done, Status(Errc::unsupported, "the agent does not speak ACP " + std::to_string(kProtocolVersion) +
                                                "; it supports: " + (supported.empty() ? "unknown" : supported))
                      .with_rpc_code(error_code::unsupported_protocol_version));
    }
    // Read the version first: a v1 agent answers with v1 shapes.
    const JsonValue* version = find_member(*reply.result, "protocolVersion");
    if (version == nullptr || !version->IsInt64()) {
        return fail_and_close(done,
                              Status(Errc::protocol_error, "the agent's initialize answer has no protocolVersion"));
    }
    const int64_t agreed = version->GetInt64();
    if (agreed == 1 && may_switch) return send_v1(done, false);
    if (agreed != kProtocolVersion) {
        // CLIENT-MUST-23
        return fail_and_close(done, Status(Errc::unsupported,
                                           "the agent answered protocolVersion " + std::to_string(agreed) + " to our " +
                                               std::to_string(kProtocolVersion) + "; libacp speaks versions 1 and 2"));
    }
    Outcome outcome;
    rapidjson::Document repaired;
    const JsonValue& answer = with_agent_info(*reply.result, repaired);
    if (&answer != reply.result) {
        core_.log(LogLevel::warning,
                  "the agent's initialize answer has no complete info (AGENT-MUST-02): it is "
                  "called 'unknown'");
    }
    if (Status decoded = codec::decode(answer, outcome.agent); !decoded) {
        return fail_and_close(
            done, Status(Errc::protocol_error, "the agent's initialize answer is invalid: " + decoded.message()));
    }
    if (outcome.agent.info.name.empty()) outcome.agent.info.name = "unknown";  // AGENT-MUST-02, defended
    done(std::move(outcome));
}

void Negotiation::on_v1_reply(const Reply& reply, const Done& done, bool may_switch) {
    if (!reply.status) {
        if (may_switch && reply.status.rpc_code() == error_code::unsupported_protocol_version) {
            return send_v2(done, false);  // asked for 1, the agent has only newer ones
        }
        // Uninitialized; initialize may be retried.
        return done(core_.step_failed(reply.status, "initialize (ACP v1)", core_.options.initialize_timeout,
                                      "initialize_timeout"));
    }
    const JsonValue* version = find_member(*reply.result, "protocolVersion");
    if (version != nullptr && version->IsInt64() && version->GetInt64() == kProtocolVersion && may_switch) {
        return send_v2(done, false);  // asked for 1, the agent prefers 2: say it again in v2
    }
    if (version == nullptr || !version->IsInt64() || version->GetInt64() != 1) {
        return fail_and_close(done,
                              Status(Errc::unsupported, "the agent answered a v1 initialize with protocolVersion " +
                                                            (version ? to_json_text(*version) : "(none)")));
    }
    Outcome outcome;
    outcome.agent_v1.emplace();
    Status decoded = v1codec::decode(*reply.result, *outcome.agent_v1);
    if (decoded) decoded = lift_initialize(*outcome.agent_v1, outcome.agent);
    // Nothing of the unstable surface is read without the opt-in.
    if (decoded && core_.options.unstable) lift_unstable_capabilities(*outcome.agent_v1, outcome.agent);
    if (!decoded) {
        return fail_and_close(
            done, Status(Errc::protocol_error, "the agent's v1 initialize answer is invalid: " + decoded.message()));
    }
    core_.log(LogLevel::info, "the agent speaks ACP v1: its traffic is lifted into v2");
    done(std::move(outcome));
}

void Negotiation::fail_and_close(const Done& done, Status why) {
    core_.log(LogLevel::error, why.message());
    core_.rpc->close();  // first: done may destroy the client
    done(why);
}

}  // namespace acp::detail
