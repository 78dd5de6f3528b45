// SPDX-License-Identifier: Apache-2.0
#include "capi/event_queue.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace acp::capi {

EventQueue::~EventQueue() {
    clear();
    for (int fd : pipe_) {
        if (fd >= 0) ::close(fd);
    }
}

Status EventQueue::open() {
    if (::pipe(pipe_) != 0) return Status(Errc::internal, "pipe() failed");
    for (int fd : pipe_) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    return Status();
}

namespace {

// A text append to the item a queued append changed, with nothing queued between them.
bool appends_to(const acp_event& last, const acp_event& next) {
    return next.type == ACP_EVENT_SESSION_CHANGED && next.change == ACP_CHANGE_ITEM_CHANGED &&
           next.appended_text.has_value() && last.type == ACP_EVENT_SESSION_CHANGED &&
           (last.change == ACP_CHANGE_ITEM_CHANGED || last.change == ACP_CHANGE_ITEM_INSERTED) &&
           last.appended_text.has_value() && last.item_index == next.item_index && last.item_kind == next.item_kind &&
           last.session_id == next.session_id;
}

}  // namespace

void EventQueue::push(std::unique_ptr<acp_event> event) {
    std::lock_guard<std::mutex> lock(mutex_);
    // Still queued, so no host holds it: it may grow (pop takes it under the same lock).
    if (!events_.empty() && appends_to(*events_.back(), *event)) {
        events_.back()->appended_text->append(*event->appended_text);
        return;
    }
    if (events_.empty()) {
        const char byte = 1;
        // The pipe holds at most one byte at a time: readable = non-empty queue.
        [[maybe_unused]] ssize_t written = ::write(pipe_[1], &byte, 1);
    }
    events_.push_back(event.release());
}

acp_event* EventQueue::pop() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (events_.empty()) return nullptr;
    acp_event* event = events_.front();
    events_.pop_front();
    if (events_.empty()) {
        char buffer[16];
        while (::read(pipe_[0], buffer, sizeof buffer) > 0) {
        }
    }
    return event;
}

int EventQueue::size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(events_.size());
}

void EventQueue::clear() {
    std::deque<acp_event*> queued;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queued.swap(events_);
    }
    for (auto* event : queued) delete event;
}

}  // namespace acp::capi
