#include "client/session_tracker.hpp"

#include <utility>

namespace acp::detail {

namespace av2 = acp::v2;

namespace {

// Patch semantics for a per-entity capabilities field: absent leaves it, null or a
// value without cancel removes it (a malformed value decodes as absent upstream and
// counts as "no controls" for a new entity, which starts without any).
template <class Capabilities>
void patch_cancellable(std::unordered_set<std::string>& set, const std::string& id,
                       const Nullable<Capabilities>& capabilities) {
    if (capabilities.is_absent()) return;
    if (capabilities.has_value() && capabilities->cancel.has_value()) {
        set.insert(id);
    } else {
        set.erase(id);
    }
}

}  // namespace

void SessionTracker::set_config_options(const std::string& session_id, std::vector<av2::SessionConfigOption> options) {
    Session& session = sessions_[session_id];
    session.has_options = true;
    session.options = std::move(options);
}

const std::vector<av2::SessionConfigOption>* SessionTracker::config_options(const std::string& session_id) const {
    auto it = sessions_.find(session_id);
    return it != sessions_.end() && it->second.has_options ? &it->second.options : nullptr;
}

void SessionTracker::apply_tool_call(const std::string& session_id, const av2::ToolCallUpdate& update) {
    patch_cancellable(sessions_[session_id].cancellable_tool_calls, update.toolCallId, update.capabilities);
}

void SessionTracker::apply(const av2::UpdateSessionNotification& notification) {
    const auto& update = notification.update;
    switch (update.kind()) {
        case av2::SessionUpdate::Kind::tool_call_update:
            apply_tool_call(notification.sessionId, *update.tool_call_update());
            break;
        case av2::SessionUpdate::Kind::terminal_update: {
            const auto& terminal = *update.terminal_update();
            patch_cancellable(sessions_[notification.sessionId].cancellable_terminals, terminal.terminalId,
                              terminal.capabilities);
            break;
        }
        case av2::SessionUpdate::Kind::config_option_update:
            set_config_options(notification.sessionId, update.config_option_update()->configOptions);
            break;
        default: break;
    }
}

bool SessionTracker::tool_call_cancellable(const std::string& session_id, const std::string& tool_call_id) const {
    auto it = sessions_.find(session_id);
    return it != sessions_.end() && it->second.cancellable_tool_calls.count(tool_call_id) != 0;
}

bool SessionTracker::terminal_cancellable(const std::string& session_id, const std::string& terminal_id) const {
    auto it = sessions_.find(session_id);
    return it != sessions_.end() && it->second.cancellable_terminals.count(terminal_id) != 0;
}

}  // namespace acp::detail
