// SPDX-License-Identifier: Apache-2.0
// acp::Runtime: the loop (own or the host's), libacp's own thread, the one cross-thread
// entry (a mutex-guarded queue plus uv_async_send), run_until and the orderly end. What a
// host that drives the loop itself calls lives in polled_loop.cpp.
#include <cstddef>
#include <exception>
#include <string>
#include <utility>

#include "runtime/runtime_impl.hpp"
#include "support/uv_handle.hpp"

namespace acp {

namespace {

constexpr std::string_view kLogSource = "runtime";

Status closed_status() { return Status(Errc::connection_closed, "the runtime was shut down"); }

// The completion of one call() from another thread: set when the function ran (or threw),
// and set to "not run" when the queue dropped the function at shutdown.
struct CallCompletion {
    std::promise<bool> ran;
    bool settled = false;
    ~CallCompletion() {
        if (!settled) ran.set_value(false);
    }
};

}  // namespace

// --- Impl ------------------------------------------------------------------------------------

Runtime::Impl::Impl(RuntimeOptions options) : mode_(options.mode), log_(std::move(options.log)) {
    loop_thread_.store(std::this_thread::get_id());
    if (mode_ == HostingMode::host_loop) loop_ = options.host_loop;
}

Status Runtime::Impl::start() {
    if (mode_ == HostingMode::host_loop) {
        if (loop_ == nullptr)
            return Status(Errc::invalid_argument, "HostingMode::host_loop needs the host's uv_loop_t");
    } else {
        own_loop_ = std::make_unique<uv_loop_t>();
        if (int rc = uv_loop_init(own_loop_.get()); rc != 0) {
            own_loop_.reset();
            return Status(Errc::internal, std::string("uv_loop_init failed: ") + uv_strerror(rc));
        }
        loop_ = own_loop_.get();
    }
    wake_ = new uv_async_t{};
    uv_async_init(loop_, wake_, &Impl::on_wake);
    wake_->data = this;
    if (mode_ != HostingMode::own_thread) {
        // On the host's loop (or one it drives) an idle entry must not keep the loop alive.
        uv_unref(reinterpret_cast<uv_handle_t*>(wake_));
        return Status();
    }
    turn_end_ = new uv_check_t{};
    uv_check_init(loop_, turn_end_);
    turn_end_->data = this;
    uv_check_start(turn_end_, &Impl::on_turn_end);
    uv_unref(reinterpret_cast<uv_handle_t*>(turn_end_));
    std::promise<void> started;
    auto ready = started.get_future();
    thread_ = std::thread([this, &started] {
        loop_thread_.store(std::this_thread::get_id());
        started.set_value();
        // Runs until shutdown() closes the wake handle and everything else has closed.
        uv_run(loop_, UV_RUN_DEFAULT);
    });
    ready.wait();
    return Status();
}

Status Runtime::Impl::enqueue(std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!accepting_) return closed_status();
    commands_.push_back(std::move(fn));
    // A later turn must come even on a loop that has nothing else to do (loop thread only:
    // uv_ref is not thread-safe; a post from another thread wakes the loop all the same).
    if (mode_ != HostingMode::own_thread && on_loop_thread()) uv_ref(reinterpret_cast<uv_handle_t*>(wake_));
    uv_async_send(wake_);
    return Status();
}

void Runtime::Impl::on_wake(uv_async_t* async) {
    auto* impl = static_cast<Impl*>(async->data);
    if (impl != nullptr) impl->run_commands();
}

void Runtime::Impl::run_commands() {
    std::deque<std::function<void()>> batch;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        batch.swap(commands_);
    }
    if (mode_ != HostingMode::own_thread && wake_ != nullptr) uv_unref(reinterpret_cast<uv_handle_t*>(wake_));
    for (auto& fn : batch) {
        try {
            fn();
        } catch (const std::exception& e) {
            log_(LogLevel::error, kLogSource, std::string("a dispatched function threw: ") + e.what());
        } catch (...) {
            log_(LogLevel::error, kLogSource, "a dispatched function threw a non-standard exception");
        }
    }
}

void Runtime::Impl::on_turn_end(uv_check_t* check) {
    auto* impl = static_cast<Impl*>(check->data);
    if (impl == nullptr || impl->waiters_.empty()) return;
    auto& waiters = impl->waiters_;
    for (std::size_t i = 0; i < waiters.size();) {
        if (waiters[i]->done()) {
            waiters[i]->release();
            waiters.erase(waiters.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    }
}

void Runtime::Impl::release_waiters() {
    auto waiters = std::move(waiters_);
    waiters_.clear();
    for (auto& waiter : waiters) waiter->release();
}

Status Runtime::Impl::shutdown(std::function<void()> teardown) {
    if (shut_down_) return Status();
    if (mode_ == HostingMode::own_thread && on_loop_thread()) {
        return Status(Errc::invalid_argument, "Runtime::shutdown on libacp's own thread would wait for itself");
    }
    if (mode_ != HostingMode::own_thread && inside_depth_ > 0) {
        return Status(Errc::invalid_argument, "Runtime::shutdown inside the loop: end it after run_nowait returned");
    }
    shut_down_ = true;
    auto finish = [this, teardown = std::move(teardown)] {
        std::deque<std::function<void()>> dropped;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            accepting_ = false;
            dropped.swap(commands_);
        }
        stopping_ = true;
        dropped.clear();  // outside the lock: destroying a closure may complete a call
        if (teardown) teardown();
        release_waiters();
        wake_->data = nullptr;
        detail::close_and_delete(wake_);
        wake_ = nullptr;
        if (turn_end_ != nullptr) {
            turn_end_->data = nullptr;
            detail::close_and_delete(turn_end_);
            turn_end_ = nullptr;
        }
    };
    if (thread_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            commands_.push_back(std::move(finish));
            uv_async_send(wake_);
        }
        thread_.join();  // its uv_run returns once every handle is closed
        loop_thread_.store(std::this_thread::get_id());
    } else {
        finish();
    }
    if (own_loop_) close_own_loop();
    return Status();
}

void Runtime::Impl::close_own_loop() {
    uv_run(loop_, UV_RUN_DEFAULT);
    if (uv_loop_close(loop_) == UV_EBUSY) {
        // Inactive handles nobody closed (a stopped timer, an unreferenced async) would keep
        // the loop registered with libuv's process-wide signal handling after its memory is
        // gone: close them and finish the loop properly.
        uv_walk(
            loop_,
            [](uv_handle_t* h, void*) {
                if (!uv_is_closing(h)) uv_close(h, nullptr);
            },
            nullptr);
        uv_run(loop_, UV_RUN_DEFAULT);
        if (uv_loop_close(loop_) != 0) log_(LogLevel::error, kLogSource, "a loop could not be closed");
    }
    own_loop_.reset();
    loop_ = nullptr;
}

// --- Runtime ---------------------------------------------------------------------------------

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Runtime::~Runtime() {
    if (Status s = impl_->shutdown({}); !s) {
        // Destroyed on its own thread: neither the thread nor the loop can end here, and
        // both still use the state, so it is leaked rather than freed under them.
        impl_->log_(LogLevel::error, kLogSource, s.message() + "; its thread and loop are leaked");
        (void)impl_.release();
    }
}

Result<std::unique_ptr<Runtime>> Runtime::create(RuntimeOptions options) {
    auto impl = std::make_unique<Impl>(std::move(options));
    if (Status s = impl->start(); !s) return s;
    return std::unique_ptr<Runtime>(new Runtime(std::move(impl)));
}

Result<std::unique_ptr<Runtime>> Runtime::create(HostingMode mode, uv_loop_t* host_loop) {
    RuntimeOptions options;
    options.mode = mode;
    options.host_loop = host_loop;
    return create(std::move(options));
}

HostingMode Runtime::mode() const { return impl_->mode_; }
uv_loop_t* Runtime::loop() const { return impl_->loop_; }
bool Runtime::on_loop_thread() const { return impl_->on_loop_thread(); }

bool Runtime::inside_loop() const {
    if (!impl_->on_loop_thread()) return false;
    // Everything on libacp's own thread runs inside its loop.
    return impl_->mode_ == HostingMode::own_thread ? !impl_->stopping_ : impl_->inside_depth_ > 0;
}

Status Runtime::dispatch(std::function<void()> fn) {
    if (impl_->on_loop_thread()) {
        if (impl_->stopping_) return closed_status();
        fn();
        return Status();
    }
    return impl_->enqueue(std::move(fn));
}

Status Runtime::post(std::function<void()> fn) { return impl_->enqueue(std::move(fn)); }

Status Runtime::call(const std::function<void()>& fn) {
    if (impl_->on_loop_thread()) return dispatch(fn);
    auto completion = std::make_shared<CallCompletion>();
    auto ran = completion->ran.get_future();
    Status queued = impl_->enqueue([&fn, completion] {
        completion->settled = true;
        try {
            fn();
        } catch (...) {
            completion->ran.set_exception(std::current_exception());  // rethrown on the caller's thread
            return;
        }
        completion->ran.set_value(true);
    });
    if (!queued) return queued;
    completion.reset();
    return ran.get() ? Status() : closed_status();
}

Status Runtime::run_until(std::function<bool()> done) {
    if (impl_->mode_ == HostingMode::own_thread) {
        if (impl_->on_loop_thread()) {
            return Status(Errc::invalid_argument, "Runtime::run_until on libacp's own thread would wait for itself");
        }
        auto waiter = std::make_shared<Impl::Waiter>();
        waiter->done = std::move(done);
        auto ready = waiter->ready.get_future();
        Status queued = impl_->enqueue([impl = impl_.get(), waiter] {
            if (waiter->done()) {
                waiter->release();
            } else {
                impl->waiters_.push_back(waiter);
            }
        });
        waiter.reset();  // from here the loop thread holds the only reference
        if (!queued) return queued;
        ready.wait();
        return Status();
    }
    if (!impl_->on_loop_thread()) return Status(Errc::invalid_argument, "Runtime::run_until: not the loop thread");
    Impl::InsideLoop inside(*impl_);
    while (!done()) {
        if (uv_run(impl_->loop_, UV_RUN_ONCE) == 0 && !done()) break;
    }
    return Status();
}

void Runtime::shutdown(std::function<void()> teardown) {
    if (Status s = impl_->shutdown(std::move(teardown)); !s) impl_->log_(LogLevel::error, kLogSource, s.message());
}

}  // namespace acp
