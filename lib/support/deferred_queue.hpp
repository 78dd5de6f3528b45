// SPDX-License-Identifier: Apache-2.0
// Runs closures on a later turn of the event loop.
//
// libacp never calls a host callback from inside the API call that caused it: a
// completion that is known at call time (a cancelled request, a send on a closed
// connection) is posted here and runs on the next loop turn. Loop thread only: post()
// refs the loop handle, which libuv does not allow from other threads.
#pragma once

#include <uv.h>

#include <deque>
#include <functional>

#include "support/uv_handle.hpp"

namespace acp::detail {

class DeferredQueue {
public:
    explicit DeferredQueue(uv_loop_t* loop);
    ~DeferredQueue();  // pending closures are dropped, never run
    DeferredQueue(const DeferredQueue&) = delete;
    DeferredQueue& operator=(const DeferredQueue&) = delete;

    void post(std::function<void()> fn);

private:
    static void on_wake(uv_async_t* async);
    void run_posted();

    std::deque<std::function<void()>> queue_;
    // The async handle keeps the loop alive only while work is queued.
    UvHandlePtr<uv_async_t> async_;
    bool* alive_flag_ = nullptr;  // set while run_posted() runs, to notice self-destruction
};

}  // namespace acp::detail
