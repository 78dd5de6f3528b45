// What the client must remember about each session to gate its own requests: the config
// options as last reported (CLIENT-MUST-45, -56) and which tool calls and terminals
// currently advertise cancel (CLIENT-MUST-36). The full session model is a layer above;
// this is only what the checks before sending need.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "acp/v2/types.hpp"

namespace acp::detail {

class SessionTracker {
public:
    void add(const std::string& session_id) { sessions_[session_id]; }
    void remove(const std::string& session_id) { sessions_.erase(session_id); }
    bool knows(const std::string& session_id) const { return sessions_.count(session_id) != 0; }

    void set_config_options(const std::string& session_id, std::vector<acp::v2::SessionConfigOption> options);
    // nullptr while the agent has reported no options for the session.
    const std::vector<acp::v2::SessionConfigOption>* config_options(const std::string& session_id) const;

    void apply(const acp::v2::UpdateSessionNotification& notification);
    void apply_tool_call(const std::string& session_id, const acp::v2::ToolCallUpdate& update);

    bool tool_call_cancellable(const std::string& session_id, const std::string& tool_call_id) const;
    bool terminal_cancellable(const std::string& session_id, const std::string& terminal_id) const;

private:
    struct Session {
        bool has_options = false;
        std::vector<acp::v2::SessionConfigOption> options;
        std::unordered_set<std::string> cancellable_tool_calls;
        std::unordered_set<std::string> cancellable_terminals;
    };
    std::unordered_map<std::string, Session> sessions_;
};

}  // namespace acp::detail
