// SPDX-License-Identifier: Apache-2.0
#include "protocol/agent_features.hpp"

#include <rapidjson/document.h>

namespace acp::detail {

namespace {

// A `_` key of a capability's _meta whose value is an object advertises that extension
// (CLIENT-GUIDE 1.6: custom capabilities live in _meta; presence = an object, §3).
std::set<std::string> advertised_extensions(const Nullable<RawJson>& meta) {
    std::set<std::string> names;
    if (!meta.has_value()) return names;
    rapidjson::Document document;
    document.Parse(meta->text.data(), meta->text.size());
    if (document.HasParseError() || !document.IsObject()) return names;
    for (auto member = document.MemberBegin(); member != document.MemberEnd(); ++member) {
        const std::string name(member->name.GetString(), member->name.GetStringLength());
        if (!name.empty() && name[0] == '_' && member->value.IsObject()) names.insert(name);
    }
    return names;
}

std::vector<AuthMethodFeature> auth_methods_of(const v2::InitializeResponse& agent) {
    std::vector<AuthMethodFeature> methods;
    if (!agent.authMethods) return methods;
    for (const auto& method : *agent.authMethods) {
        AuthMethodFeature feature;
        switch (method.kind()) {
            case v2::AuthMethod::Kind::agent:
                feature.id = method.agent()->methodId;
                feature.flow = AuthMethodFeature::Flow::login;
                break;
            case v2::AuthMethod::Kind::terminal:
                feature.id = method.terminal()->methodId;
                feature.flow = AuthMethodFeature::Flow::terminal;
                break;
            case v2::AuthMethod::Kind::unknown: break;
        }
        methods.push_back(std::move(feature));
    }
    return methods;
}

}  // namespace

AgentFeatures features_of(const v2::InitializeResponse& agent) {
    AgentFeatures features;
    features.auth_methods = auth_methods_of(agent);
    // v2: authMethods non-empty means both auth/login and auth/logout exist (§2.3).
    features.logout = !features.auth_methods.empty();
    if (!agent.capabilities || !agent.capabilities->session.has_value()) return features;
    const v2::SessionCapabilities& session = *agent.capabilities->session;
    features.sessions = true;
    // list, resume (with and without replay) and close are baseline with the session surface.
    features.list = features.resume = features.replay = features.close = true;
    features.replay_cursors = advertised_extensions(session._meta);
    features.cancel_entities = true;
    features.delete_ = session.delete_.has_value();
    features.additional_directories = session.additionalDirectories.has_value();
    if (session.prompt.has_value()) {
        features.prompt_image = session.prompt->image.has_value();
        features.prompt_audio = session.prompt->audio.has_value();
        features.prompt_embedded_context = session.prompt->embeddedContext.has_value();
    }
    if (session.mcp.has_value()) {
        features.mcp_stdio = session.mcp->stdio.has_value();
        features.mcp_http = session.mcp->http.has_value();
        features.mcp_custom_transports = advertised_extensions(session.mcp->_meta);
        // Unstable, so not a field of the stable types: an `acp` object among the extras.
        for (const auto& [key, value] : session.mcp->extra_fields) {
            if (key == "acp" && !value.text.empty() && value.text[0] == '{') features.mcp_acp = true;
        }
    }
    return features;
}

bool v1_mcp_acp(const v1::McpCapabilities& mcp) {
    for (const auto& [key, value] : mcp.extra_fields) {
        if (key == "acp") return value.text == "true";
    }
    return false;
}

AgentFeatures features_of(const v1::InitializeResponse& agent, const v2::InitializeResponse& lifted) {
    AgentFeatures features;
    features.auth_methods = auth_methods_of(lifted);
    // A v1 agent always has new/prompt/cancel/update and takes stdio MCP servers (§10).
    features.sessions = true;
    features.mcp_stdio = true;
    const v1::AgentCapabilities capabilities = agent.agentCapabilities.value_or(v1::AgentCapabilities{});
    features.replay = capabilities.loadSession.value_or(false);
    if (capabilities.promptCapabilities) {
        features.prompt_image = capabilities.promptCapabilities->image.value_or(false);
        features.prompt_audio = capabilities.promptCapabilities->audio.value_or(false);
        features.prompt_embedded_context = capabilities.promptCapabilities->embeddedContext.value_or(false);
    }
    if (capabilities.mcpCapabilities) {
        features.mcp_http = capabilities.mcpCapabilities->http.value_or(false);
        features.mcp_sse = capabilities.mcpCapabilities->sse.value_or(false);
        features.mcp_acp = v1_mcp_acp(*capabilities.mcpCapabilities);
    }
    if (capabilities.sessionCapabilities) {
        const v1::SessionCapabilities& session = *capabilities.sessionCapabilities;
        features.list = session.list.has_value();
        features.resume = session.resume.has_value();
        features.close = session.close.has_value();
        features.delete_ = session.delete_.has_value();
        features.additional_directories = session.additionalDirectories.has_value();
    }
    // v1: logout has its own marker; authenticate needs only the methods.
    features.logout = capabilities.auth && capabilities.auth->logout.has_value();
    return features;
}

}  // namespace acp::detail
