// SPDX-License-Identifier: Apache-2.0
// The unstable surface with a v1 agent (internal; docs/unstable.md): v1's unstable schema
// (schema/v1/schema.unstable.json) has the same calls as v2's, with a few v1 shapes. Its
// capabilities arrive as extra members of the stable v1 types and are lifted where v2 has
// them, so one gate (protocol/unstable_checks.hpp) serves both versions; a call's
// v2-shaped params are lowered to v1 and the agent's v1 answer lifted back, each through
// the v1 unstable codec.
//
//   lift_unstable_capabilities(agent_v1, lifted);           // only with ClientOptions::unstable
//   RawJson params; std::vector<RawJson> acp_entries;
//   if (Status s = lower_unstable_request(method, v2_params, params, acp_entries); !s) return refuse(s);
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "acp/json.hpp"
#include "acp/status.hpp"
#include "acp/v1/types.hpp"
#include "acp/v2/types.hpp"
#include "jsonrpc/json.hpp"

namespace acp::detail {

// sessionCapabilities.{fork, archive, status, title, systemPrompt}, auth.status and
// providers of a v1 answer, into the lifted answer's session, auth and capabilities. A
// malformed group is left out (CLIENT-MUST-22), as the v2 reader does.
void lift_unstable_capabilities(const v1::InitializeResponse& in, v2::InitializeResponse& out);

// A checked unstable request's v2 params as v1's: decoded and encoded with the v1 unstable
// codec; session/fork's MCP servers lowered as for session/new, its MCP-over-ACP entries
// to acp_entries (client/v1_adapter.hpp). unsupported for a method v1 has no form of.
Status lower_unstable_request(std::string_view method, const RawJson& params, RawJson& out,
                              std::vector<RawJson>& acp_entries);

// The agent's v1 answer as the v2 answer's JSON: it must decode as v1's; members only v2
// defines (session/status's state, a fork's availableCommands) are not the v1 agent's to
// send and are dropped; a fork's modes and configOptions are left to the caller, which
// lifts them with the session's state (V1Lifter::set_lists).
Status lift_unstable_answer(std::string_view method, const JsonValue& result, RawJson& out);
// A fork's lifted answer with the option list its modes and configOptions became.
Status with_fork_options(RawJson& answer, const std::optional<std::vector<v2::SessionConfigOption>>& options);

}  // namespace acp::detail
