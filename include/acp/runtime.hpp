// SPDX-License-Identifier: Apache-2.0
// acp/runtime.hpp — where a client's event loop runs, and the one way into it from other
// threads. The C API's three hosting modes are built on this; a C++ host (a Qt or GLib
// editor, a plain program) gets the same.
//
// Everything in libacp is loop-affine: a Client and its callbacks live on the thread of
// the uv_loop_t they were created on. A Runtime provides that loop in one of three ways:
//
//   host_loop   the host's uv_loop_t, run by the host on its own thread (same libuv only)
//   polled      libacp's own loop, driven by the host's event loop: watch fd() for reading,
//               wait at most timeout_ms(), then call run_nowait() (Qt's QSocketNotifier,
//               GLib's g_unix_fd_add, Python asyncio's add_reader, Neovim's libuv poll)
//   own_thread  libacp's own loop on libacp's own thread; callbacks run there
//
// From any thread, dispatch() runs a function on the loop thread (at once when called
// there, otherwise through one mutex-guarded queue and uv_async_send), and call() also
// waits for it.
//
//   auto runtime = acp::Runtime::create(acp::HostingMode::own_thread);
//   std::unique_ptr<acp::Client> client;
//   (void)(*runtime)->call([&] { client = std::move(*acp::Client::spawn((*runtime)->loop(), agent)); });
//   (void)(*runtime)->dispatch([&] { client->initialize([](auto r) { ... }); });  // from any thread
//   ...
//   (*runtime)->shutdown([&] { client.reset(); });  // the client ends on its own thread
#pragma once

#include <uv.h>

#include <functional>
#include <memory>

#include "acp/export.hpp"
#include "acp/log.hpp"
#include "acp/status.hpp"

namespace acp {

enum class HostingMode {
    host_loop,   // the host's loop; the creating thread is the loop thread
    polled,      // libacp's loop, run by the host through fd()/timeout_ms()/run_nowait()
    own_thread,  // libacp's loop on a thread of its own
};

struct RuntimeOptions {
    HostingMode mode = HostingMode::polled;
    // HostingMode::host_loop: the host's loop (it must use the libuv libacp links).
    uv_loop_t* host_loop = nullptr;
    // Where an exception escaping a dispatched function is reported (source "runtime");
    // the runtime goes on either way.
    LogSink log;
};

class ACP_EXPORT Runtime {
public:
    // Creates the loop (or takes the host's) and, for own_thread, starts the thread. The
    // calling thread is the loop thread for host_loop and polled.
    static Result<std::unique_ptr<Runtime>> create(RuntimeOptions options);
    static Result<std::unique_ptr<Runtime>> create(HostingMode mode, uv_loop_t* host_loop = nullptr);
    // shutdown() if it has not run. Not from the loop thread of an own_thread runtime.
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    HostingMode mode() const;
    uv_loop_t* loop() const;
    bool on_loop_thread() const;
    // Whether code on the calling thread runs inside the loop: in own_thread mode always
    // (everything there is a callback), otherwise only while run_nowait()/run_until() run.
    bool inside_loop() const;

    // --- the one way in, from any thread ----------------------------------------------
    // Runs fn on the loop thread: at once when called there, otherwise on the loop's next
    // turn. Errc::connection_closed once shutdown() began (fn is then dropped, not run).
    Status dispatch(std::function<void()> fn);
    // Always on a later turn, also when called on the loop thread.
    Status post(std::function<void()> fn);
    // dispatch() and wait until fn ran. From another thread the loop must be running
    // (own_thread, or a host that drives its loop on its own thread meanwhile).
    Status call(const std::function<void()>& fn);

    // --- polled mode (Errc::invalid_argument in the other modes) ----------------------
    // A descriptor that becomes readable when the loop has work (libuv's backend fd).
    // Errc::unsupported on Windows, where libuv's loop has none: use run_once there.
    Result<int> fd() const;
    // How long the host may wait before calling run_nowait() even if fd() stayed quiet:
    // -1 = no limit (nothing is pending), 0 = call it now. Also 0 while libuv holds
    // watchers it has not yet handed to the kernel (see docs/c-api.md, "Hosting modes").
    Result<int> timeout_ms() const;
    // Runs what is ready without blocking (callbacks run inside); true while the loop has
    // work. Loop thread only.
    Result<bool> run_nowait();
    // Waits for fd() at most min(timeout_ms(), timeout_ms) (-1: no limit), then
    // run_nowait(). For simple hosts. Loop thread only. On Windows the wait is itself a
    // run of the loop (platform/loop_wait.hpp).
    Result<bool> run_once(int timeout_ms);

    // Returns once done() holds (evaluated on the loop thread), or when the loop has
    // nothing left to do. host_loop and polled run the loop here (loop thread only);
    // own_thread waits for libacp's thread (not from that thread).
    Status run_until(std::function<bool()> done);

    // Ends the runtime: from then on dispatch() and post() fail; teardown runs on the loop
    // thread (destroy what lives on the loop there); queued functions are dropped. An own
    // thread is joined once its loop has nothing left; an own loop is run until every
    // handle is closed and then closed. With host_loop the host runs its loop once more
    // so that libuv finishes closing. Not from inside the loop. Idempotent.
    void shutdown(std::function<void()> teardown = {});

    class Impl;

private:
    explicit Runtime(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace acp
