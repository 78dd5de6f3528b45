// SPDX-License-Identifier: Apache-2.0
// The unstable surface's capability gates (internal; CLIENT-GUIDE 4.14): what the agent
// advertises of it, read from the stable v2 capabilities' extra members (a v1 agent's
// answer lifted into them: client/v1_unstable.hpp), and the check of
// each unstable call and field against that. Only a host that opted in
// (ClientOptions::unstable) gets any of it; without the opt-in everything is refused.
//
//   UnstableFeatures offer = unstable_features_of(agent_answer, options.unstable);
//   if (Status s = check_unstable_method(unstable_method::fork, offer); !s) return refuse(s);
#pragma once

#include <optional>
#include <string_view>

#include "acp/status.hpp"
#include "acp/v2/types.hpp"
#include "acp/v2/unstable.hpp"

namespace acp::detail {

struct UnstableFeatures {
    bool enabled = false;  // the host opted in
    bool fork = false;
    bool archive = false;
    bool status = false;
    bool title = false;
    bool system_prompt = false;
    bool system_prompt_override = false;
    bool auth_status = false;
    bool providers = false;
};

// agent: the v2 answer, or a v1 answer as lifted.
UnstableFeatures unstable_features_of(const v2::InitializeResponse& agent, bool enabled);

enum class UnstableMethod { fork, archive, unarchive, status, set_title, auth_status, providers };

// The method's capability (the opt-in first).
Status check_unstable_method(UnstableMethod method, const UnstableFeatures& offer);
// systemPrompt on new/resume/fork: session.systemPrompt; `override` needs
// session.systemPrompt.mode.override; only text blocks, at least one, none empty.
Status check_system_prompt(const v2::unstable::SystemPrompt& prompt, const UnstableFeatures& offer);
// The session/list `archived` filter: session.archive.
Status check_archive_filter(const UnstableFeatures& offer);

}  // namespace acp::detail
