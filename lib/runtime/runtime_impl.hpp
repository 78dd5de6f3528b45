// SPDX-License-Identifier: Apache-2.0
// The state behind acp::Runtime (include/acp/runtime.hpp), shared by its two source files:
// runtime.cpp (creation, the cross-thread entry, run_until, shutdown) and polled_loop.cpp
// (what a host that drives libacp's loop calls).
#pragma once

#include <uv.h>

#include <atomic>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "acp/runtime.hpp"
#include "support/logger.hpp"

namespace acp {

class Runtime::Impl {
public:
    explicit Impl(RuntimeOptions options);

    Status start();
    bool on_loop_thread() const { return std::this_thread::get_id() == loop_thread_.load(); }
    Status enqueue(std::function<void()> fn);
    Status shutdown(std::function<void()> teardown);

    // One run_until() caller waiting on libacp's own thread.
    // Released when done() holds, at shutdown, or when its entry is dropped unrun.
    struct Waiter {
        std::function<bool()> done;
        std::promise<void> ready;
        bool released = false;
        void release() {
            if (released) return;
            released = true;
            ready.set_value();
        }
        ~Waiter() { release(); }
    };

    // While the host runs libacp's loop on its thread (run_nowait, run_until).
    class InsideLoop {
    public:
        explicit InsideLoop(Impl& impl) : impl_(impl) { ++impl_.inside_depth_; }
        ~InsideLoop() { --impl_.inside_depth_; }
        InsideLoop(const InsideLoop&) = delete;
        InsideLoop& operator=(const InsideLoop&) = delete;

    private:
        Impl& impl_;
    };

    const HostingMode mode_;
    detail::Logger log_;
    uv_loop_t* loop_ = nullptr;
    std::unique_ptr<uv_loop_t> own_loop_;
    std::atomic<std::thread::id> loop_thread_;
    std::atomic<bool> stopping_{false};  // shutdown() began: nothing more gets in
    int inside_depth_ = 0;               // loop thread only

private:
    static void on_wake(uv_async_t* async);
    static void on_turn_end(uv_check_t* check);
    void run_commands();
    void release_waiters();
    void close_own_loop();

    uv_async_t* wake_ = nullptr;
    uv_check_t* turn_end_ = nullptr;  // own_thread: checks run_until() waiters after each turn
    std::thread thread_;
    bool shut_down_ = false;

    std::mutex mutex_;
    std::deque<std::function<void()>> commands_;
    bool accepting_ = true;

    std::vector<std::shared_ptr<Waiter>> waiters_;  // loop thread only

    friend class Runtime;
};

}  // namespace acp
