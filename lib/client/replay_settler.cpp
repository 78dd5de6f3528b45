// SPDX-License-Identifier: Apache-2.0
#include "client/replay_settler.hpp"

#include <exception>
#include <utility>

#include "client/client_core.hpp"

namespace acp::detail {

ReplaySettler::ReplaySettler(ClientCore& core, std::function<void(const std::string&)> ended)
    : core_(core), ended_(std::move(ended)) {}

uint64_t ReplaySettler::settle_ms() const { return static_cast<uint64_t>(core_.options.replay_settle.count()); }

void ReplaySettler::settle(const std::string& session_id, std::function<void()> finish) {
    if (core_.options.replay_settle.count() <= 0 || core_.connection_ended) {
        ended_(session_id);
        return finish();
    }
    auto settling = std::make_unique<Settling>();
    settling->owner = this;
    settling->session_id = session_id;
    settling->finish = std::move(finish);
    settling->deadline = uv_now(core_.loop) + kMaxSettleFactor * settle_ms();
    settling->timer.reset(new uv_timer_t{});
    uv_timer_init(core_.loop, settling->timer.get());
    settling->timer->data = settling.get();
    uv_timer_start(settling->timer.get(), &ReplaySettler::on_timer, settle_ms(), 0);
    settling_[session_id] = std::move(settling);
}

void ReplaySettler::on_timer(uv_timer_t* timer) {
    auto* settling = static_cast<Settling*>(timer->data);
    ReplaySettler* owner = settling->owner;
    auto keep_alive = owner->core_.keep_alive();
    owner->settled(std::string(settling->session_id));
}

void ReplaySettler::settled(std::string session_id) {
    auto found = settling_.find(session_id);
    if (found == settling_.end()) return;
    std::function<void()> finish = std::move(found->second->finish);
    settling_.erase(found);
    ended_(session_id);
    if (core_.orphaned) return;
    // Runs from a timer, outside the connection's guard: nothing may reach libuv.
    try {
        finish();
    } catch (const std::exception& e) {
        core_.log(LogLevel::error, std::string("resume callback threw: ") + e.what());
    } catch (...) {
        core_.log(LogLevel::error, "resume callback threw a non-standard exception");
    }
}

void ReplaySettler::traffic(const std::string& session_id) {
    if (settling_.empty()) return;
    auto found = settling_.find(session_id);
    if (found == settling_.end() || uv_now(core_.loop) >= found->second->deadline) return;
    uv_timer_start(found->second->timer.get(), &ReplaySettler::on_timer, settle_ms(), 0);
}

void ReplaySettler::settle_all() {
    while (!settling_.empty() && !core_.orphaned) settled(settling_.begin()->first);
}

}  // namespace acp::detail
