// SPDX-License-Identifier: Apache-2.0
// A libuv loop for tests, with a guard so that a broken test fails instead of hanging.
#pragma once

#include <uv.h>

#include <chrono>
#include <functional>

namespace acp::test {

class TestLoop {
public:
    TestLoop() {
        uv_loop_init(&loop_);
        uv_timer_init(&loop_, &tick_);
    }
    ~TestLoop() {
        uv_close(reinterpret_cast<uv_handle_t*>(&tick_), nullptr);
        // Let pending closes and supervisors finish, then close whatever a failed test left.
        run_for(std::chrono::milliseconds(20000), [this] { return uv_loop_alive(&loop_) == 0; });
        uv_walk(
            &loop_,
            [](uv_handle_t* handle, void*) {
                if (!uv_is_closing(handle)) uv_close(handle, nullptr);
            },
            nullptr);
        uv_run(&loop_, UV_RUN_DEFAULT);
        uv_loop_close(&loop_);
    }
    TestLoop(const TestLoop&) = delete;
    TestLoop& operator=(const TestLoop&) = delete;

    uv_loop_t* get() { return &loop_; }

    // Runs the loop until done() holds or the guard expires; returns done().
    bool run_until(const std::function<bool()>& done,
                   std::chrono::milliseconds guard = std::chrono::milliseconds(20000)) {
        return run_for(guard, done);
    }

    // Runs the loop for a while (for "nothing more happens" checks).
    void run_for(std::chrono::milliseconds duration) {
        run_for(duration, [] { return false; });
    }

private:
    bool run_for(std::chrono::milliseconds duration, const std::function<bool()>& done) {
        const auto deadline = std::chrono::steady_clock::now() + duration;
        // A short repeating timer keeps UV_RUN_ONCE from blocking past the deadline.
        uv_timer_start(
            &tick_, [](uv_timer_t*) {}, 5, 5);
        bool reached = done();
        while (!reached && std::chrono::steady_clock::now() < deadline) {
            uv_run(&loop_, UV_RUN_ONCE);
            reached = done();
        }
        uv_timer_stop(&tick_);
        return reached;
    }

    uv_loop_t loop_{};
    uv_timer_t tick_{};
};

}  // namespace acp::test
