// SPDX-License-Identifier: Apache-2.0
#include "client/update_router.hpp"

#include <iterator>
#include <utility>

#include "client/client_core.hpp"

namespace acp::detail {

UpdateRouter::UpdateRouter(ClientCore& core)
    : core_(core), settler_(core, [this](const std::string& session_id) { resuming_.erase(session_id); }) {}

UpdateRouter::Route UpdateRouter::classify(std::string_view session_id) const {
    const std::string id(session_id);
    if (known_.count(id) == 0 && pending_new_ > 0) return Route::hold;
    if (!closed_.empty() && closed_.count(id) != 0) return Route::closed;
    return Route::deliver;
}

void UpdateRouter::route(v2::UpdateSessionNotification notification) {
    switch (classify(notification.sessionId)) {
        case Route::deliver: return deliver(notification);
        case Route::hold:
            // Updates for a session whose session/new answer is still on its way are held
            // until it arrives (AGENT-MUST-07: they may come first).
            held_.push_back(std::move(notification));
            return;
        case Route::closed:
            settler_.traffic(notification.sessionId);
            core_.log(LogLevel::warning, "ignored a session/update (" + notification.update.tag() +
                                             ") for closed session " + notification.sessionId);
            return;
    }
}

void UpdateRouter::deliver(const v2::UpdateSessionNotification& notification) {
    settler_.traffic(notification.sessionId);
    if (Status applied = core_.store.apply(notification); !applied) {
        core_.log(LogLevel::warning,
                  "session/update " + notification.update.tag() + " only partly applied: " + applied.message());
    }
    if (core_.host.session_update && !core_.orphaned) core_.host.session_update(notification);
}

void UpdateRouter::new_session_sent() { ++pending_new_; }

void UpdateRouter::new_session_answered(const std::string* session_id) {
    --pending_new_;
    if (session_id != nullptr) known_.insert(*session_id);
    release_held(session_id);
}

// After a session/new answer: hand out what was held for it; once no session/new is
// pending, whatever is left belongs to nobody we know.
void UpdateRouter::release_held(const std::string* session_id) {
    std::vector<v2::UpdateSessionNotification> keep;
    std::vector<v2::UpdateSessionNotification> held;
    held.swap(held_);
    for (auto& notification : held) {
        if (core_.orphaned) return;
        if (session_id != nullptr && notification.sessionId == *session_id) {
            deliver(notification);
        } else if (pending_new_ > 0) {
            keep.push_back(std::move(notification));
        } else {
            // No session/new can claim it any more: its session failed to be created
            // (CLIENT-GUIDE §4.3: drop them). Said, not silently.
            core_.log(LogLevel::warning, "dropped a session/update (" + notification.update.tag() +
                                             ") for session " + notification.sessionId +
                                             ", which no session/new created");
        }
    }
    keep.insert(keep.end(), std::make_move_iterator(held_.begin()), std::make_move_iterator(held_.end()));
    held_.swap(keep);
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
}

bool UpdateRouter::is_closed(const std::string& session_id) const { return closed_.count(session_id) != 0; }

void UpdateRouter::sessions_listed(const std::vector<v2::SessionInfo>& sessions) {
    for (const auto& info : sessions) {
        if (core_.store.find(info.sessionId)) core_.store.set_session_info(info);
    }
}

void UpdateRouter::apply_lists(const std::string& session_id,
                               const std::optional<std::vector<v2::SessionConfigOption>>& options,
                               const std::optional<std::vector<v2::AvailableCommand>>& commands) {
    if (options) core_.store.set_config_options(session_id, *options);
    if (commands) core_.store.set_available_commands(session_id, *commands);
}

void UpdateRouter::connection_ended() { settler_.settle_all(); }

}  // namespace acp::detail
