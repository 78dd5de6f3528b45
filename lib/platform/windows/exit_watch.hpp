// SPDX-License-Identifier: Apache-2.0
// A process's exit, told on the libuv loop (Windows).
//
// A thread-pool wait (RegisterWaitForSingleObject) on the process handle wakes the loop
// through a uv_async_t: the exit is seen at once and nothing runs while the agent does.
// A timer polling the handle would be simpler but wakes the host's loop all the time
// and reports late by up to its period. This is also what libuv does for its own
// uv_process_t.
//
//   auto watch = ExitWatch::start(loop, agent.process, [](unsigned long code) { ... });
#pragma once

#include <uv.h>

#include <functional>
#include <memory>

#include "acp/status.hpp"

namespace acp::detail {

class ExitWatch {
public:
    using ExitFn = std::function<void(unsigned long exit_code)>;

    // `process` must stay open while the watch exists. on_exit runs once, on the loop.
    static Result<std::unique_ptr<ExitWatch>> start(uv_loop_t* loop, void* process, ExitFn on_exit);
    // Waits for a wake-up under way to finish; on_exit is not called after this.
    ~ExitWatch();
    ExitWatch(const ExitWatch&) = delete;
    ExitWatch& operator=(const ExitWatch&) = delete;

private:
    ExitWatch(void* process, ExitFn on_exit) : process_(process), on_exit_(std::move(on_exit)) {}
    static void on_async(uv_async_t* async);

    void* process_;
    ExitFn on_exit_;
    uv_async_t* async_ = nullptr;
    void* wait_ = nullptr;  // the thread pool's wait handle
};

}  // namespace acp::detail
