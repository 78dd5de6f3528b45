// SPDX-License-Identifier: Apache-2.0
// The pull queue of the C API (internal): events no handler took wait here for
// acp_client_next_event, which never calls into the host, so FFI hosts need no C
// callbacks. A pipe is readable exactly while the queue holds events (acp_client_event_fd).
// Thread-safe: the loop thread pushes, any thread pops.
#pragma once

#include <deque>
#include <memory>
#include <mutex>

#include "acp/status.hpp"
#include "capi/event.hpp"

namespace acp::capi {

class EventQueue {
public:
    EventQueue() = default;
    ~EventQueue();  // frees what is still queued
    EventQueue(const EventQueue&) = delete;
    EventQueue& operator=(const EventQueue&) = delete;

    Status open();  // creates the pipe
    // A SESSION_CHANGED that only appended text to the item the last queued event
    // appended to joins that event (acp.h, acp_event_appended_text).
    void push(std::unique_ptr<acp_event> event);
    // The oldest event, or nullptr when empty.
    acp_event* pop();
    int size();
    int fd() const { return pipe_[0]; }
    void clear();

private:
    std::mutex mutex_;
    std::deque<acp_event*> events_;
    int pipe_[2] = {-1, -1};
};

}  // namespace acp::capi
