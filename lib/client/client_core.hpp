// SPDX-License-Identifier: Apache-2.0
// What every part of the client shares (internal): the loop, the options, the JSON-RPC
// connection, the session model and the host's handlers. Client::Impl owns one; each part
// (negotiation, the request gate, the protocol drivers, the update router, ...) keeps a
// reference to it.
//
// Lifetimes: the host may destroy the Client inside any callback. Whatever runs from a
// libuv callback therefore holds keep_alive() until it returns, and checks `orphaned`
// before calling the host: once the Client is gone no host callback runs.
#pragma once

#include <uv.h>

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "acp/client.hpp"
#include "acp/client_v1.hpp"
#include "jsonrpc/connection.hpp"
#include "support/deferred_queue.hpp"
#include "support/logger.hpp"

namespace acp::detail {

// The host's handlers, as installed on the Client.
struct HostHandlers {
    std::function<void(const v2::UpdateSessionNotification&)> session_update;
    std::function<void(const v2::RequestPermissionRequest&, PermissionResponder)> permission;
    std::function<void(const v2::CreateElicitationRequest&, ElicitationResponder)> elicitation;
    bool elicitation_form = false;
    bool elicitation_url = false;
    std::function<void(const v2::CompleteElicitationNotification&)> elicitation_complete;
    std::function<void(std::string_view, const RawJson&)> unknown_notification;
    std::function<void(const Status&)> closed;
    std::function<void(const std::string&, std::chrono::milliseconds)> turn_silent;
    std::function<void(const v1::ReadTextFileRequest&, ClientMethodResponder)> read_text_file;
    std::function<void(const v1::WriteTextFileRequest&, ClientMethodResponder)> write_text_file;
    TerminalHandlers terminal;
};

struct ClientCore {
    ClientCore(uv_loop_t* loop_in, std::unique_ptr<Transport> transport, ClientOptions options_in,
               std::string agent_label_in)
        : loop(loop_in),
          options(std::move(options_in)),
          logger(options.log),
          deferred(loop_in),
          rpc(std::make_unique<Connection>(loop_in, std::move(transport), logger, connection_options(options))),
          agent_label(std::move(agent_label_in)) {}

    static ConnectionOptions connection_options(const ClientOptions& options) {
        ConnectionOptions connection;
        connection.max_line_bytes = options.max_line_bytes;
        connection.max_queued_output_bytes = options.max_queued_output_bytes;
        connection.resume_reading_below_bytes = options.resume_reading_below_bytes;
        connection.queued_output_timeout = options.queued_output_timeout;
        return connection;
    }

    std::shared_ptr<void> keep_alive() const { return owner.lock(); }

    // The options every request but initialize, login and the prompt turn uses.
    RequestOptions request_options() const {
        RequestOptions request;
        request.timeout = options.request_timeout;
        return request;
    }

    // A step that times out on its own clock (initialize, login): a timeout becomes an
    // error that names the agent, the step and the option that sets the time.
    RequestOptions step_options(std::chrono::milliseconds timeout) const {
        RequestOptions request;
        request.timeout = timeout;
        return request;
    }
    Status step_failed(const Status& why, std::string_view step, std::chrono::milliseconds timeout,
                       std::string_view option) const {
        if (why.code() != Errc::timed_out) return why;
        return Status(Errc::timed_out, std::string(step) + ": " + agent_label + " did not answer within " +
                                           std::to_string(timeout.count()) +
                                           " ms (ClientOptions::" + std::string(option) + ")");
    }

    void log(LogLevel level, std::string_view message) const { logger(level, log_source::client, message); }
    // Records about a session's traffic (updates applied, held or dropped; silent turns).
    void log_session(LogLevel level, std::string_view message) const { logger(level, log_source::session, message); }

    // Refuses a call without sending anything; the callback still runs on a later turn.
    template <class T>
    void refuse(Callback<T> done, Status why) {
        log(LogLevel::debug, "refused before sending: " + why.message());
        deferred.post([done = std::move(done), why = std::move(why)] { done(why); });
    }

    uv_loop_t* loop;
    ClientOptions options;
    Logger logger;
    DeferredQueue deferred;
    std::unique_ptr<Connection> rpc;
    SessionStore store;
    HostHandlers host;
    // Sessions this client opened or resumed, with the roots the host sent (fs confinement).
    std::unordered_map<std::string, SessionRoots> session_roots;
    std::string agent_label;          // "the agent 'program'", for messages
    std::weak_ptr<void> owner;        // the Client::Impl, for keep_alive()
    bool orphaned = false;            // the Client is gone; no more host callbacks
    bool sent_other_request = false;  // initialize may not follow (CLIENT-MUST-21)
    // The elicitation modes the last initialize sent advertised: the agent may use those
    // and no others, whatever handler the host installs later (CLIENT-MUST-26, -72).
    bool advertised_form = false;
    bool advertised_url = false;
    bool connection_ended = false;
    // Library helpers built on the Client (acp::prompt_turn), each dropped when its owner
    // lets go of it: told when the connection ended, beside the host's on_closed, ...
    std::vector<std::weak_ptr<std::function<void(const Status&)>>> closed_watchers;
    // ... and when an agent message changed the model and the change is complete, before
    // the host's handler for that message runs (model_settled()).
    std::vector<std::weak_ptr<std::function<void()>>> settled_watchers;

    void model_settled() {
        if (settled_watchers.empty()) return;
        // A watcher may add or drop watchers while it runs.
        std::vector<std::shared_ptr<std::function<void()>>> live;
        for (const auto& weak : settled_watchers) {
            if (auto watcher = weak.lock()) live.push_back(std::move(watcher));
        }
        if (live.size() != settled_watchers.size()) settled_watchers.assign(live.begin(), live.end());
        for (const auto& watcher : live) {
            if (!orphaned) (*watcher)();
        }
    }
};

}  // namespace acp::detail
