// SPDX-License-Identifier: Apache-2.0
#include "protocol/unstable_checks.hpp"

#include <string>

#include "protocol/unstable_additions.hpp"

namespace acp::detail {

namespace {

namespace un = acp::v2::unstable;

Status not_enabled() {
    return Status(Errc::unsupported, "the unstable ACP surface is off: set ClientOptions::unstable to use it");
}

Status not_offered(std::string_view capability, std::string_view what) {
    return Status(Errc::unsupported,
                  "the agent does not advertise " + std::string(capability) + "; " + std::string(what) + " not sent");
}

}  // namespace

UnstableFeatures unstable_features_of(const v2::InitializeResponse& agent, bool enabled) {
    UnstableFeatures offer;
    offer.enabled = enabled;
    if (!enabled || !agent.capabilities) return offer;
    // A malformed addition reads as not offered (CLIENT-MUST-22), like any capability.
    un::AgentCapabilitiesAdditions top;
    if (decode_additions(agent.capabilities->extra_fields, top)) offer.providers = top.providers.has_value();
    if (agent.capabilities->auth.has_value()) {
        un::AgentAuthCapabilitiesAdditions auth;
        if (decode_additions(agent.capabilities->auth->extra_fields, auth)) offer.auth_status = auth.status.has_value();
    }
    if (!agent.capabilities->session.has_value()) return offer;
    un::SessionCapabilitiesAdditions session;
    if (!decode_additions(agent.capabilities->session->extra_fields, session)) return offer;
    offer.fork = session.fork.has_value();
    offer.archive = session.archive.has_value();
    offer.status = session.status.has_value();
    offer.title = session.title.has_value();
    offer.system_prompt = session.systemPrompt.has_value();
    offer.system_prompt_override = offer.system_prompt && session.systemPrompt->mode.has_value() &&
                                   session.systemPrompt->mode->override.has_value();
    return offer;
}

Status check_unstable_method(UnstableMethod method, const UnstableFeatures& offer) {
    if (!offer.enabled) return not_enabled();
    switch (method) {
        case UnstableMethod::fork: return offer.fork ? Status() : not_offered("session.fork", "session/fork");
        case UnstableMethod::archive:
            return offer.archive ? Status() : not_offered("session.archive", "session/archive");
        case UnstableMethod::unarchive:
            return offer.archive ? Status() : not_offered("session.archive", "session/unarchive");
        case UnstableMethod::status: return offer.status ? Status() : not_offered("session.status", "session/status");
        case UnstableMethod::set_title:
            return offer.title ? Status() : not_offered("session.title", "session/set_title");
        case UnstableMethod::auth_status:
            return offer.auth_status ? Status() : not_offered("auth.status", "auth/status");
        case UnstableMethod::providers: return offer.providers ? Status() : not_offered("providers", "providers/*");
    }
    return not_enabled();
}

Status check_system_prompt(const un::SystemPrompt& prompt, const UnstableFeatures& offer) {
    if (!offer.enabled) return not_enabled();
    if (!offer.system_prompt) return not_offered("session.systemPrompt", "systemPrompt");
    if (prompt.mode.value == un::SystemPromptMode::override && !offer.system_prompt_override) {
        return not_offered("session.systemPrompt.mode.override", "a systemPrompt in override mode");
    }
    if (prompt.mode.value != un::SystemPromptMode::append && prompt.mode.value != un::SystemPromptMode::override) {
        return Status(Errc::invalid_argument,
                      "systemPrompt mode must be 'append' or 'override', not '" + prompt.mode.value + "'");
    }
    if (prompt.content.empty()) return Status(Errc::invalid_argument, "a systemPrompt needs at least one text block");
    for (const auto& block : prompt.content) {
        const v2::TextContent* text = block.text();
        if (text == nullptr) return Status(Errc::invalid_argument, "a systemPrompt holds only text blocks");
        if (text->text.empty()) return Status(Errc::invalid_argument, "a systemPrompt's text blocks are never empty");
    }
    return Status();
}

Status check_archive_filter(const UnstableFeatures& offer) {
    if (!offer.enabled) return not_enabled();
    return offer.archive ? Status() : not_offered("session.archive", "the session/list archived filter");
}

}  // namespace acp::detail
