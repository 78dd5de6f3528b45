// SPDX-License-Identifier: Apache-2.0
// Emoji split across two streamed chunks (internal).
//
// A JavaScript agent may cut a message's text between the two halves of a UTF-16
// surrogate pair: chunk 1 ends with `\uD83D`, chunk 2 starts with `\uDE00`. A JavaScript
// client concatenates the strings and shows 😀. The parser turns both halves into U+FFFD
// and reports them (jsonrpc/lone_surrogates.hpp); here they are joined again:
//
// 1. The drivers mark a decoded message chunk whose text lost a half at an edge:
//    mark_chunk_edges() writes the half back as its 3-byte WTF-8 form in place of the
//    U+FFFD. Such bytes are not UTF-8, and never leave the UpdateRouter.
// 2. The router passes every update through SurrogateJoiner::join() before it goes into
//    the model and to the host. A trailing high half is taken off its chunk and kept for
//    the session; the next chunk of the same message that starts with a low half gets the
//    whole character in its place. A half that finds no partner becomes U+FFFD: at the
//    start of that next chunk, or, when the session's next update is something else, as
//    a chunk of its own ("\uFFFD") delivered first.
// So the model, on_session_update, the C API and the bindings all see valid UTF-8, and
// the chunks' texts concatenate to what a JavaScript client would show.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "acp/v2/types.hpp"
#include "jsonrpc/json.hpp"
#include "jsonrpc/lone_surrogates.hpp"

namespace acp::detail {

// The text of the content of a session/update's params (v1 and v2 alike), or nullptr.
const JsonValue* chunk_text_value(const JsonValue* params);
// edges: what the parser reported for that text (nullptr: nothing to mark).
void mark_chunk_edges(const StringEdgeSurrogates* edges, v2::UpdateSessionNotification& notification);

class SurrogateJoiner {
public:
    // Makes the notification's chunk text valid UTF-8. Returns a chunk that must be
    // delivered before it when a half kept from the session's last chunk found no partner.
    std::optional<v2::UpdateSessionNotification> join(v2::UpdateSessionNotification& notification);
    void forget(const std::string& session_id) { pending_.erase(session_id); }
    // No half waits in any session: join() would change nothing.
    bool idle() const { return pending_.empty(); }

private:
    struct Pending {
        v2::SessionUpdate::Kind kind;
        std::string message_id;
        std::uint16_t high;
    };
    // At most one per session: any other update of the session settles it.
    std::unordered_map<std::string, Pending> pending_;
};

}  // namespace acp::detail
