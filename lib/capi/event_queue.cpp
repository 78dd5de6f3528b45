// SPDX-License-Identifier: Apache-2.0
#include "capi/event_queue.hpp"

#include <algorithm>

namespace acp::capi {

EventQueue::~EventQueue() { clear(); }

Status EventQueue::open() { return ready_.open(); }

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

std::size_t EventQueue::cost(const acp_event& event) {
    std::size_t bytes = sizeof(acp_event) + event.json.size() + event.message.size() + event.rpc_data.size();
    for (const auto* text : {&event.text, &event.appended_text, &event.session_id, &event.item_id, &event.method}) {
        if (text->has_value()) bytes += (*text)->size();
    }
    return bytes;
}

bool EventQueue::update_held() {
    const bool was = held_;
    if (max_bytes_ == 0) {
        held_ = false;
    } else if (!held_ && bytes_ > max_bytes_) {
        held_ = true;
    } else if (held_ && bytes_ <= resume_below_) {
        held_ = false;
    }
    return held_ != was;
}

void EventQueue::push(std::unique_ptr<acp_event> event) {
    std::function<void()> notify;  // copied under the lock: set_bound may replace it
    {
        std::lock_guard<std::mutex> lock(mutex_);
        // Still queued, so no host holds it: it may grow (pop takes it under the same lock).
        if (!events_.empty() && appends_to(*events_.back(), *event)) {
            events_.back()->appended_text->append(*event->appended_text);
            bytes_ += event->appended_text->size();
        } else {
            // Raised once, when the queue stops being empty: readable = non-empty queue.
            if (events_.empty()) ready_.raise();
            bytes_ += cost(*event);
            events_.push_back(event.release());
        }
        if (update_held()) notify = on_held_change_;
    }
    if (notify) notify();
}

acp_event* EventQueue::pop() {
    acp_event* event = nullptr;
    std::function<void()> notify;  // copied under the lock: set_bound may replace it
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (events_.empty()) return nullptr;
        event = events_.front();
        events_.pop_front();
        bytes_ -= std::min(bytes_, cost(*event));
        if (events_.empty()) {
            bytes_ = 0;
            ready_.lower();
        }
        if (update_held()) notify = on_held_change_;
    }
    if (notify) notify();
    return event;
}

int EventQueue::size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(events_.size());
}

void EventQueue::set_bound(std::size_t max_bytes, std::size_t resume_below, std::function<void()> on_held_change) {
    std::function<void()> notify;  // copied under the lock: set_bound may replace it
    {
        std::lock_guard<std::mutex> lock(mutex_);
        max_bytes_ = max_bytes;
        resume_below_ = std::min(resume_below, max_bytes);
        on_held_change_ = std::move(on_held_change);
        if (update_held()) notify = on_held_change_;
    }
    if (notify) notify();
}

bool EventQueue::held() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_;
}

std::size_t EventQueue::bytes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
}

void EventQueue::clear() {
    std::deque<acp_event*> queued;
    std::function<void()> notify;  // copied under the lock: set_bound may replace it
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queued.swap(events_);
        bytes_ = 0;
        if (update_held()) notify = on_held_change_;
    }
    for (auto* event : queued) delete event;
    if (notify) notify();
}

}  // namespace acp::capi
