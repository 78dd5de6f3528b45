// SPDX-License-Identifier: Apache-2.0
// The state behind one acp_client (internal): the Runtime that hosts its loop
// (lib/runtime), the C++ Client, the pull event queue, the handlers and the responders
// owed to the agent.
//
// Threads: everything that touches the Client, the handlers or the responder table runs
// on the loop thread; other threads reach it through run()/run_sync(), which are the
// Runtime's dispatch()/call(). Events cross to the host through their handler (called on
// the loop thread) or the pull queue (capi/event_queue.hpp).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "acp/acp.h"
#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "acp/runtime.hpp"
#include "acp/tools.hpp"
#include "capi/event.hpp"
#include "capi/event_queue.hpp"

namespace acp::capi {

// Sets the thread's acp_error_last() and returns code.
int fail(int code, const std::string& message) noexcept;
int code_of(const Status& status);
const char* error_text();

class Core;

// Where a client's agent is: exactly one is set.
struct AgentSource {
    const SpawnOptions* spawn = nullptr;
    const AdoptedFds* fds = nullptr;
    const RemoteOptions* remote = nullptr;
};

// One asynchronous call: completes exactly once (its destructor completes it with
// ACP_ECLOSED if the client went away first).
struct Call {
    std::weak_ptr<Core> core;
    unsigned long id = 0;
    std::string method;
    std::optional<std::string> session_id;  // the session it is about, carried by its result
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
        std::optional<ToolResponder> tool;                   // a call of a host's tool
    };

    explicit Core(const acp_client_options& options);
    ~Core();

    // Creates the Runtime (the loop, or the host's; libacp's thread in thread mode) and
    // the Client on it. Returns 0 or a code (with acp_error_last set).
    int start(const AgentSource& agent, const acp_client_options& options);
    void shutdown();  // acp_client_free

    // Runs fn on the loop thread: now when called there, else queued.
    int run(std::function<void()> fn);
    // Runs fn on the loop thread and waits for it.
    int run_sync(const std::function<void()>& fn);
    bool on_loop_thread() const { return runtime_ != nullptr && runtime_->on_loop_thread(); }
    // Inside one of this client's handlers or result callbacks (or anything else the
    // loop runs), where freeing the client would pull the loop from under it.
    bool in_callback() const { return on_loop_thread() && (dispatch_depth_ > 0 || runtime_->inside_loop()); }
    int mode() const { return mode_; }
    Runtime& runtime() { return *runtime_; }

    // Loop thread: to the handler of its type, else the queue, else dropped.
    void emit(std::unique_ptr<acp_event> event);
    void deliver_result(Call& call, std::unique_ptr<acp_event> event);
    void set_handler(int type, Handler handler);

    EventQueue& events() { return events_; }

    unsigned long next_id() { return next_id_.fetch_add(1); }
    void drop_responder(unsigned long id);
    // Loop thread: the event of one agent request whose answer the host owes, with the
    // acp_responder for answer id (registered by the caller in `answers`).
    std::unique_ptr<acp_event> request_event(int type, unsigned long id);
    // Loop thread: reports the agent withdrawing request id as ACP_EVENT_REQUEST_WITHDRAWN,
    // after raising its responder's withdrawn flag (acp_responder_withdrawn).
    std::function<void()> withdrawal_reporter(const acp_event& request);
    // Loop thread: delivers the v1 client methods picked by ACP_CLIENT_METHOD_* flags as
    // ACP_EVENT_CLIENT_REQUEST (installing them is what advertises them).
    void serve_client_methods(unsigned int methods);
    // Loop thread: session model changes as ACP_EVENT_SESSION_CHANGED (on), or none (off).
    void observe_sessions(bool enabled);
    // Loop thread: the host's choice (acp_client_report_updates), fixed from then on.
    void choose_updates(bool enabled);
    // Loop thread: session/update notifications as ACP_EVENT_SESSION_UPDATE (on), or none
    // (off): then nothing is decoded or encoded for the host, and streamed text goes from
    // the line into the model alone.
    void report_updates(bool enabled);
    // Bounds the pull queue (capi/event_queue.hpp): past max_bytes of queued events the
    // client stops reading from the agent until the host pulled them down to a quarter.
    // 0: no bound. Any thread.
    void bound_queue(std::size_t max_bytes);
    static constexpr std::size_t kDefaultQueueBytes = 4u * 1024u * 1024u;

    // Loop thread only.
    std::unique_ptr<Client> client;
    std::unordered_map<unsigned long, Answer> answers;
    std::unordered_map<unsigned long, RequestHandle> requests;
    std::set<std::string> session_ids;
    Handler handlers[ACP_EVENT_TYPE_COUNT];

    std::atomic<bool> closing{false};  // acp_client_close() was called
    std::atomic<bool> ended{false};    // the connection ended (ACP_EVENT_CLOSED)
    std::atomic<bool> freed{false};    // acp_client_free() ran
    bool queue_events = true;
    int log_level = ACP_LOG_INFO;

private:
    void install_client_handlers();
    // ACP's unstable notifications as events (api_unstable.cpp), with the opt-in only.
    void install_unstable_handlers();
    // Loop thread: reading from the agent follows whether the pull queue holds too much.
    void follow_queue_bound();
    void end_dispatch();

    int mode_;
    // Loop thread: with ACP_UPDATES_AUTO, update events are on while the host does not
    // observe the sessions or has a handler for them, else off (a host that follows the
    // model gets coalesced changes without asking).
    void follow_updates_choice();
    int updates_;             // ACP_UPDATES_*: AUTO until acp_client_report_updates chose
    bool observing_ = false;  // acp_client_observe_sessions is on
    std::unique_ptr<Runtime> runtime_;
    EventQueue events_;
    SessionSubscription session_changes_;  // while acp_client_observe_sessions is on
    SessionSubscription added_sessions_;   // while updates are not reported: fills session_ids
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
    // Raised on the loop thread when the request is withdrawn; read from any thread.
    std::shared_ptr<std::atomic<bool>> withdrawn = std::make_shared<std::atomic<bool>>(false);
    // ACP_EVENT_TOOL_CALL: checks a structured answer against the tool's output schema on
    // the host's thread, so a misfit is refused there (null: the tool has none).
    std::function<acp::Status(const acp::RawJson&)> check_structured;
};
