// SPDX-License-Identifier: Apache-2.0
#include "support/deferred_queue.hpp"

#include <utility>

namespace acp::detail {

DeferredQueue::DeferredQueue(uv_loop_t* loop) : async_(new uv_async_t{}) {
    uv_async_init(loop, async_.get(), &DeferredQueue::on_wake);
    async_->data = this;
    uv_unref(reinterpret_cast<uv_handle_t*>(async_.get()));
}

DeferredQueue::~DeferredQueue() {
    if (alive_flag_ != nullptr) *alive_flag_ = false;
    async_->data = nullptr;
}

void DeferredQueue::post(std::function<void()> fn) {
    const bool was_empty = queue_.empty();
    queue_.push_back(std::move(fn));
    if (was_empty) uv_ref(reinterpret_cast<uv_handle_t*>(async_.get()));
    uv_async_send(async_.get());
}

void DeferredQueue::on_wake(uv_async_t* async) {
    auto* self = static_cast<DeferredQueue*>(async->data);
    if (self != nullptr) self->run_posted();
}

void DeferredQueue::run_posted() {
    // Run only what was queued before this turn: closures posted now run next turn.
    std::deque<std::function<void()>> batch;
    batch.swap(queue_);
    uv_unref(reinterpret_cast<uv_handle_t*>(async_.get()));
    bool alive = true;
    alive_flag_ = &alive;
    while (!batch.empty()) {
        auto fn = std::move(batch.front());
        batch.pop_front();
        fn();
        if (!alive) return;  // a closure destroyed the owner of this queue
    }
    alive_flag_ = nullptr;
}

}  // namespace acp::detail
