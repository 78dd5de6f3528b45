// SPDX-License-Identifier: Apache-2.0
#include "client/update_router.hpp"

#include <rapidjson/stringbuffer.h>

#include <iterator>
#include <utility>

#include "client/chunk_line.hpp"
#include "client/client_core.hpp"
#include "protocol/unstable_additions.hpp"
#include "protocol/v2/codec.hpp"

namespace acp::detail {

namespace {

// What a held update costs: its size as JSON (only measured for updates that are held).
std::size_t held_size(const v2::UpdateSessionNotification& notification) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    v2::codec::encode(writer, notification);
    return buffer.GetSize();
}

std::string described(const v2::UpdateSessionNotification& notification) {
    return "a session/update (" + notification.update.tag() + ")";
}

}  // namespace

UpdateRouter::UpdateRouter(ClientCore& core)
    : core_(core),
      settler_(core, [this](const std::string& session_id) { resuming_.erase(session_id); }),
      turn_watch_(core),
      unknown_(core, "which this client did not open (no session/new, resume, load or list of it named it)"),
      closed_traffic_(core, "which this client closed") {}

UpdateRouter::Route UpdateRouter::classify(std::string_view session_id) const {
    return classify_id(std::string(session_id));
}

UpdateRouter::Route UpdateRouter::classify_id(const std::string& id) const {
    if (known_.count(id) != 0) return Route::deliver;
    if (closed_.count(id) != 0) return Route::closed;
    if (pending_new_ > 0) return Route::hold;
    return Route::unknown;
}

void UpdateRouter::route(v2::UpdateSessionNotification notification) {
    switch (classify(notification.sessionId)) {
        case Route::deliver: return deliver(notification);
        case Route::hold: return hold(std::move(notification));
        case Route::closed:
            settler_.traffic(notification.sessionId);
            closed_traffic_.dropped(notification.sessionId, described(notification));
            return;
        case Route::unknown: unknown_.dropped(notification.sessionId, described(notification)); return;
    }
}

bool UpdateRouter::deliver_chunk_line(char* line, std::size_t size) {
    // The host's handler takes typed updates: it pays for them, on the full path.
    if (core_.host.session_update || !joiner_.idle()) return false;
    std::optional<ChunkLine> chunk = scan_chunk_line(line, size);
    if (!chunk || !delivers(chunk->session_id)) return false;
    chunk_item_id_.assign(chunk->item_id);
    if (chunk->terminal) {
        applied(core_.store.apply_terminal_chunk(chunk_session_id_, chunk_item_id_, chunk->data()),
                "terminal_output_chunk");
    } else {
        applied(core_.store.apply_text_chunk(chunk_session_id_, chunk->kind, chunk_item_id_, decode_text(*chunk)),
                "a text chunk");
    }
    return true;
}

bool UpdateRouter::delivers(std::string_view session_id) {
    chunk_session_id_.assign(session_id);
    return classify_id(chunk_session_id_) == Route::deliver;
}

// What deliver_joined() does after the model took the update, without a typed one.
void UpdateRouter::applied(const Status& status, const char* tag) {
    settler_.traffic(chunk_session_id_);
    if (!status) {
        core_.log_session(LogLevel::warning,
                          std::string("session/update ") + tag + " only partly applied: " + status.message());
    }
    turn_watch_.activity(chunk_session_id_);
    core_.model_settled();
}

void UpdateRouter::deliver(v2::UpdateSessionNotification& notification) {
    if (auto unpaired = joiner_.join(notification)) deliver_joined(*unpaired);
    if (core_.orphaned) return;
    deliver_joined(notification);
}

void UpdateRouter::deliver_joined(const v2::UpdateSessionNotification& notification) {
    settler_.traffic(notification.sessionId);
    if (Status applied = core_.store.apply(notification); !applied) {
        core_.log_session(LogLevel::warning,
                          "session/update " + notification.update.tag() + " only partly applied: " + applied.message());
    }
    turn_watch_.activity(notification.sessionId);
    core_.model_settled();
    // A subagent's traffic comes without a resume (CLIENT-GUIDE 6.7): its parent announced it.
    if (const RawJson* raw = notification.update.unknown();
        raw != nullptr && notification.update.tag() == "subagent_update") {
        v2::unstable::SessionUpdateAdditions added;
        if (detail::decode_variant(notification.update.tag(), *raw, added) && added.subagent_update() != nullptr) {
            adopt_subagent(added.subagent_update()->sessionId);
        }
    }
    if (core_.host.session_update && !core_.orphaned) core_.host.session_update(notification);
}

// The agent chooses how many subagents it announces: a bounded number become known.
void UpdateRouter::adopt_subagent(const std::string& session_id) {
    if (known_.count(session_id) != 0) return;
    if (subagents_.size() >= core_.options.max_subagent_sessions) {
        if (!subagent_bound_logged_) {
            subagent_bound_logged_ = true;
            core_.log_session(LogLevel::warning,
                              "the agent announced more than " + std::to_string(core_.options.max_subagent_sessions) +
                                  " subagent sessions (ClientOptions::max_subagent_sessions): the traffic of further "
                                  "ones is dropped");
        }
        return;
    }
    subagents_.insert(session_id);
    known_.insert(session_id);
}

// Updates for a session whose session/new answer is still on its way are held until it
// arrives (AGENT-MUST-07: they may come first), within the bounds.
void UpdateRouter::hold(v2::UpdateSessionNotification notification) {
    const std::size_t size = held_size(notification);
    if (held_.size() < core_.options.max_held_updates && held_bytes_ + size <= core_.options.max_held_update_bytes) {
        held_bytes_ += size;
        held_.push_back(std::move(notification));
        return;
    }
    if (dropped_at_bound_++ == 0) {
        core_.log_session(LogLevel::warning,
                          "updates held for a pending session/new reached their bound (" +
                              std::to_string(held_.size()) + " updates, " + std::to_string(held_bytes_) +
                              " bytes; ClientOptions::max_held_updates / max_held_update_bytes): further updates for "
                              "sessions not known yet are dropped until a session/new answers");
    }
}

bool UpdateRouter::admits_request(std::string_view session_id, const Responder& responder) {
    const Route route = classify(session_id);
    if (route == Route::deliver) {
        turn_watch_.activity(std::string(session_id));
        return true;
    }
    const std::string what = "a " + responder.method() + " request";
    // A pending session/new does not help: no answer has named this session yet.
    (route == Route::closed ? closed_traffic_ : unknown_).dropped(session_id, what);
    responder.fail(error_code::resource_not_found, "Resource not found: no such session on this client",
                   [session_id](JsonWriter& w) {
                       w.StartObject();
                       w.Key("sessionId");
                       write_string(w, session_id);
                       w.EndObject();
                   });
    return false;
}

void UpdateRouter::new_session_sent() { ++pending_new_; }

void UpdateRouter::new_session_answered(const std::string* session_id) {
    --pending_new_;
    if (session_id != nullptr) known_.insert(*session_id);
    release_held(session_id);
    if (dropped_at_bound_ != 0 && pending_new_ == 0) {
        core_.log_session(
            LogLevel::warning,
            std::to_string(dropped_at_bound_) +
                " updates that arrived before a session/new answer were dropped at the bound; the model of "
                "the new session may lack some of them");
        dropped_at_bound_ = 0;
    }
}

// After a session/new answer: hand out what was held for it; once no session/new is
// pending, whatever is left belongs to a session nobody opened (CLIENT-GUIDE §4.3: a
// failed session/new's updates are dropped).
void UpdateRouter::release_held(const std::string* session_id) {
    std::vector<v2::UpdateSessionNotification> keep;
    std::vector<v2::UpdateSessionNotification> held;
    held.swap(held_);
    held_bytes_ = 0;
    for (auto& notification : held) {
        if (core_.orphaned) return;
        if (session_id != nullptr && notification.sessionId == *session_id) {
            deliver(notification);
        } else if (pending_new_ > 0) {
            keep.push_back(std::move(notification));
        } else {
            unknown_.dropped(notification.sessionId, described(notification));
        }
    }
    // What arrived while the host's callbacks ran stays held after what was kept.
    keep.insert(keep.end(), std::make_move_iterator(held_.begin()), std::make_move_iterator(held_.end()));
    held_.swap(keep);
    for (const auto& notification : held_) held_bytes_ += held_size(notification);
}

Status UpdateRouter::check_not_resuming(const std::string& session_id) const {
    if (resuming_.count(session_id) == 0) return Status();
    return Status(Errc::invalid_argument, "a resume of session " + session_id + " is already under way");
}

UpdateRouter::Membership UpdateRouter::begin_resume(const std::string& session_id, bool full_replay) {
    Membership before{known_.count(session_id) != 0, closed_.count(session_id) != 0};
    known_.insert(session_id);
    closed_.erase(session_id);
    resuming_.insert(session_id);
    if (full_replay) {
        core_.store.begin_replay(session_id);
    } else {
        core_.store.begin_resume(session_id);
    }
    return before;
}

void UpdateRouter::resume_refused(const std::string& session_id, Membership before) {
    if (!before.known) known_.erase(session_id);
    if (before.closed) closed_.insert(session_id);
    resuming_.erase(session_id);
    core_.store.abort_replay(session_id);
}

void UpdateRouter::resume_answered(const std::string& session_id, std::function<void()> finish) {
    settler_.settle(session_id, [this, session_id, finish = std::move(finish)] {
        core_.store.end_replay(session_id);
        finish();
    });
}

void UpdateRouter::session_closed(const std::string& session_id) {
    known_.erase(session_id);
    closed_.insert(session_id);
    turn_watch_.forget(session_id);
    joiner_.forget(session_id);
}

bool UpdateRouter::is_closed(const std::string& session_id) const { return closed_.count(session_id) != 0; }

void UpdateRouter::sessions_listed(const std::vector<v2::SessionInfo>& sessions) {
    for (const auto& info : sessions) {
        if (closed_.count(info.sessionId) == 0) known_.insert(info.sessionId);
        if (core_.store.find(info.sessionId)) core_.store.set_session_info(info);
    }
}

void UpdateRouter::apply_lists(const std::string& session_id,
                               const std::optional<std::vector<v2::SessionConfigOption>>& options,
                               const std::optional<std::vector<v2::AvailableCommand>>& commands) {
    if (options) core_.store.set_config_options(session_id, *options);
    if (commands) core_.store.set_available_commands(session_id, *commands);
}

void UpdateRouter::connection_ended() {
    turn_watch_.stop_all();
    settler_.settle_all();
}

}  // namespace acp::detail
