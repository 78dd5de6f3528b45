// SPDX-License-Identifier: Apache-2.0
#include "platform/windows/exit_watch.hpp"

#include <windows.h>

#include <string>

#include "platform/windows/agent_spawn.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

namespace {

// On a thread-pool thread: only uv_async_send may be called from there.
void CALLBACK on_signalled(void* async, BOOLEAN) { uv_async_send(static_cast<uv_async_t*>(async)); }

}  // namespace

Result<std::unique_ptr<ExitWatch>> ExitWatch::start(uv_loop_t* loop, void* process, ExitFn on_exit) {
    std::unique_ptr<ExitWatch> watch(new ExitWatch(process, std::move(on_exit)));
    watch->async_ = new uv_async_t{};
    if (int rc = uv_async_init(loop, watch->async_, &ExitWatch::on_async); rc != 0) {
        delete watch->async_;
        watch->async_ = nullptr;
        return Status(Errc::spawn_failed, std::string("cannot watch the agent's exit: ") + uv_strerror(rc));
    }
    watch->async_->data = watch.get();
    HANDLE wait = nullptr;
    if (!::RegisterWaitForSingleObject(&wait, static_cast<HANDLE>(process), &on_signalled, watch->async_, INFINITE,
                                       WT_EXECUTEONLYONCE)) {
        return Status(Errc::spawn_failed,
                      "cannot watch the agent's exit (error " + std::to_string(::GetLastError()) + ")");
    }
    watch->wait_ = wait;
    return watch;
}

ExitWatch::~ExitWatch() {
    // INVALID_HANDLE_VALUE: returns once a callback under way has finished, so none can
    // touch the async handle after it is closed.
    if (wait_ != nullptr) ::UnregisterWaitEx(static_cast<HANDLE>(wait_), INVALID_HANDLE_VALUE);
    if (async_ != nullptr) {
        async_->data = nullptr;
        close_and_delete(async_);
    }
}

void ExitWatch::on_async(uv_async_t* async) {
    auto* self = static_cast<ExitWatch*>(async->data);
    if (self == nullptr || !self->on_exit_) return;
    // The wait fired: the process has ended and its exit code is final (even if it is
    // STILL_ACTIVE's 259, which a process may return).
    unsigned long code = exit_code_of(self->process_);
    auto on_exit = std::move(self->on_exit_);
    self->on_exit_ = nullptr;
    on_exit(code);  // may destroy the watch: nothing may follow
}

}  // namespace acp::detail
