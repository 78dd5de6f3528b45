// SPDX-License-Identifier: Apache-2.0
// Where the agent's session traffic goes (internal): which sessions this client has
// (membership), what waits for a pending session/new, and delivery into the session model
// and then to the host.
//
// Both protocol drivers hand it v2-shaped notifications (a v1 agent's already lifted).
// Membership comes from the drivers' session calls only: session/new answers,
// session/resume (v1 session/load) when sent, session/list answers, session/close and
// session/delete answers. Traffic for any other session is dropped and reported, never
// put into the model, and the agent's requests for such a session are refused: an agent
// cannot make the client hold sessions it did not open (docs/untrusted-agent.md).
//
// route() decides in two steps, classify() on the session id alone and then deliver() or
// hold(), so that a later fast path can classify a text chunk straight from the parsed
// JSON and apply it to the model without building an owned notification (the typed one
// is only needed when the host installed on_session_update).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "acp/status.hpp"
#include "acp/v2/types.hpp"
#include "client/dropped_traffic.hpp"
#include "client/replay_settler.hpp"
#include "client/split_surrogates.hpp"
#include "client/turn_watch.hpp"
#include "jsonrpc/connection.hpp"

namespace acp::detail {

struct ClientCore;

class UpdateRouter {
public:
    explicit UpdateRouter(ClientCore& core);
    UpdateRouter(const UpdateRouter&) = delete;
    UpdateRouter& operator=(const UpdateRouter&) = delete;

    enum class Route {
        deliver,  // a session of this client: into the model, then to the host
        hold,     // not known while a session/new is pending: it may be that session's
        closed,   // after its close (or delete) answer: ignored (CLIENT-GUIDE 7.7)
        unknown,  // a session this client never opened: dropped
    };
    Route classify(std::string_view session_id) const;

    void route(v2::UpdateSessionNotification notification);
    // The fast path for streamed text: a line that is nothing but a plain text chunk (or
    // terminal output chunk, client/chunk_line.hpp) for a session of this client goes from
    // the raw line straight into the model. False, with the line untouched, when it is not
    // one, or when the host's on_session_update wants a typed update, a surrogate half
    // waits to be joined, or the session is not delivered to: then the line is parsed,
    // decoded and route()d as usual.
    bool deliver_chunk_line(char* line, std::size_t size);
    // Into the model first, so the host's callback sees the session with it applied; a
    // surrogate pair split across two chunks is joined on the way (client/split_surrogates.hpp).
    void deliver(v2::UpdateSessionNotification& notification);

    // For an agent request about a session (permission, elicitation, v1 fs/terminal):
    // false when it names no session of this client; then it has been answered -32002
    // with {sessionId} (CLIENT-GUIDE §5.2 rec., Appendix B 19) and reported, and the host
    // never sees it.
    bool admits_request(std::string_view session_id, const Responder& responder);

    // --- membership, from the drivers' session calls -----------------------------------
    void new_session_sent();
    // The answer: its session joins and what was held for it goes first (CLIENT-MUST-59);
    // nullptr when the call failed.
    void new_session_answered(const std::string* session_id);

    // Whether a session was known or closed before a resume, so a refused resume can
    // leave things as they were.
    struct Membership {
        bool known = false;
        bool closed = false;
    };
    // Two resumes of one session at once would interleave their replays.
    Status check_not_resuming(const std::string& session_id) const;
    // The replay names this session before the answer does. A full replay rebuilds the
    // session from nothing (docs/session-model.md); a plain resume or a later cursor
    // continues what the client holds.
    Membership begin_resume(const std::string& session_id, bool full_replay);
    void resume_refused(const std::string& session_id, Membership before);
    // finish runs once the replay has settled (client/replay_settler.hpp).
    void resume_answered(const std::string& session_id, std::function<void()> finish);
    // Closed (or deleted): its model stays for the host to show; nothing in it can be
    // cancelled now, and what the agent still sends for it is ignored.
    void session_closed(const std::string& session_id);
    bool is_closed(const std::string& session_id) const;
    // Listed sessions join (a host may resume them; until then the agent should send
    // nothing for them), and what the list says of sessions the model holds (title, cwd,
    // roots) goes into them.
    void sessions_listed(const std::vector<v2::SessionInfo>& sessions);
    // Lists a session answer carries replace the session's (CLIENT-MUST-56).
    void apply_lists(const std::string& session_id, const std::optional<std::vector<v2::SessionConfigOption>>& options,
                     const std::optional<std::vector<v2::AvailableCommand>>& commands);

    void connection_ended();

private:
    void deliver_joined(const v2::UpdateSessionNotification& notification);
    void adopt_subagent(const std::string& session_id);
    void hold(v2::UpdateSessionNotification notification);
    void release_held(const std::string* session_id);

    Route classify_id(const std::string& session_id) const;
    // The fast path: whether the session is delivered to (kept in chunk_session_id_), and
    // what follows once the model took the chunk.
    bool delivers(std::string_view session_id);
    void applied(const Status& status, const char* tag);

    ClientCore& core_;
    ReplaySettler settler_;
    TurnWatch turn_watch_;
    SurrogateJoiner joiner_;
    DroppedTraffic unknown_;
    DroppedTraffic closed_traffic_;
    std::set<std::string> known_;      // opened, resumed or listed by this client
    std::set<std::string> subagents_;  // of them, announced by a parent's subagent_update
    bool subagent_bound_logged_ = false;
    std::set<std::string> closed_;    // until resumed again
    std::set<std::string> resuming_;  // a resume in flight or settling
    int pending_new_ = 0;
    // Held for a pending session/new, bounded by ClientOptions::max_held_updates and
    // max_held_update_bytes; what comes past the bound is dropped and counted.
    std::vector<v2::UpdateSessionNotification> held_;
    std::size_t held_bytes_ = 0;
    uint64_t dropped_at_bound_ = 0;
    // Reused by the text fast path, so a chunk allocates nothing for its ids.
    std::string chunk_session_id_;
    std::string chunk_item_id_;
};

}  // namespace acp::detail
