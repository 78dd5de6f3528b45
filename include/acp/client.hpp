// SPDX-License-Identifier: Apache-2.0
// acp/client.hpp — the ACP client: spawn or adopt an agent, negotiate, drive sessions.
//
// Asynchronous and loop-affine: every call returns at once and its callback runs later on
// the loop thread, exactly once, with the typed result or a Status saying why not
// (refused before sending, the agent's error, cancelled, timed out, connection closed).
// Callbacks never run inside the call that caused them, so any callback may call any
// method, close() included. For scripts and tests, acp::wait_for<T>() runs the loop until a
// call completes. ACP v1 agents are served through the same v2-typed calls and updates: the
// client negotiates down and lifts their traffic into the v2 model (docs/v1.md).
//
//   uv_loop_t* loop = uv_default_loop();
//   acp::SpawnOptions agent;
//   agent.argv = {"my-agent", "--acp"};
//   auto client = acp::Client::spawn(loop, agent);
//   if (!client) { report(client.status()); return; }
//   (*client)->on_session_update([](const acp::v2::UpdateSessionNotification& n) { render(n); });
//   (*client)->initialize([&](acp::Result<acp::v2::InitializeResponse> r) {
//       acp::v2::NewSessionRequest request;
//       request.cwd = "/home/me/project";
//       (*client)->new_session(request, [&](acp::Result<acp::v2::NewSessionResponse> s) { ... });
//   });
//   uv_run(loop, UV_RUN_DEFAULT);
#pragma once

#include <uv.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acp/error_codes.hpp"
#include "acp/export.hpp"
#include "acp/json.hpp"
#include "acp/log.hpp"
#include "acp/session.hpp"
#include "acp/status.hpp"
#include "acp/tools.hpp"
#include "acp/traffic.hpp"
#include "acp/transport_options.hpp"
#include "acp/v2/types.hpp"

namespace acp {

namespace detail {
struct ClientAccess;
}  // namespace detail
// The v1-only part of the API (fs/* and terminal/* handlers for ACP v1 agents) is in
// acp/client_v1.hpp, so that a host that does not serve them does not compile the v1 types.
namespace v1 {
struct InitializeResponse;
struct ReadTextFileRequest;
struct WriteTextFileRequest;
}  // namespace v1
class ClientMethodResponder;
struct TerminalHandlers;

template <class T>
using Callback = std::function<void(Result<T>)>;

// True when the agent refused a request because the client must log in first (-32000):
// show the agent's auth methods, login(), then retry.
ACP_EXPORT bool is_auth_required(const Status& status);

struct ClientOptions {
    // Who the client is, as the agent sees it (InitializeRequest.info).
    v2::Implementation info;
    LogSink log;
    // Every request times out after this long unless it completes first; 0 = never.
    // (session/prompt only waits for the agent's acknowledgement, not the whole turn.)
    std::chrono::milliseconds request_timeout{0};
    std::size_t max_line_bytes = 32u * 1024u * 1024u;
    // The protocol version initialize asks for first: 2, or 1 for an agent known to speak
    // only v1 (saves the second initialize). Either way the agent's answer decides
    // (docs/v1.md).
    int protocol_version = 2;
    // Advertise auth.terminal (v1: auth.terminal: true): the host can run an agent's
    // terminal auth method, its command in a terminal the user sees. Only then may the
    // agent offer such methods (AGENT-MUST-04); a host that cannot leaves it false.
    bool auth_terminal = false;
    // Opt in to the unstable ACP surface (CLIENT-GUIDE 4.14; acp/unstable.hpp): session/fork,
    // archive, status, set_title, systemPrompt, auth/status, providers/*. Off, every call of
    // acp::unstable is refused before sending and nothing unstable is advertised or sent.
    // The unstable schema may change under it between libacp versions.
    bool unstable = false;
    // The transports the host's tool servers may be served over (acp/tools.hpp); all by
    // default. A setup with tools fails before sending when the agent advertised none of
    // the allowed ones. Entries the host writes into mcpServers itself are not affected.
    ToolTransports tool_transports;
    // A resume's replay is over once the agent answered and the session has then been
    // quiet this long (some agents send part of the replay after the answer); the
    // resume's callback runs then. 0 = at the answer, as the protocol says.
    std::chrono::milliseconds replay_settle{50};

    // Bounds on what an agent can make the client hold (docs/untrusted-agent.md).
    // Updates for sessions not known yet are held while a session/new is pending (they may
    // be its own, AGENT-MUST-07), up to this many and this many bytes (as JSON); past
    // either bound they are dropped, and the log says so.
    std::size_t max_held_updates = 1024;
    std::size_t max_held_update_bytes = 8u * 1024u * 1024u;
    // Subagent sessions (unstable subagent_update) become the client's without a resume,
    // up to this many per connection; the traffic of further ones is dropped, and the log
    // says so once.
    std::size_t max_subagent_sessions = 1024;
    // Backpressure: once more than max_queued_output_bytes of answers to the agent's
    // requests wait to be written to an agent that does not read its stdin, the client
    // stops reading from the agent (so the agent cannot make it queue more answers) and
    // reads again when they are down to resume_reading_below_bytes. The host's own
    // requests and notifications (a large prompt) never count. The log says so once per
    // pause. 0: no limit.
    std::size_t max_queued_output_bytes = 4u * 1024u * 1024u;
    std::size_t resume_reading_below_bytes = 1024u * 1024u;
    // Reading stays paused that way this long: the agent is not reading, the client closes
    // the connection and the closed status says why. 0: wait forever.
    std::chrono::milliseconds queued_output_timeout{std::chrono::seconds(30)};

    // Liveness (docs/untrusted-agent.md): initialize fails with Errc::timed_out, naming
    // the agent's program and the step, when the agent has not answered within this long
    // (each attempt of a version switch); 0 = never.
    std::chrono::milliseconds initialize_timeout{std::chrono::seconds(60)};
    // The same for login (auth/login; v1: authenticate), which may wait for a user in a
    // browser; 0 = never.
    std::chrono::milliseconds login_timeout{std::chrono::minutes(10)};
    // With an on_turn_silent handler: how long a running turn may produce nothing before
    // the handler is told (once per silence). 0 = never.
    std::chrono::milliseconds turn_silence{std::chrono::minutes(2)};
};

class Client;

// Answers one session/request_permission, exactly once; dropping it unanswered answers
// "cancelled" (never an approval).
class ACP_EXPORT PermissionResponder {
public:
    void select(const std::string& option_id) const;  // must be one of the offered options
    void cancel() const;
    bool answered() const;
    // The agent withdrew the request ($/cancel_request); libacp answers "cancelled" itself.
    void on_withdrawn(std::function<void()> fn) const;

    struct State;
    explicit PermissionResponder(std::shared_ptr<State> state);

private:
    std::shared_ptr<State> state_;
};

// Answers one elicitation/create, exactly once; dropping it unanswered answers "cancel".
class ACP_EXPORT ElicitationResponder {
public:
    // content: a JSON object of property name → value; refused (nothing sent) otherwise.
    Status accept(const RawJson& content) const;
    void decline() const;
    void cancel() const;
    bool answered() const;
    // The agent withdrew the request ($/cancel_request); libacp answers "cancel" itself.
    void on_withdrawn(std::function<void()> fn) const;

    struct State;
    explicit ElicitationResponder(std::shared_ptr<State> state);

private:
    std::shared_ptr<State> state_;
};

// Answers one extension request (a `_`-prefixed method the host registered), exactly
// once; dropping it unanswered answers the JSON-RPC error -32603.
class ACP_EXPORT ExtResponder {
public:
    void respond(RawJson result) const;
    void fail(int code, const std::string& message) const;
    bool answered() const;
    // The agent withdrew the request ($/cancel_request): fn runs, and unless it answered,
    // libacp answers the error -32800 (request cancelled) itself.
    void on_withdrawn(std::function<void()> fn) const;

    struct State;
    explicit ExtResponder(std::shared_ptr<State> state);

private:
    std::shared_ptr<State> state_;
};

// The directories a session may touch, exactly as the host sent them (never as the agent
// reported them): the cwd and additional directories of the successful session/new or
// session/resume (v1: session/load) that opened the session (acp/fs_guard.hpp).
struct SessionRoots {
    std::string cwd;
    std::vector<std::string> additional_directories;
};

// Identifies an outstanding request so the host can cancel it ($/cancel_request).
struct RequestHandle {
    int64_t id = -1;
};

class ACP_EXPORT Client {
public:
    static Result<std::unique_ptr<Client>> spawn(uv_loop_t* loop, const SpawnOptions& agent,
                                                 ClientOptions options = {});
    static Result<std::unique_ptr<Client>> adopt(uv_loop_t* loop, const AdoptedFds& fds, ClientOptions options = {});
    // An agent on the network, on the same loop (acp/transport_options.hpp, docs/remote.md).
    // The connection opens in the background: initialize() is sent once it is up, and a
    // refused connection, a bad certificate or an HTTP error fails initialize (or ends the
    // client) with the reason. Errc::unsupported when libacp was built without
    // ACP_WITH_REMOTE or the URL's scheme is not one of ws, wss, http, https.
    static Result<std::unique_ptr<Client>> connect(uv_loop_t* loop, const RemoteOptions& agent,
                                                   ClientOptions options = {});
    // Destroying closes the connection; pending callbacks are dropped. Allowed inside any of
    // the client's callbacks. Prefer close() for an orderly end.
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // --- handlers (install before initialize) ---------------------------------------
    // Every session/update, in arrival order, typed; updates that arrive before the
    // session/new response for their session are held and delivered right after it.
    void on_session_update(std::function<void(const v2::UpdateSessionNotification&)> handler);
    // Without a handler, permission requests are answered "cancelled".
    void on_permission_request(std::function<void(const v2::RequestPermissionRequest&, PermissionResponder)> handler);
    // Installing one advertises the form and/or url modes (only those it handles).
    void on_elicitation(bool form, bool url,
                        std::function<void(const v2::CreateElicitationRequest&, ElicitationResponder)> handler);
    void on_elicitation_complete(std::function<void(const v2::CompleteElicitationNotification&)> handler);
    void on_ext_request(std::string method, std::function<void(const RawJson& params, ExtResponder)> handler);
    void on_ext_notification(std::string method, std::function<void(const RawJson& params)> handler);
    // Notifications nobody handles (unknown methods), for logs and debugging panels.
    void on_unknown_notification(std::function<void(std::string_view method, const RawJson& params)> handler);
    void on_closed(std::function<void(const Status& why)> handler);
    // A session's running turn has produced nothing (no update, no request) for
    // ClientOptions::turn_silence; told once per silence. A report, not a kill: the host
    // may wait, cancel() or close(). Installing it turns the watch on.
    void on_turn_silent(
        std::function<void(const std::string& session_id, std::chrono::milliseconds silent_for)> handler);
    // ACP v1 client methods, for v1 agents (v2 has none). Each is advertised to a v1
    // agent only when installed; without one the agent's call gets -32601. The types are
    // in acp/client_v1.hpp.
    void on_read_text_file(std::function<void(const v1::ReadTextFileRequest&, ClientMethodResponder)> handler);
    void on_write_text_file(std::function<void(const v1::WriteTextFileRequest&, ClientMethodResponder)> handler);
    void on_terminal(TerminalHandlers handlers);
    void set_traffic_observer(TrafficObserver observer, bool redact_secrets = true);

    // --- lifecycle -------------------------------------------------------------------
    void initialize(Callback<v2::InitializeResponse> done);
    // The agent's answer to initialize, once it succeeded.
    // For a v1 agent: its answer lifted into v2 shape (protocolVersion stays 1).
    const v2::InitializeResponse* agent() const;
    // 2 or 1 once initialize succeeded, 0 before.
    int negotiated_version() const;
    // A v1 agent's own answer to initialize (nullptr for v2 agents; acp/client_v1.hpp).
    const v1::InitializeResponse* agent_v1() const;

    void login(const std::string& method_id, Callback<v2::LoginAuthResponse> done);
    void logout(Callback<v2::LogoutAuthResponse> done);

    // --- sessions ----------------------------------------------------------------------
    void new_session(v2::NewSessionRequest request, Callback<v2::NewSessionResponse> done);
    // With the host's tool servers (acp/tools.hpp): libacp serves them for this session over
    // the first transport the agent advertised (MCP over ACP, HTTP, stdio), adds their
    // entries to mcpServers and checks the whole list before sending; with none
    // advertised nothing is sent and done gets the reason. They are served until the
    // session is closed, deleted or resumed with others, or the connection ends.
    void new_session(v2::NewSessionRequest request, ToolServers tools, Callback<v2::NewSessionResponse> done);
    // With replayFrom {type: "start"}, the replayed history reaches on_session_update
    // before done runs. (v1: session/load.)
    void resume_session(v2::ResumeSessionRequest request, Callback<v2::ResumeSessionResponse> done);
    // mcpServers on resume is the complete set: the session's earlier tool servers are
    // replaced by these (none: dropped) once the agent accepted.
    void resume_session(v2::ResumeSessionRequest request, ToolServers tools, Callback<v2::ResumeSessionResponse> done);
    void list_sessions(v2::ListSessionsRequest request, Callback<v2::ListSessionsResponse> done);
    // Follows nextCursor until the last page.
    void list_all_sessions(std::optional<std::string> cwd, Callback<std::vector<v2::SessionInfo>> done);
    // -32002 (unknown session) counts as success.
    void close_session(const std::string& session_id, Callback<v2::CloseSessionResponse> done);
    void delete_session(const std::string& session_id, Callback<v2::DeleteSessionResponse> done);

    // The response only acknowledges the user message (its messageId); the turn ends
    // with an idle state update. With a v1 agent the response comes at the end of the
    // turn, right after that idle update, and the messageId is the synthetic id of the
    // user message the model shows.
    RequestHandle prompt(v2::PromptRequest request, Callback<v2::PromptResponse> done);
    void cancel(const std::string& session_id);
    void set_config_option(v2::SetSessionConfigOptionRequest request,
                           Callback<v2::SetSessionConfigOptionResponse> done);
    void cancel_tool_call(const std::string& session_id, const std::string& tool_call_id,
                          Callback<v2::CancelToolCallResponse> done);
    void cancel_terminal(const std::string& session_id, const std::string& terminal_id,
                         Callback<v2::CancelTerminalResponse> done);

    // --- extensions ----------------------------------------------------------------------
    RequestHandle ext_request(const std::string& method, RawJson params, Callback<RawJson> done);
    Status ext_notification(const std::string& method, RawJson params);

    // The roots of a session this client opened or resumed and has not closed or deleted;
    // nullopt for any other id (one the agent made up, one only listed). What a host
    // serving files checks paths against (acp/fs_guard.hpp).
    std::optional<SessionRoots> session_roots(std::string_view session_id) const;

    // --- the session model ------------------------------------------------------------
    // Every session/update (and permission subject) is applied here before on_session_update
    // runs; subscribe() for fine-grained change events. See docs/session-model.md.
    SessionStore& sessions();
    const SessionStore& sessions() const;

    // Withdraws an outstanding request ($/cancel_request); false when it is not outstanding
    // or was withdrawn already. Its callback still runs with the agent's real answer: the
    // error -32800 as Errc::cancelled when the withdrawal took effect, or the normal result
    // when the agent had already done the work (a held prompt it had inserted: the model
    // shows that message and the turn runs).
    bool cancel_request(RequestHandle handle);

    // Closes the connection (the agent's stdin, then the shutdown ladder); on_closed runs
    // when it ended. Idempotent.
    void close();
    // A host's "stop the agent" pressed again: close() if it was not called, and after it
    // the ladder's next step now instead of after its grace: terminate (SIGTERM, or
    // CTRL_BREAK_EVENT on Windows), then kill the agent's whole tree. Nothing once the
    // agent is gone, or for a remote or adopted agent beyond close().
    void hasten_close();
    bool is_closed() const;
    // Bytes written for the agent that it has not read yet: the host's own messages, and
    // answers to the agent's requests (those bounded by ClientOptions::max_queued_output_bytes
    // plus what one read from the agent can ask for).
    std::size_t queued_output_bytes() const;

    class Impl;

private:
    // Helpers the library builds on the Client (acp::prompt_turn) reach its internals.
    friend struct detail::ClientAccess;
    explicit Client(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> impl_;
};

// Runs the loop until done() holds or the loop has nothing left to do. For scripts and
// tests: acp::Result<T> r = acp::wait_for<T>(loop, [&](auto cb) { client->initialize(cb); });
ACP_EXPORT void run_until(uv_loop_t* loop, const std::function<bool()>& done);

template <class T, class Start>
Result<T> wait_for(uv_loop_t* loop, Start&& start) {
    std::optional<Result<T>> result;
    start([&result](Result<T> r) { result.emplace(std::move(r)); });
    run_until(loop, [&result] { return result.has_value(); });
    if (!result) return Status(Errc::internal, "the loop ran out of work before the call completed");
    return std::move(*result);
}

}  // namespace acp
