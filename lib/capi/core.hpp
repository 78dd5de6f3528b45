// SPDX-License-Identifier: Apache-2.0
// The machinery behind include/acp/acp.h (internal): one Core per acp_client owns the
// loop (or borrows the host's), the C++ Client, the cross-thread command queue, the pull
// event queue and the responders owed to the agent.
//
// Threads: everything that touches the Client, the handlers or the responder table runs
// on the loop thread. Other threads reach it through run(): a mutex-guarded queue plus
// uv_async_send. Events cross to the host through their handler (called on the loop
// thread) or the pull queue (mutex-guarded, with a pipe that is readable while it holds
// events).
#pragma once

#include <uv.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "acp/acp.h"
#include "acp/client.hpp"

struct acp_event {
    int type = 0;
    unsigned long request = 0;
    std::string json = "null";
    std::optional<std::string> session_id;
    std::optional<std::string> method;
    std::optional<std::string> text;
    int log_level = 0;
    int direction = 0;
    int change = -1;      // SESSION_CHANGED: ACP_CHANGE_*
    int item_index = -1;  // SESSION_CHANGED about an item
    int item_kind = ACP_ITEM_UNKNOWN;
    std::optional<std::string> item_id;
    std::string message;
    std::string rpc_data;
    acp_status status{ACP_OK, "", 0, ""};
    // A request event owns the answer until the host takes it (see acp_event_take_responder).
    mutable acp_responder* responder = nullptr;

    acp_event() = default;
    acp_event(const acp_event&) = delete;
    acp_event& operator=(const acp_event&) = delete;
    ~acp_event();

    void set_status(const acp::Status& s);
};

namespace acp::capi {

// Sets the thread's acp_error_last() and returns code.
int fail(int code, const std::string& message) noexcept;
int code_of(const Status& status);

class Core;

// One asynchronous call: completes exactly once (its destructor completes it with
// ACP_ECLOSED if the client went away first).
struct Call {
    std::weak_ptr<Core> core;
    unsigned long id = 0;
    std::string method;
    acp_result_cb fn = nullptr;
    void* userdata = nullptr;
    bool done = false;

    ~Call();
    void succeed(std::string json);
    void finish(const Status& status);
};

class Core : public std::enable_shared_from_this<Core> {
public:
    struct Handler {
        acp_event_cb fn = nullptr;
        void* userdata = nullptr;
        acp_release_cb release = nullptr;
    };
    // The C++ responder behind one acp_responder, kept on the loop thread.
    struct Answer {
        std::optional<PermissionResponder> permission;
        std::optional<ElicitationResponder> elicitation;
        std::optional<ExtResponder> ext;
        std::optional<ClientMethodResponder> client_method;  // v1 fs/*, terminal/*
    };

    Core(int mode, const acp_client_options& options);
    ~Core();

    // Creates the loop (or takes the host's) and the Client; then starts the thread in
    // thread mode. Returns 0 or a code (with acp_error_last set).
    int start(const SpawnOptions* spawn, const AdoptedFds* fds, const acp_client_options& options);
    void shutdown();  // acp_client_free

    // Runs fn on the loop thread: now when called there, else queued.
    int run(std::function<void()> fn);
    // Runs fn on the loop thread and waits for it.
    int run_sync(const std::function<void()>& fn);
    bool on_loop_thread() const { return std::this_thread::get_id() == loop_thread_.load(); }
    // Inside one of this client's handlers or result callbacks.
    bool in_callback() const {
        return on_loop_thread() && (dispatch_depth_ > 0 || (mode_ == ACP_MODE_THREAD && thread_.joinable()));
    }

    // Loop thread: to the handler of its type, else the queue, else dropped.
    void emit(std::unique_ptr<acp_event> event);
    void deliver_result(Call& call, std::unique_ptr<acp_event> event);
    void set_handler(int type, Handler handler);

    int next_event(acp_event** out);
    int pending_events();
    int event_fd() const { return pipe_[0]; }

    unsigned long next_id() { return next_id_.fetch_add(1); }
    void drop_responder(unsigned long id);
    // Loop thread: the event of one agent request whose answer the host owes, with the
    // acp_responder for answer id (registered by the caller in `answers`).
    std::unique_ptr<acp_event> request_event(int type, unsigned long id);
    // Loop thread: reports the agent withdrawing request id as ACP_EVENT_REQUEST_WITHDRAWN.
    std::function<void()> withdrawal_reporter(unsigned long id);
    // Loop thread: delivers the v1 client methods picked by ACP_CLIENT_METHOD_* flags as
    // ACP_EVENT_CLIENT_REQUEST (installing them is what advertises them).
    void serve_client_methods(unsigned int methods);

    int mode() const { return mode_; }
    uv_loop_t* loop() const { return loop_; }

    // Loop thread only.
    std::unique_ptr<Client> client;
    std::unordered_map<unsigned long, Answer> answers;
    std::unordered_map<unsigned long, RequestHandle> requests;
    std::set<std::string> session_ids;
    SessionSubscription session_changes;  // while acp_client_observe_sessions is on
    Handler handlers[ACP_EVENT_TYPE_COUNT];

    std::atomic<bool> closing{false};    // acp_client_close() was called
    std::atomic<bool> ended{false};      // the connection ended (ACP_EVENT_CLOSED)
    std::atomic<bool> freed{false};      // acp_client_free() ran
    bool queue_events = true;
    int log_level = ACP_LOG_INFO;

private:
    static void on_wake(uv_async_t* async);
    void run_commands();
    void install_client_handlers();
    void end_dispatch();
    void thread_main();

    int mode_;
    uv_loop_t* loop_ = nullptr;
    std::unique_ptr<uv_loop_t> own_loop_;
    uv_async_t* wake_ = nullptr;
    std::thread thread_;
    std::atomic<std::thread::id> loop_thread_;

    std::mutex commands_mutex_;
    std::deque<std::function<void()>> commands_;
    bool accepting_ = true;

    std::mutex events_mutex_;
    std::deque<acp_event*> events_;
    int pipe_[2] = {-1, -1};

    std::mutex ended_mutex_;
    std::condition_variable ended_cv_;

    int dispatch_depth_ = 0;
    std::vector<Handler> pending_releases_;
    std::atomic<unsigned long> next_id_{1};
};

}  // namespace acp::capi

struct acp_client {
    std::shared_ptr<acp::capi::Core> core;
};

struct acp_responder {
    std::shared_ptr<acp::capi::Core> core;
    unsigned long id = 0;
    int kind = 0;        // the ACP_EVENT_* of the request
    std::string method;  // ACP_EVENT_CLIENT_REQUEST: which v1 method (its response type)
    std::atomic<bool> answered{false};
};

struct acp_session {
    std::string id;
    std::string json;
    std::string state;
    std::optional<std::string> stop_reason;
    std::optional<std::string> title;
    std::optional<std::string> config_options;
    std::optional<std::string> commands;
    bool has_usage = false;
    double used = 0;
    double size = 0;
    struct Item {
        int kind = ACP_ITEM_UNKNOWN;
        std::string id;
        std::string json;
        std::optional<std::string> text;
        std::optional<std::string> title;
        std::optional<std::string> status;
    };
    std::vector<Item> items;
};
