// SPDX-License-Identifier: Apache-2.0
// Silent turns (internal): while a session's foreground work runs (its model's state is
// neither idle nor requires_action), every update or request the agent sends for it
// restarts a timer; when the session has then been silent for ClientOptions::turn_silence,
// the host's on_turn_silent handler is told, once per silence. A report, never a kill:
// what to do (wait, cancel, restart the agent) is the host's decision.
#pragma once

#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "support/uv_handle.hpp"

namespace acp::detail {

struct ClientCore;

class TurnWatch {
public:
    explicit TurnWatch(ClientCore& core) : core_(core) {}
    TurnWatch(const TurnWatch&) = delete;
    TurnWatch& operator=(const TurnWatch&) = delete;

    // The agent said something about the session (after the model took it in).
    void activity(const std::string& session_id);
    // The session was closed: no more reports for it.
    void forget(const std::string& session_id) { watches_.erase(session_id); }
    // Nothing more can come: no more reports.
    void stop_all() { watches_.clear(); }

private:
    struct Watch {
        TurnWatch* owner = nullptr;
        std::string session_id;
        UvHandlePtr<uv_timer_t> timer;
    };
    static void on_timer(uv_timer_t* timer);
    void report(const std::string& session_id);

    ClientCore& core_;
    std::unordered_map<std::string, std::unique_ptr<Watch>> watches_;  // sessions whose turn runs
};

}  // namespace acp::detail
