// SPDX-License-Identifier: Apache-2.0
// acp/turn.hpp — one prompt turn in one call: send a prompt, follow the agent's reply as
// it streams, and learn how the turn ended.
//
// A prompt's response only acknowledges the user message (ACP v2, CLIENT-GUIDE §7.2); the
// turn ends later, when the agent reports the session idle. prompt_turn() joins the two:
// `done` runs once the turn this prompt started has ended, with the stop reason, and
// `on_text` receives the text of the agent's messages as each chunk arrives. Both follow
// the session model (acp/session.hpp: the text each chunk appended, the turn_ended event),
// so what they report is exactly what the model holds.
//
//   client->on_permission_request([](const acp::v2::RequestPermissionRequest& r, acp::PermissionResponder p) {
//       p.select(r.options.front().optionId);
//   });
//   acp::prompt_turn(*client, session_id, "Fix the failing test",
//       [](const acp::TurnText& t) { std::cout << t.text << std::flush; },
//       [](acp::Result<acp::TurnEnd> end) {
//           if (!end) std::cerr << end.status().to_string() << "\n";
//           else std::cout << "\n[" << end->stop_reason.value_or("?") << "]\n";
//       });
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acp/client.hpp"
#include "acp/export.hpp"
#include "acp/status.hpp"
#include "acp/v2/types.hpp"

namespace acp {

// Some text an agent message of the turn gained.
struct TurnText {
    std::string_view message_id;  // the agent message (its messageId)
    std::string_view text;        // the text it gained (UTF-8; a part of a message)
    bool starts_message = false;  // the first text of this message in the turn
};

// How a turn ended (the session's idle state, CLIENT-GUIDE §6.6).
struct TurnEnd {
    // The id the agent gave the user message (PromptResponse.messageId).
    std::string user_message_id;
    // "end_turn", "cancelled", "max_tokens", "refusal", "error", a custom value; nullopt
    // when the agent reported none.
    std::optional<std::string> stop_reason;
    // stop_reason "error": the failure, when the agent sent one.
    std::optional<v2::Error> error;

    bool ended_normally() const { return stop_reason && *stop_reason == "end_turn"; }
};

using TurnTextHandler = std::function<void(const TurnText&)>;

// Sends the prompt and completes when the turn it started has ended: `done` receives the
// TurnEnd, or a Status when the prompt was refused or failed (nothing was inserted), the
// session was closed or removed, or the connection ended before the turn did.
//
// `on_text` (may be empty) receives the text of every agent message inserted or extended
// after the prompt's user message, as the chunks arrive, in order, and always before
// `done`: once the update that brought the text is in the model, before on_session_update
// sees it and before any later update or permission request. `done` runs on a later loop
// turn. Neither runs inside a model change, so both may call any Client method (cancel()
// ends the turn with "cancelled").
//
// Permission and elicitation requests of the turn go to the Client's handlers as usual.
// Meant for one turn at a time per session: with a prompt the agent holds while another
// turn runs, text of that other turn that arrives after this prompt was sent is reported
// too (the end is still this prompt's own, found by its user message).
ACP_EXPORT RequestHandle prompt_turn(Client& client, const std::string& session_id, std::string text,
                                     TurnTextHandler on_text, Callback<TurnEnd> done);
// The same with any content blocks (text, resource links, ...).
ACP_EXPORT RequestHandle prompt_turn(Client& client, const std::string& session_id,
                                     std::vector<v2::ContentBlock> prompt, TurnTextHandler on_text,
                                     Callback<TurnEnd> done);

}  // namespace acp
