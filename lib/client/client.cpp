// SPDX-License-Identifier: Apache-2.0
// The Client facade: the public calls, each a short walk through the parts of
// client/client_impl.hpp.
#include "acp/client.hpp"
#include "acp/client_v1.hpp"

#include <set>
#include <utility>

#include "acp/version.hpp"
#include "client/client_impl.hpp"
#include "client/v1_client_methods.hpp"
#include "client/v1_driver.hpp"
#include "client/v2_driver.hpp"
#include "protocol/codec_support.hpp"
#include "protocol/request_checks.hpp"
#include "protocol/v2/methods.hpp"
#include "transport/fd_transport.hpp"
#include "transport/process_transport.hpp"
#include "transport/remote/remote_transport.hpp"

namespace acp {

namespace av1 = acp::v1;
namespace av2 = acp::v2;
namespace method = acp::v2::method;
using detail::Checked;
using detail::JsonValue;
using detail::JsonWriter;
using detail::ProtocolDriver;
using detail::Reply;
using detail::RequestGate;
using detail::Responder;

namespace {

RawJson raw_of(const JsonValue* value) { return RawJson{value ? detail::to_json_text(*value) : std::string("{}")}; }

// Extension params: the host's object, {} when it gave none.
void write_params(JsonWriter& writer, const RawJson& params) {
    if (params.text.empty()) {
        writer.StartObject();
        writer.EndObject();
        return;
    }
    detail::write_raw(writer, params);
}

}  // namespace

bool is_auth_required(const Status& status) {
    return status.code() == Errc::rpc_error && status.rpc_code() == error_code::auth_required;
}

// --- the parts, put together ------------------------------------------------------------

Client::Impl::Impl(uv_loop_t* loop, std::unique_ptr<detail::Transport> transport, ClientOptions options,
                   std::string agent_label)
    : core_(loop, std::move(transport), std::move(options), std::move(agent_label)),
      router_(core_),
      requests_(core_, router_),
      negotiation_(core_),
      tools_(loop, *core_.rpc, core_.logger) {
    if (core_.options.info.name.empty()) core_.options.info.name = "libacp";
    if (core_.options.info.version.empty()) core_.options.info.version = ACP_VERSION_STRING;
    listen();
    core_.rpc->start();
}

// The agent's messages go to the negotiated driver; before initialize succeeded there
// is none, and no session either.
void Client::Impl::listen() {
    detail::Connection& rpc = *core_.rpc;
    rpc.on_notification(std::string(method::session_update), [this](const JsonValue* params) {
        auto keep_alive = shared_from_this();
        if (driver_) return driver_->on_session_update(params);
        core_.log_session(LogLevel::warning, "a session/update before initialize succeeded was ignored");
    });
    rpc.set_line_shortcut([this](char* line, std::size_t size) {
        if (!driver_) return false;
        auto keep_alive = shared_from_this();
        return driver_->on_update_line(line, size);
    });
    rpc.on_request(std::string(method::session_request_permission), [this](const JsonValue* params, Responder r) {
        auto keep_alive = shared_from_this();
        if (driver_) return driver_->on_permission_request(params, std::move(r));
        r.fail(detail::rpc_code::invalid_request, "Invalid request: initialize has not completed");
    });
    for (std::string_view name : detail::V1ClientMethods::names) {
        rpc.on_request(std::string(name), [this, name](const JsonValue* params, Responder r) {
            auto keep_alive = shared_from_this();
            if (driver_) return driver_->on_client_method(name, params, std::move(r));
            r.fail(detail::rpc_code::method_not_found, "Method not found");
        });
    }
    rpc.on_request(std::string(method::elicitation_create), [this](const JsonValue* params, Responder r) {
        auto keep_alive = shared_from_this();
        requests_.elicitation(params, std::move(r));
    });
    rpc.on_notification(std::string(method::elicitation_complete), [this](const JsonValue* params) {
        auto keep_alive = shared_from_this();
        requests_.elicitation_complete(params);
    });
    // MCP over ACP: the agent's calls to the host's tool servers (acp/tools.hpp).
    rpc.on_request(std::string(detail::tools::kMcpMessageMethod), [this](const JsonValue* params, Responder r) {
        auto keep_alive = shared_from_this();
        tools_.on_mcp_message(params, std::move(r));
    });
    rpc.on_unknown_notification([this](std::string_view name, const JsonValue* params) {
        auto keep_alive = shared_from_this();
        if (core_.host.unknown_notification && !core_.orphaned) core_.host.unknown_notification(name, raw_of(params));
    });
    rpc.on_closed([this](const Status& why) {
        auto keep_alive = shared_from_this();
        core_.connection_ended = true;
        router_.connection_ended();
        tools_.clear(!core_.orphaned);
        if (core_.host.closed && !core_.orphaned) core_.host.closed(why);
        auto watchers = std::move(core_.closed_watchers);
        for (const auto& weak : watchers) {
            if (auto watcher = weak.lock(); watcher && !core_.orphaned) (*watcher)(why);
        }
    });
}

void Client::Impl::initialize(Callback<av2::InitializeResponse> done) {
    if (core_.sent_other_request) {
        return core_.refuse(std::move(done),
                            Status(Errc::invalid_argument,
                                   "CLIENT-MUST-21: initialize cannot be repeated after other requests were sent"));
    }
    // CLIENT-GUIDE 2.1: no pipelining; a repeat waits for the answer to the one before.
    if (initializing_) {
        return core_.refuse(std::move(done),
                            Status(Errc::invalid_argument, "initialize is already in flight; wait for its answer"));
    }
    // Until this attempt succeeds the connection is uninitialized.
    agent_.reset();
    agent_v1_.reset();
    gate_.reset();
    initializing_ = true;
    negotiation_.run([this, done = std::move(done)](Result<detail::Negotiation::Outcome> outcome) {
        initializing_ = false;
        if (!outcome) return done(outcome.status());
        choose_driver(std::move(outcome.value()));
        done(*agent_);
    });
}

void Client::Impl::choose_driver(detail::Negotiation::Outcome outcome) {
    if (outcome.agent_v1) {
        // A v1 agent's unstable capabilities were lifted into outcome.agent (opt-in only).
        gate_.emplace(detail::features_of(*outcome.agent_v1, outcome.agent),
                      detail::unstable_features_of(outcome.agent, core_.options.unstable),
                      core_.options.tool_transports, core_.store, router_);
        driver_ = std::make_unique<detail::V1Driver>(core_, router_, requests_);
    } else {
        gate_.emplace(detail::features_of(outcome.agent),
                      detail::unstable_features_of(outcome.agent, core_.options.unstable),
                      core_.options.tool_transports, core_.store, router_);
        driver_ = std::make_unique<detail::V2Driver>(core_, router_, requests_);
    }
    agent_ = std::move(outcome.agent);
    agent_v1_ = std::move(outcome.agent_v1);
}

Status Client::Impl::ready(std::string_view name) const {
    if (core_.rpc->is_closed()) {
        return Status(Errc::connection_closed, std::string(name) + ": the connection is closed");
    }
    if (!agent_) {
        return Status(Errc::invalid_argument,
                      "CLIENT-MUST-20: " + std::string(name) + " needs a successful initialize first");
    }
    return Status();
}

// --- construction -----------------------------------------------------------------------

Result<std::unique_ptr<Client>> Client::spawn(uv_loop_t* loop, const SpawnOptions& agent, ClientOptions options) {
    auto transport = detail::ProcessTransport::spawn(loop, agent, detail::Logger(options.log));
    if (!transport) return transport.status();
    std::string label = agent.argv.empty() ? std::string("the agent") : "the agent '" + agent.argv[0] + "'";
    return std::unique_ptr<Client>(
        new Client(std::make_shared<Impl>(loop, std::move(transport.value()), std::move(options), std::move(label))));
}

Result<std::unique_ptr<Client>> Client::adopt(uv_loop_t* loop, const AdoptedFds& fds, ClientOptions options) {
    auto transport = detail::FdTransport::adopt(loop, fds, detail::Logger(options.log));
    if (!transport) return transport.status();
    return std::unique_ptr<Client>(new Client(
        std::make_shared<Impl>(loop, std::move(transport.value()), std::move(options), "the adopted agent")));
}

Result<std::unique_ptr<Client>> Client::connect(uv_loop_t* loop, const RemoteOptions& agent, ClientOptions options) {
    auto remote = detail::connect_remote(loop, agent, options.max_line_bytes, std::move(options.log));
    if (!remote) return remote.status();
    options.log = std::move(remote.value().log);  // the host's, never showing its header values
    return std::unique_ptr<Client>(new Client(std::make_shared<Impl>(
        loop, std::move(remote.value().transport), std::move(options), std::move(remote.value().label))));
}

Client::Client(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->core_.owner = impl_; }
Client::~Client() { impl_->core_.orphaned = true; }

// --- handlers ---------------------------------------------------------------------------

void Client::on_session_update(std::function<void(const av2::UpdateSessionNotification&)> handler) {
    impl_->core_.host.session_update = std::move(handler);
}
void Client::on_permission_request(
    std::function<void(const av2::RequestPermissionRequest&, PermissionResponder)> handler) {
    impl_->core_.host.permission = std::move(handler);
}
void Client::on_elicitation(bool form, bool url,
                            std::function<void(const av2::CreateElicitationRequest&, ElicitationResponder)> handler) {
    impl_->core_.host.elicitation_form = form;
    impl_->core_.host.elicitation_url = url;
    impl_->core_.host.elicitation = std::move(handler);
}
void Client::on_elicitation_complete(std::function<void(const av2::CompleteElicitationNotification&)> handler) {
    impl_->core_.host.elicitation_complete = std::move(handler);
}
void Client::on_ext_request(std::string name, std::function<void(const RawJson&, ExtResponder)> handler) {
    if (!detail::check_extension_method(name)) {
        impl_->core_.log(LogLevel::error, "extension handler for '" + name + "' ignored: no '_'");
        return;
    }
    impl_->core_.rpc->on_request(name, [handler = std::move(handler)](const JsonValue* params, Responder r) {
        auto state = std::make_shared<ExtResponder::State>(r);
        std::weak_ptr<ExtResponder::State> weak = state;
        // The agent withdrew it: tell the host; still unanswered, it is owed -32800 (CLIENT-GUIDE 4.12).
        r.on_cancel([weak] {
            if (auto s = weak.lock()) {
                if (s->on_withdrawn) s->on_withdrawn();
                if (!s->responder.answered()) s->responder.fail(error_code::request_cancelled, "Request cancelled");
            }
        });
        handler(raw_of(params), ExtResponder(std::move(state)));
    });
}
void Client::on_ext_notification(std::string name, std::function<void(const RawJson&)> handler) {
    if (!detail::check_extension_method(name)) {
        impl_->core_.log(LogLevel::error, "extension handler for '" + name + "' ignored: no '_'");
        return;
    }
    impl_->core_.rpc->on_notification(
        name, [handler = std::move(handler)](const JsonValue* params) { handler(raw_of(params)); });
}
void Client::on_unknown_notification(std::function<void(std::string_view, const RawJson&)> handler) {
    impl_->core_.host.unknown_notification = std::move(handler);
}
void Client::on_closed(std::function<void(const Status&)> handler) { impl_->core_.host.closed = std::move(handler); }
void Client::on_turn_silent(std::function<void(const std::string&, std::chrono::milliseconds)> handler) {
    impl_->core_.host.turn_silent = std::move(handler);
}
void Client::on_read_text_file(std::function<void(const av1::ReadTextFileRequest&, ClientMethodResponder)> handler) {
    impl_->core_.host.read_text_file = std::move(handler);
}
void Client::on_write_text_file(std::function<void(const av1::WriteTextFileRequest&, ClientMethodResponder)> handler) {
    impl_->core_.host.write_text_file = std::move(handler);
}
void Client::on_terminal(TerminalHandlers handlers) { impl_->core_.host.terminal = std::move(handlers); }
void Client::set_traffic_observer(TrafficObserver observer, bool redact_secrets) {
    impl_->core_.rpc->set_traffic_observer(std::move(observer), redact_secrets);
}

// --- lifecycle --------------------------------------------------------------------------

void Client::initialize(Callback<av2::InitializeResponse> done) { impl_->initialize(std::move(done)); }
const av2::InitializeResponse* Client::agent() const { return impl_->agent_ ? &*impl_->agent_ : nullptr; }
int Client::negotiated_version() const { return impl_->agent_ ? static_cast<int>(impl_->agent_->protocolVersion) : 0; }
const av1::InitializeResponse* Client::agent_v1() const { return impl_->agent_v1_ ? &*impl_->agent_v1_ : nullptr; }

void Client::login(const std::string& method_id, Callback<av2::LoginAuthResponse> done) {
    av2::LoginAuthRequest request;
    request.methodId = method_id;
    impl_->submit(
        method::auth_login, std::move(done), [&](const RequestGate& gate) { return gate.login(std::move(request)); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.login(std::move(checked), std::move(callback));
        });
}

void Client::logout(Callback<av2::LogoutAuthResponse> done) {
    impl_->submit(
        method::auth_logout, std::move(done), [](const RequestGate& gate) { return gate.logout({}); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.logout(std::move(checked), std::move(callback));
        });
}

// --- sessions ---------------------------------------------------------------------------

// The roots a session opened with: recorded from the host's own request when the agent
// accepted it, so that nothing the agent says (a session/list entry) can widen them.
namespace {
SessionRoots roots_of(const std::string& cwd, const std::optional<std::vector<std::string>>& additional) {
    return SessionRoots{cwd, additional.value_or(std::vector<std::string>{})};
}
}  // namespace

void Client::Impl::new_session(av2::NewSessionRequest request, const ToolServers& tools,
                               const std::optional<v2::unstable::SystemPrompt>& prompt,
                               Callback<av2::NewSessionResponse> done) {
    // The tool servers' offer belongs to the request until the agent accepted the session.
    auto offer = tools.empty() ? nullptr : tools_.prepare(tools);
    done = [weak = weak_from_this(), roots = roots_of(request.cwd, request.additionalDirectories), offer,
            done = std::move(done)](Result<av2::NewSessionResponse> result) {
        if (auto impl = weak.lock(); impl && result) {
            impl->core_.session_roots[result->sessionId] = roots;
            if (offer) impl->tools_.attach(result->sessionId, offer);
        }
        done(std::move(result));
    };
    detail::ToolEntries entries;
    if (offer) entries = [this, &offer](detail::ToolTransport t) { return tools_.start(*offer, t); };
    submit(
        method::session_new, std::move(done),
        [&](const RequestGate& gate) { return gate.new_session(std::move(request), entries, prompt); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.new_session(std::move(checked), std::move(callback));
        });
}

void Client::Impl::resume_session(av2::ResumeSessionRequest request, const ToolServers& tools,
                                  const std::optional<v2::unstable::SystemPrompt>& prompt,
                                  Callback<av2::ResumeSessionResponse> done) {
    auto offer = tools.empty() ? nullptr : tools_.prepare(tools);
    done = [weak = weak_from_this(), id = request.sessionId,
            roots = roots_of(request.cwd, request.additionalDirectories), offer,
            done = std::move(done)](Result<av2::ResumeSessionResponse> result) {
        if (auto impl = weak.lock(); impl && result) {
            impl->core_.session_roots[id] = roots;
            // mcpServers on resume is the complete set (CLIENT-MUST-42): earlier tools go.
            impl->tools_.attach(id, offer);
        }
        done(std::move(result));
    };
    detail::ToolEntries entries;
    if (offer) entries = [this, &offer](detail::ToolTransport t) { return tools_.start(*offer, t); };
    submit(
        method::session_resume, std::move(done),
        [&](const RequestGate& gate) { return gate.resume_session(std::move(request), entries, prompt); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.resume_session(std::move(checked), std::move(callback));
        });
}

void Client::Impl::list_sessions(av2::ListSessionsRequest request,
                                 const std::optional<v2::unstable::SessionArchiveFilter>& archived,
                                 Callback<av2::ListSessionsResponse> done) {
    submit(
        method::session_list, std::move(done),
        [&](const RequestGate& gate) { return gate.list_sessions(std::move(request), archived); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.list_sessions(std::move(checked), std::move(callback));
        });
}

void Client::new_session(av2::NewSessionRequest request, Callback<av2::NewSessionResponse> done) {
    impl_->new_session(std::move(request), {}, std::nullopt, std::move(done));
}

void Client::new_session(av2::NewSessionRequest request, ToolServers tools, Callback<av2::NewSessionResponse> done) {
    impl_->new_session(std::move(request), tools, std::nullopt, std::move(done));
}

void Client::resume_session(av2::ResumeSessionRequest request, Callback<av2::ResumeSessionResponse> done) {
    impl_->resume_session(std::move(request), {}, std::nullopt, std::move(done));
}

void Client::resume_session(av2::ResumeSessionRequest request, ToolServers tools,
                            Callback<av2::ResumeSessionResponse> done) {
    impl_->resume_session(std::move(request), tools, std::nullopt, std::move(done));
}

void Client::list_sessions(av2::ListSessionsRequest request, Callback<av2::ListSessionsResponse> done) {
    impl_->list_sessions(std::move(request), std::nullopt, std::move(done));
}

namespace {

// Pages through session/list: cursors are opaque and "" is a valid one (CLIENT-MUST-43).
struct SessionPager : std::enable_shared_from_this<SessionPager> {
    Client* client;
    std::optional<std::string> cwd;
    Callback<std::vector<av2::SessionInfo>> done;
    std::vector<av2::SessionInfo> sessions;
    std::set<std::string> seen_cursors;

    void next(const Nullable<std::string>& cursor) {
        av2::ListSessionsRequest request;
        if (cwd) request.cwd = *cwd;
        if (cursor.has_value()) request.cursor = *cursor;
        auto self = shared_from_this();
        client->list_sessions(std::move(request), [self](Result<av2::ListSessionsResponse> page) {
            if (!page) return self->done(page.status());
            for (auto& info : page->sessions) self->sessions.push_back(std::move(info));
            if (!page->nextCursor.has_value()) return self->done(std::move(self->sessions));
            if (!self->seen_cursors.insert(*page->nextCursor).second) {
                return self->done(Status(Errc::protocol_error, "session/list returned the same cursor twice"));
            }
            self->next(page->nextCursor);
        });
    }
};

}  // namespace

void Client::list_all_sessions(std::optional<std::string> cwd, Callback<std::vector<av2::SessionInfo>> done) {
    auto pager = std::make_shared<SessionPager>();
    pager->client = this;
    pager->cwd = std::move(cwd);
    pager->done = std::move(done);
    pager->next(Nullable<std::string>());
}

void Client::close_session(const std::string& session_id, Callback<av2::CloseSessionResponse> done) {
    done = [weak = std::weak_ptr<Impl>(impl_), session_id,
            done = std::move(done)](Result<av2::CloseSessionResponse> result) {
        if (auto impl = weak.lock(); impl && result) {
            impl->core_.session_roots.erase(session_id);
            impl->tools_.release(session_id);
        }
        done(std::move(result));
    };
    av2::CloseSessionRequest request;
    request.sessionId = session_id;
    impl_->submit(
        method::session_close, std::move(done),
        [&](const RequestGate& gate) { return gate.close_session(std::move(request)); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.close_session(std::move(checked), std::move(callback));
        });
}

void Client::delete_session(const std::string& session_id, Callback<av2::DeleteSessionResponse> done) {
    done = [weak = std::weak_ptr<Impl>(impl_), session_id,
            done = std::move(done)](Result<av2::DeleteSessionResponse> result) {
        if (auto impl = weak.lock(); impl && result) {
            impl->core_.session_roots.erase(session_id);
            impl->tools_.release(session_id);
        }
        done(std::move(result));
    };
    av2::DeleteSessionRequest request;
    request.sessionId = session_id;
    impl_->submit(
        method::session_delete, std::move(done),
        [&](const RequestGate& gate) { return gate.delete_session(std::move(request)); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.delete_session(std::move(checked), std::move(callback));
        });
}

RequestHandle Client::prompt(av2::PromptRequest request, Callback<av2::PromptResponse> done) {
    RequestHandle handle;
    impl_->submit(
        method::session_prompt, std::move(done),
        [&](const RequestGate& gate) { return gate.prompt(std::move(request)); },
        [&handle](ProtocolDriver& driver, auto checked, auto callback) {
            handle = driver.prompt(std::move(checked), std::move(callback));
        });
    return handle;
}

void Client::cancel(const std::string& session_id) {
    if (!impl_->ready(method::session_cancel)) return;
    av2::CancelSessionNotification notification;
    notification.sessionId = session_id;
    auto checked = impl_->gate_->cancel(std::move(notification));
    if (!checked) {
        impl_->core_.log(LogLevel::warning, "session/cancel not sent: " + checked.status().message());
        return;
    }
    impl_->driver_->cancel(std::move(checked.value()));
}

void Client::set_config_option(av2::SetSessionConfigOptionRequest request,
                               Callback<av2::SetSessionConfigOptionResponse> done) {
    impl_->submit(
        method::session_set_config_option, std::move(done),
        [&](const RequestGate& gate) { return gate.set_config_option(std::move(request)); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.set_config_option(std::move(checked), std::move(callback));
        });
}

void Client::cancel_tool_call(const std::string& session_id, const std::string& tool_call_id,
                              Callback<av2::CancelToolCallResponse> done) {
    av2::CancelToolCallRequest request;
    request.sessionId = session_id;
    request.toolCallId = tool_call_id;
    impl_->submit(
        method::tool_call_cancel, std::move(done),
        [&](const RequestGate& gate) { return gate.cancel_tool_call(std::move(request)); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.cancel_tool_call(std::move(checked), std::move(callback));
        });
}

void Client::cancel_terminal(const std::string& session_id, const std::string& terminal_id,
                             Callback<av2::CancelTerminalResponse> done) {
    av2::CancelTerminalRequest request;
    request.sessionId = session_id;
    request.terminalId = terminal_id;
    impl_->submit(
        method::terminal_cancel, std::move(done),
        [&](const RequestGate& gate) { return gate.cancel_terminal(std::move(request)); },
        [](ProtocolDriver& driver, auto checked, auto callback) {
            driver.cancel_terminal(std::move(checked), std::move(callback));
        });
}

// --- extensions: the same in both versions ----------------------------------------------

RequestHandle Client::ext_request(const std::string& name, RawJson params, Callback<RawJson> done) {
    RequestHandle handle;
    Impl* impl = impl_.get();
    impl_->submit(
        name, std::move(done),
        [&](const RequestGate& gate) {
            return gate.extension({name, std::move(params)});
        },
        [&handle, impl](ProtocolDriver&, Checked<detail::ExtMessage> checked, Callback<RawJson> callback) {
            impl->core_.sent_other_request = true;
            handle.id = impl->core_.rpc->send_request(
                checked->method, [&checked](JsonWriter& w) { write_params(w, checked->params); },
                [impl, callback = std::move(callback)](const Reply& reply) {
                    auto keep_alive = impl->shared_from_this();
                    if (impl->core_.orphaned) return;
                    if (!reply.status) return callback(reply.status);
                    callback(raw_of(reply.result));
                },
                impl->core_.request_options());
        });
    return handle;
}

Status Client::ext_notification(const std::string& name, RawJson params) {
    if (!impl_->agent_) return Status(Errc::invalid_argument, "CLIENT-MUST-20: initialize first");
    auto checked = impl_->gate_->extension({name, std::move(params)});
    if (!checked) return checked.status();
    impl_->core_.rpc->send_notification(name, [&checked](JsonWriter& w) { write_params(w, checked.value()->params); });
    return Status();
}

bool Client::cancel_request(RequestHandle handle) {
    return handle.id >= 0 && impl_->core_.rpc->withdraw_request(handle.id);
}

std::optional<SessionRoots> Client::session_roots(std::string_view session_id) const {
    auto it = impl_->core_.session_roots.find(std::string(session_id));
    if (it == impl_->core_.session_roots.end()) return std::nullopt;
    return it->second;
}

SessionStore& Client::sessions() { return impl_->core_.store; }
const SessionStore& Client::sessions() const { return impl_->core_.store; }

void Client::close() { impl_->core_.rpc->close(); }
void Client::hasten_close() { impl_->core_.rpc->hasten_close(); }
bool Client::is_closed() const { return impl_->core_.rpc->is_closed(); }
std::size_t Client::queued_output_bytes() const { return impl_->core_.rpc->queued_output_bytes(); }

void run_until(uv_loop_t* loop, const std::function<bool()>& done) {
    while (!done()) {
        if (uv_run(loop, UV_RUN_ONCE) == 0 && !done()) return;
    }
}

}  // namespace acp
