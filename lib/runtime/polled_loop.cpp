// SPDX-License-Identifier: Apache-2.0
// Polled mode: the host's event loop drives libacp's own loop through its backend
// descriptor, its timeout and non-blocking runs.
#include "platform/loop_wait.hpp"
#include "runtime/pending_watchers.hpp"
#include "runtime/runtime_impl.hpp"

namespace acp {

namespace {

// Without a way to see libuv's unregistered watchers (an unknown libuv), a host never
// waits longer than this: a watcher started by a callback is then registered at most
// this late, instead of never.
constexpr int kBlindWaitCapMs = 10;

// Extra passes after a run whose callbacks started watchers, so that they reach the
// kernel before the host waits (each pass registers what the previous one started).
constexpr int kRegistrationPasses = 4;

Status not_polled(const char* what) {
    return Status(Errc::invalid_argument, std::string("Runtime::") + what + ": HostingMode::polled only");
}

}  // namespace

Result<int> Runtime::fd() const {
    if (impl_->mode_ != HostingMode::polled) return not_polled("fd");
    if (impl_->loop_ == nullptr) return Status(Errc::connection_closed, "the runtime was shut down");
    int descriptor = detail::loop_descriptor(impl_->loop_);
    if (descriptor < 0) {
        return Status(Errc::unsupported, "no loop descriptor on this platform (Windows): use run_once, or own_thread");
    }
    return descriptor;
}

Result<int> Runtime::timeout_ms() const {
    if (impl_->mode_ != HostingMode::polled) return not_polled("timeout_ms");
    uv_loop_t* loop = impl_->loop_;
    // A loop with nothing left has nothing to wait for.
    if (impl_->stopping_ || loop == nullptr || !uv_loop_alive(loop)) return -1;
    const int timeout = uv_backend_timeout(loop);
    switch (detail::pending_watchers(loop)) {
        case detail::PendingWatchers::none: return timeout;
        case detail::PendingWatchers::some: return 0;
        case detail::PendingWatchers::unknown: break;
    }
    return timeout >= 0 && timeout < kBlindWaitCapMs ? timeout : kBlindWaitCapMs;
}

Result<bool> Runtime::run_nowait() {
    if (impl_->mode_ != HostingMode::polled) return not_polled("run_nowait");
    if (!impl_->on_loop_thread()) return Status(Errc::invalid_argument, "Runtime::run_nowait: not the loop thread");
    if (impl_->stopping_) return false;
    Impl::InsideLoop inside(*impl_);
    int alive = uv_run(impl_->loop_, UV_RUN_NOWAIT);
    for (int pass = 0; pass < kRegistrationPasses && alive != 0; ++pass) {
        const auto pending = detail::pending_watchers(impl_->loop_);
        if (pending == detail::PendingWatchers::none) break;
        alive = uv_run(impl_->loop_, UV_RUN_NOWAIT);
        if (pending == detail::PendingWatchers::unknown) break;  // one blind pass; the wait cap does the rest
    }
    return alive != 0;
}

Result<bool> Runtime::run_once(int timeout_ms) {
    Result<int> loop_timeout = this->timeout_ms();
    if (!loop_timeout) return loop_timeout.status();
    if (impl_->loop_ == nullptr) return Status(Errc::connection_closed, "the runtime was shut down");
    if (!impl_->on_loop_thread()) return Status(Errc::invalid_argument, "Runtime::run_once: not the loop thread");
    int wait = *loop_timeout;
    if (timeout_ms >= 0 && (wait < 0 || timeout_ms < wait)) wait = timeout_ms;
    if (wait != 0 && !impl_->stopping_) {
        // A run of the loop where the platform can only wait by running it (Windows).
        Impl::InsideLoop inside(*impl_);
        detail::wait_for_loop(impl_->loop_, wait);
    }
    return run_nowait();
}

}  // namespace acp
