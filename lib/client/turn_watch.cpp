// SPDX-License-Identifier: Apache-2.0
#include "client/turn_watch.hpp"

#include <chrono>
#include <exception>

#include "client/client_core.hpp"
#include "client/dropped_traffic.hpp"

namespace acp::detail {

namespace {

bool turn_runs(const SessionState* session) {
    if (session == nullptr) return false;
    const std::string& state = session->foreground().state;
    // requires_action waits for the user, not the agent; an unknown state counts as busy.
    return state != "idle" && state != "requires_action";
}

}  // namespace

void TurnWatch::activity(const std::string& session_id) {
    const auto silence = core_.options.turn_silence;
    if (!core_.host.turn_silent || silence.count() <= 0 || core_.connection_ended ||
        !turn_runs(core_.store.find(session_id))) {
        watches_.erase(session_id);
        return;
    }
    auto& watch = watches_[session_id];
    if (!watch) {
        watch = std::make_unique<Watch>();
        watch->owner = this;
        watch->session_id = session_id;
        watch->timer.reset(new uv_timer_t{});
        uv_timer_init(core_.loop, watch->timer.get());
        watch->timer->data = watch.get();
    }
    uv_timer_start(watch->timer.get(), &TurnWatch::on_timer, static_cast<uint64_t>(silence.count()), 0);
}

void TurnWatch::on_timer(uv_timer_t* timer) {
    auto* watch = static_cast<Watch*>(timer->data);
    TurnWatch* owner = watch->owner;
    auto keep_alive = owner->core_.keep_alive();
    owner->report(std::string(watch->session_id));  // a copy: the handler may end the watch
}

void TurnWatch::report(const std::string& session_id) {
    if (core_.orphaned || !core_.host.turn_silent) return;
    const auto silence = core_.options.turn_silence;
    core_.log_session(LogLevel::warning, "session " + DroppedTraffic::shown(session_id) +
                                             ": the running turn has produced nothing for " +
                                             std::to_string(silence.count()) + " ms");
    // Runs from a timer, outside the connection's guard: nothing may reach libuv.
    try {
        core_.host.turn_silent(session_id, silence);
    } catch (const std::exception& e) {
        core_.log(LogLevel::error, std::string("on_turn_silent handler threw: ") + e.what());
    } catch (...) {
        core_.log(LogLevel::error, "on_turn_silent handler threw a non-standard exception");
    }
}

}  // namespace acp::detail
