// SPDX-License-Identifier: Apache-2.0
// Replays that end after their answer (internal).
//
// Some agents send part of a replay after the session/resume (v1: session/load) answer.
// The replay, and the host's callback, end once the answer arrived and the session has
// then been quiet for ClientOptions::replay_settle: each update for the session restarts
// the wait, up to kMaxSettleFactor times replay_settle after the answer. So late history
// is still replay (no completions, CLIENT-MUST-58) and never lands behind the host's next
// prompt. When the connection ends, every settling replay ends at once.
//
//   settler.settle(session_id, [=] { store.end_replay(session_id); done(response); });
//   ... settler.traffic(session_id);   // for every update of that session
#pragma once

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "support/uv_handle.hpp"

namespace acp::detail {

struct ClientCore;

class ReplaySettler {
public:
    // ended(session_id) runs when a session's replay is over, before its finish.
    ReplaySettler(ClientCore& core, std::function<void(const std::string&)> ended);
    ReplaySettler(const ReplaySettler&) = delete;
    ReplaySettler& operator=(const ReplaySettler&) = delete;

    // The answer arrived: finish runs once the session has been quiet long enough (at
    // once when replay_settle is 0 or the connection has ended).
    void settle(const std::string& session_id, std::function<void()> finish);
    // An update for the session arrived: a settling replay waits longer.
    void traffic(const std::string& session_id);
    // The connection ended: nothing more can arrive, every settling replay is over.
    void settle_all();

private:
    static constexpr uint64_t kMaxSettleFactor = 40;
    struct Settling {
        ReplaySettler* owner = nullptr;
        std::string session_id;
        std::function<void()> finish;
        uint64_t deadline = 0;  // uv_now() past which updates no longer extend the wait
        UvHandlePtr<uv_timer_t> timer;
    };

    static void on_timer(uv_timer_t* timer);
    void settled(std::string session_id);
    uint64_t settle_ms() const;

    ClientCore& core_;
    std::function<void(const std::string&)> ended_;
    std::unordered_map<std::string, std::unique_ptr<Settling>> settling_;
};

}  // namespace acp::detail
