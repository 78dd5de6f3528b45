// SPDX-License-Identifier: Apache-2.0
// The pull queue of the C API (internal): events no handler took wait here for
// acp_client_next_event, which never calls into the host, so FFI hosts need no C
// callbacks. A descriptor is readable exactly while the queue holds events
// (acp_client_event_fd; platform/ready_signal.hpp: none on Windows).
// Thread-safe: the loop thread pushes, any thread pops.
//
// Bounded by bytes, not by dropping: past max_bytes of queued events (their text and JSON,
// coalesced text included) the queue reports that it holds too much, and the Core stops
// reading from the agent until the host has pulled it down to resume_below (the agent
// then waits in its pipe, as for ClientOptions::max_queued_output_bytes). Nothing queued
// is ever lost.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "acp/status.hpp"
#include "capi/event.hpp"
#include "platform/ready_signal.hpp"

namespace acp::capi {

class EventQueue {
public:
    EventQueue() = default;
    ~EventQueue();  // frees what is still queued
    EventQueue(const EventQueue&) = delete;
    EventQueue& operator=(const EventQueue&) = delete;

    Status open();  // creates the ready signal
    // A SESSION_CHANGED that only appended text to the item the last queued event
    // appended to joins that event (acp.h, acp_event_appended_text).
    void push(std::unique_ptr<acp_event> event);
    // The oldest event, or nullptr when empty.
    acp_event* pop();
    int size();
    int fd() const { return ready_.descriptor(); }  // -1 where the platform has none
    void clear();

    // max_bytes 0: no bound. on_held_change runs (outside the lock, on the thread that
    // pushed or popped) whenever held() flips; it must not call back into the queue's
    // push or pop synchronously on another thread's behalf, only schedule.
    void set_bound(std::size_t max_bytes, std::size_t resume_below, std::function<void()> on_held_change);
    // Past max_bytes and not yet down to resume_below.
    bool held();
    std::size_t bytes();

private:
    // The bytes an event holds while queued, roughly: what the host will be handed.
    static std::size_t cost(const acp_event& event);
    // Under the lock: whether held_ flipped.
    bool update_held();

    std::mutex mutex_;
    std::deque<acp_event*> events_;
    std::size_t bytes_ = 0;
    std::size_t max_bytes_ = 0;
    std::size_t resume_below_ = 0;
    bool held_ = false;
    std::function<void()> on_held_change_;
    detail::ReadySignal ready_;
};

}  // namespace acp::capi
