// SPDX-License-Identifier: Apache-2.0
#include "acp/client.hpp"

#include "acp/version.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "client/v1_adapter.hpp"
#include "jsonrpc/connection.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v1/methods.hpp"
#include "protocol/v2/codec.hpp"
#include "protocol/v2/methods.hpp"
#include "protocol/v2/validation.hpp"
#include "session/terminal_bytes.hpp"
#include "support/deferred_queue.hpp"
#include "support/uv_handle.hpp"
#include "transport/fd_transport.hpp"
#include "transport/process_transport.hpp"

namespace acp {

namespace av1 = acp::v1;
namespace av2 = acp::v2;
namespace codec = acp::v2::codec;
namespace v1codec = acp::v1::codec;
namespace v1method = acp::v1::method;
namespace method = acp::v2::method;
using detail::JsonValue;
using detail::JsonWriter;
using detail::Reply;
using detail::Responder;

namespace {

constexpr int kProtocolVersion = 2;

// The sessionUpdate tag of session/update params, "" when there is none.
std::string_view update_kind(const JsonValue& params) {
    const JsonValue* update = detail::find_member(params, "update");
    const JsonValue* kind = update != nullptr && update->IsObject() ? detail::find_member(*update, "sessionUpdate") : nullptr;
    return kind != nullptr && kind->IsString() ? detail::string_view_of(*kind) : std::string_view();
}

// Writes a RawJson as the JSON value it holds ({} for an empty one).
void write_raw(JsonWriter& writer, const RawJson& raw) {
    if (raw.text.empty()) {
        writer.StartObject();
        writer.EndObject();
        return;
    }
    writer.RawValue(raw.text.data(), raw.text.size(), rapidjson::kObjectType);
}

RawJson raw_of(const JsonValue* value) { return RawJson{value ? detail::to_json_text(*value) : std::string("{}")}; }

// Params that are no JSON object (or not JSON at all) are refused before sending.
Status check_raw_object(const RawJson& raw, const std::string& what) {
    if (raw.text.empty()) return Status();
    rapidjson::Document document;
    document.Parse(raw.text.data(), raw.text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return Status(Errc::invalid_argument, what + " must be a JSON object: " + raw.text.substr(0, 80));
    }
    return Status();
}

}  // namespace

bool is_auth_required(const Status& status) {
    return status.code() == Errc::rpc_error && status.rpc_code() == error_code::auth_required;
}

// --- responders ------------------------------------------------------------------------

struct PermissionResponder::State {
    Responder responder;
    std::set<std::string> offered;
    std::function<void()> on_withdrawn;

    explicit State(Responder r) : responder(std::move(r)) {}
    // Unanswered at the end: never an approval.
    ~State() {
        if (!responder.answered()) send_cancelled();
    }
    void send_cancelled() const {
        responder.respond([](JsonWriter& w) {
            av2::RequestPermissionResponse response;
            response.outcome = av2::RequestPermissionOutcome::make_cancelled({});
            codec::encode(w, response);
        });
    }
};

PermissionResponder::PermissionResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void PermissionResponder::select(const std::string& option_id) const {
    if (state_->responder.answered()) return;
    if (state_->offered.count(option_id) == 0) {
        // CLIENT-MUST-71: only an offered optionId; anything else would read as approval
        // of something never offered, so the request is answered "cancelled" instead.
        state_->send_cancelled();
        return;
    }
    state_->responder.respond([&option_id](JsonWriter& w) {
        av2::RequestPermissionResponse response;
        av2::SelectedPermissionOutcome selected;
        selected.optionId = option_id;
        response.outcome = av2::RequestPermissionOutcome::make_selected(std::move(selected));
        codec::encode(w, response);
    });
}

void PermissionResponder::cancel() const {
    if (!state_->responder.answered()) state_->send_cancelled();
}

bool PermissionResponder::answered() const { return state_->responder.answered(); }

void PermissionResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

struct ElicitationResponder::State {
    Responder responder;
    std::function<void()> on_withdrawn;
    explicit State(Responder r) : responder(std::move(r)) {}
    ~State() {
        if (!responder.answered()) send(av2::CreateElicitationResponseAction::make_cancel());
    }
    void send(av2::CreateElicitationResponseAction action) const {
        responder.respond([&action](JsonWriter& w) {
            av2::CreateElicitationResponse response;
            response.action = std::move(action);
            codec::encode(w, response);
        });
    }
};

ElicitationResponder::ElicitationResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

Status ElicitationResponder::accept(const RawJson& content) const {
    if (state_->responder.answered()) return Status(Errc::invalid_argument, "the elicitation was already answered");
    // Decoding {"action":"accept","content":...} checks the content's shape before it goes out.
    std::string wrapped = "{\"action\":\"accept\",\"content\":" + (content.text.empty() ? "{}" : content.text) + "}";
    rapidjson::Document document;
    document.Parse(wrapped.data(), wrapped.size());
    av2::CreateElicitationResponse response;
    Status decoded = document.HasParseError() ? Status(Errc::invalid_argument, "not JSON")
                                              : codec::decode(document, response);
    if (!decoded || response.action.kind() != av2::CreateElicitationResponseAction::Kind::accept) {
        return Status(Errc::invalid_argument,
                      "elicitation content must be a JSON object of property values: " + decoded.message());
    }
    state_->responder.respond([&response](JsonWriter& w) { codec::encode(w, response); });
    return Status();
}

void ElicitationResponder::decline() const {
    if (!state_->responder.answered()) state_->send(av2::CreateElicitationResponseAction::make_decline());
}

void ElicitationResponder::cancel() const {
    if (!state_->responder.answered()) state_->send(av2::CreateElicitationResponseAction::make_cancel());
}

bool ElicitationResponder::answered() const { return state_->responder.answered(); }

void ElicitationResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

struct ExtResponder::State {
    Responder responder;
    explicit State(Responder r) : responder(std::move(r)) {}
};

ExtResponder::ExtResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void ExtResponder::respond(RawJson result) const {
    if (Status s = check_raw_object(result, "an extension result"); !s) {
        state_->responder.fail(detail::rpc_code::internal_error, s.message());
        return;
    }
    state_->responder.respond([&result](JsonWriter& w) { write_raw(w, result); });
}

void ExtResponder::fail(int code, const std::string& message) const { state_->responder.fail(code, message); }

struct ClientMethodResponder::State {
    Responder responder;
    std::function<void()> on_withdrawn;
    // What the host's terminal answers show the session model (Client::on_terminal).
    std::function<void(const av1::CreateTerminalResponse&)> terminal_created;
    std::function<void(const av1::TerminalOutputResponse&)> terminal_output;
    std::function<void(const av1::WaitForTerminalExitResponse&)> terminal_exited;
    explicit State(Responder r) : responder(std::move(r)) {}
    // Sends the answer; true when it was the first one.
    template <class Response>
    bool send(const Response& response) const {
        if (responder.answered()) return false;
        responder.respond([&response](JsonWriter& w) { v1codec::encode(w, response); });
        return true;
    }
    template <class Response>
    void send_watched(const Response& response, const std::function<void(const Response&)>& watch) const {
        if (send(response) && watch) watch(response);
    }
};

ClientMethodResponder::ClientMethodResponder(std::shared_ptr<State> state) : state_(std::move(state)) {}

void ClientMethodResponder::respond(const av1::ReadTextFileResponse& response) const { state_->send(response); }
void ClientMethodResponder::respond(const av1::WriteTextFileResponse& response) const { state_->send(response); }
void ClientMethodResponder::respond(const av1::CreateTerminalResponse& response) const {
    state_->send_watched(response, state_->terminal_created);
}
void ClientMethodResponder::respond(const av1::TerminalOutputResponse& response) const {
    state_->send_watched(response, state_->terminal_output);
}
void ClientMethodResponder::respond(const av1::WaitForTerminalExitResponse& response) const {
    state_->send_watched(response, state_->terminal_exited);
}
void ClientMethodResponder::respond(const av1::KillTerminalResponse& response) const { state_->send(response); }
void ClientMethodResponder::respond(const av1::ReleaseTerminalResponse& response) const { state_->send(response); }
void ClientMethodResponder::fail(int code, const std::string& message) const { state_->responder.fail(code, message); }
bool ClientMethodResponder::answered() const { return state_->responder.answered(); }
void ClientMethodResponder::on_withdrawn(std::function<void()> fn) const { state_->on_withdrawn = std::move(fn); }

}  // namespace acp

namespace acp {

// --- the client ------------------------------------------------------------------------

// Shared so that a host callback may destroy the Client: whatever runs keeps the Impl
// alive until it returns, and orphaned_ stops every further host callback.
class Client::Impl : public std::enable_shared_from_this<Impl> {
public:
    Impl(uv_loop_t* loop, std::unique_ptr<detail::Transport> transport, ClientOptions options)
        : loop_(loop),
          options_(std::move(options)),
          logger_(options_.log),
          deferred_(loop),
          rpc_(std::make_unique<detail::Connection>(loop, std::move(transport), logger_, connection_options())) {
        if (options_.info.name.empty()) options_.info.name = "libacp";
        if (options_.info.version.empty()) options_.info.version = ACP_VERSION_STRING;
        rpc_->on_notification(std::string(method::session_update), [this](const JsonValue* params) {
            auto keep_alive = shared_from_this();
            if (version_ == 1) {
                on_v1_session_update(params);
            } else {
                on_session_update_notification(params);
            }
        });
        rpc_->on_notification(std::string(method::elicitation_complete), [this](const JsonValue* params) {
            auto keep_alive = shared_from_this();
            on_elicitation_complete_notification(params);
        });
        rpc_->on_request(std::string(method::session_request_permission), [this](const JsonValue* params, Responder r) {
            auto keep_alive = shared_from_this();
            if (version_ == 1) {
                on_v1_permission(params, std::move(r));
            } else {
                on_permission(params, std::move(r));
            }
        });
        rpc_->on_request(std::string(method::elicitation_create), [this](const JsonValue* params, Responder r) {
            auto keep_alive = shared_from_this();
            on_elicitation_request(params, std::move(r));
        });
        rpc_->on_unknown_notification([this](std::string_view name, const JsonValue* params) {
            auto keep_alive = shared_from_this();
            if (unknown_notification_ && !orphaned_) unknown_notification_(name, raw_of(params));
        });
        rpc_->on_closed([this](const Status& why) {
            auto keep_alive = shared_from_this();
            connection_ended_ = true;
            settle_all_replays();
            if (closed_handler_ && !orphaned_) closed_handler_(why);
        });
        rpc_->start();
    }

    detail::ConnectionOptions connection_options() const {
        detail::ConnectionOptions connection;
        connection.max_line_bytes = options_.max_line_bytes;
        return connection;
    }

    // --- typed requests ------------------------------------------------------------

    // Refuses a call without sending anything; the callback still runs on a later turn.
    template <class T>
    void refuse(Callback<T>& done, Status why) {
        logger_(LogLevel::debug, log_source::jsonrpc, "refused before sending: " + why.message());
        deferred_.post([done = std::move(done), why = std::move(why)] { done(why); });
    }

    // Sends a typed request; the answer is decoded into Response. after() sees a decoded
    // success before the host does (to track state), and may replace a failure (close
    // and delete turn -32002 into success).
    template <class Response, class Request>
    int64_t call(std::string_view name, const Request& request, Callback<Response> done,
                 std::function<void(const Response&)> after = nullptr,
                 std::function<std::optional<Response>(const Status&)> on_error = nullptr) {
        sent_other_request_ = true;  // initialize may not follow (CLIENT-MUST-21)
        std::string method_name(name);
        return rpc_->send_request(
            name, [&request](JsonWriter& w) { codec::encode(w, request); },
            [this, method_name, done = std::move(done), after = std::move(after),
             on_error = std::move(on_error)](const Reply& reply) {
                auto keep_alive = shared_from_this();
                if (orphaned_) return;
                if (!reply.status) {
                    if (on_error) {
                        if (auto replaced = on_error(reply.status)) {
                            done(std::move(*replaced));
                            return;
                        }
                    }
                    done(reply.status);
                    return;
                }
                Response response;
                Status decoded = codec::decode(*reply.result, response);
                if constexpr (std::is_same_v<Response, av2::PromptResponse>) {
                    // Earlier drafts answered {}: accept it; the user_message update then
                    // carries the message id (CLIENT-GUIDE §4.8).
                    if (!decoded && reply.result->IsObject() &&
                        detail::find_member(*reply.result, "messageId") == nullptr) {
                        decoded = Status();
                    }
                }
                if (!decoded) {
                    logger_(LogLevel::error, log_source::jsonrpc,
                            "the agent's answer to " + method_name + " is invalid: " + decoded.message());
                    done(Status(Errc::protocol_error,
                                "the agent's answer to " + method_name + " is invalid: " + decoded.message()));
                    return;
                }
                if (after) after(response);
                done(std::move(response));
            },
            request_options());
    }

    // Everything but initialize needs a successful initialize first (CLIENT-MUST-20).
    template <class T>
    bool ready(Callback<T>& done, std::string_view name) {
        if (rpc_->is_closed()) {
            refuse(done, Status(Errc::connection_closed, std::string(name) + ": the connection is closed"));
            return false;
        }
        if (!agent_) {
            refuse(done, Status(Errc::invalid_argument,
                                "CLIENT-MUST-20: " + std::string(name) + " needs a successful initialize first"));
            return false;
        }
        return true;
    }

    // --- initialize ------------------------------------------------------------------

    void initialize(Callback<av2::InitializeResponse> done) {
        if (sent_other_request_) {
            refuse(done, Status(Errc::invalid_argument,
                                "CLIENT-MUST-21: initialize cannot be repeated after other requests were sent"));
            return;
        }
        agent_.reset();  // until this attempt succeeds, the connection is uninitialized
        agent_v1_.reset();
        version_ = 0;
        if (options_.protocol_version == 1) {
            send_v1_initialize(std::move(done), true);
            return;
        }
        send_v2_initialize(std::move(done), true);
    }

    // may_switch: the agent's answer may still move the connection to the other version
    // (once: a second initialize in the version it named).
    void send_v2_initialize(Callback<av2::InitializeResponse> done, bool may_switch) {
        av2::InitializeRequest request;
        request.protocolVersion = kProtocolVersion;
        request.info = options_.info;
        av2::ClientCapabilities capabilities;
        // CLIENT-MUST-26: a mode is advertised only when the host handles it.
        if (elicitation_handler_ && (elicitation_form_ || elicitation_url_)) {
            av2::ElicitationCapabilities elicitation;
            if (elicitation_form_) elicitation.form = av2::ElicitationFormCapabilities{};
            if (elicitation_url_) elicitation.url = av2::ElicitationUrlCapabilities{};
            capabilities.elicitation = std::move(elicitation);
        }
        request.capabilities = std::move(capabilities);
        rpc_->send_request(
            method::initialize, [&request](JsonWriter& w) { codec::encode(w, request); },
            [this, done = std::move(done), may_switch](const Reply& reply) {
                auto keep_alive = shared_from_this();
                if (!orphaned_) on_initialize_reply(reply, done, may_switch);
            },
            request_options());
    }

    // A v1 agent learns the client's real info and capabilities only from a v1-shaped
    // initialize: v1 has other field names, and a v1 agent reads nothing of the v2 ones
    // (CLIENT-GUIDE §10). Sent first when the host asks for v1, else after a v2 attempt
    // was answered with 1, on the same connection (allowed: nothing else was sent yet).
    void send_v1_initialize(Callback<av2::InitializeResponse> done, bool may_switch) {
        detail::V1ClientFeatures features;
        features.read_text_file = static_cast<bool>(read_text_file_);
        features.write_text_file = static_cast<bool>(write_text_file_);
        features.terminal = terminal_.create && terminal_.output && terminal_.wait_for_exit && terminal_.kill &&
                            terminal_.release;
        features.elicitation_form = elicitation_handler_ && elicitation_form_;
        features.elicitation_url = elicitation_handler_ && elicitation_url_;
        const av1::InitializeRequest request = detail::v1_initialize_request(options_.info, features);
        rpc_->send_request(
            method::initialize, [&request](JsonWriter& w) { v1codec::encode(w, request); },
            [this, done = std::move(done), may_switch](const Reply& reply) {
                auto keep_alive = shared_from_this();
                if (orphaned_) return;
                if (!reply.status) {
                    if (may_switch && reply.status.rpc_code() == error_code::unsupported_protocol_version) {
                        send_v2_initialize(done, false);  // asked for 1, the agent has only newer ones
                        return;
                    }
                    done(reply.status);  // uninitialized; initialize may be retried
                    return;
                }
                const JsonValue* version = detail::find_member(*reply.result, "protocolVersion");
                if (version != nullptr && version->IsInt64() && version->GetInt64() == kProtocolVersion && may_switch) {
                    // Asked for 1, the agent prefers 2: say it again in v2.
                    send_v2_initialize(done, false);
                    return;
                }
                if (version == nullptr || !version->IsInt64() || version->GetInt64() != 1) {
                    fail_and_close(done, Status(Errc::unsupported, "the agent answered a v1 initialize with protocolVersion " +
                                                                       (version ? detail::to_json_text(*version) : "(none)")));
                    return;
                }
                av1::InitializeResponse response;
                av2::InitializeResponse lifted;
                Status decoded = v1codec::decode(*reply.result, response);
                if (decoded) decoded = detail::lift_initialize(response, lifted);
                if (!decoded) {
                    fail_and_close(done, Status(Errc::protocol_error, "the agent's v1 initialize answer is invalid: " +
                                                                          decoded.message()));
                    return;
                }
                version_ = 1;
                agent_v1_ = std::move(response);
                agent_ = lifted;
                logger_(LogLevel::info, log_source::jsonrpc, "the agent speaks ACP v1: its traffic is lifted into v2");
                done(std::move(lifted));
            },
            request_options());
    }

    detail::RequestOptions request_options() const {
        detail::RequestOptions request_options;
        request_options.timeout = options_.request_timeout;
        return request_options;
    }

    void on_initialize_reply(const Reply& reply, const Callback<av2::InitializeResponse>& done, bool may_switch) {
        if (!reply.status) {
            if (reply.status.rpc_code() == error_code::unsupported_protocol_version) {
                std::string supported = "unknown";
                rapidjson::Document data;
                data.Parse(reply.status.rpc_data_json().c_str());
                av2::UnsupportedProtocolVersionErrorData versions;
                if (!data.HasParseError() && codec::decode(data, versions)) {
                    supported.clear();
                    for (auto version : versions.supported) {
                        supported += (supported.empty() ? "" : ", ") + std::to_string(version);
                    }
                }
                if (may_switch && supports_v1(reply.status)) {
                    send_v1_initialize(done, false);  // CLIENT-GUIDE §2.2: re-send with a version it has
                    return;
                }
                fail_and_close(done, Status(Errc::unsupported, "the agent does not speak ACP " +
                                                                   std::to_string(kProtocolVersion) +
                                                                   "; it supports: " + supported)
                                         .with_rpc_code(error_code::unsupported_protocol_version));
                return;
            }
            done(reply.status);  // the connection stays uninitialized; initialize may be retried
            return;
        }
        // Read the version first: a v1 agent answers with v1 shapes.
        const JsonValue* version = detail::find_member(*reply.result, "protocolVersion");
        if (version == nullptr || !version->IsInt64()) {
            fail_and_close(done, Status(Errc::protocol_error, "the agent's initialize answer has no protocolVersion"));
            return;
        }
        const int64_t agreed = version->GetInt64();
        if (agreed == 1 && may_switch) {
            send_v1_initialize(done, false);
            return;
        }
        if (agreed != kProtocolVersion) {
            // CLIENT-MUST-23
            fail_and_close(done, Status(Errc::unsupported, "the agent answered protocolVersion " +
                                                               std::to_string(agreed) + " to our " +
                                                               std::to_string(kProtocolVersion) +
                                                               "; libacp speaks versions 1 and 2"));
            return;
        }
        av2::InitializeResponse response;
        if (Status decoded = codec::decode(*reply.result, response); !decoded) {
            fail_and_close(done, Status(Errc::protocol_error, "the agent's initialize answer is invalid: " +
                                                                  decoded.message()));
            return;
        }
        if (response.info.name.empty()) response.info.name = "unknown";  // AGENT-MUST-02, defended
        version_ = kProtocolVersion;
        agent_ = response;
        done(std::move(response));
    }

    static bool supports_v1(const Status& status) {
        rapidjson::Document data;
        data.Parse(status.rpc_data_json().c_str());
        av2::UnsupportedProtocolVersionErrorData versions;
        if (data.HasParseError() || !codec::decode(data, versions)) return false;
        for (auto version : versions.supported) {
            if (version == 1) return true;
        }
        return false;
    }

    void fail_and_close(const Callback<av2::InitializeResponse>& done, Status why) {
        logger_(LogLevel::error, log_source::jsonrpc, why.message());
        rpc_->close();  // first: done may destroy the client
        done(why);
    }

    // --- session/update and friends --------------------------------------------------

    void on_session_update_notification(const JsonValue* params) {
        av2::UpdateSessionNotification notification;
        Status decoded = params ? codec::decode(*params, notification)
                                : Status(Errc::protocol_error, "session/update without params");
        if (!decoded) {
            logger_(LogLevel::error, log_source::jsonrpc, "invalid session/update ignored: " + decoded.message());
            return;
        }
        // Updates for a session whose session/new answer is still on its way are held
        // until it arrives (AGENT-MUST-07: they may come first).
        if (known_sessions_.count(notification.sessionId) == 0 && pending_new_sessions_ > 0) {
            held_updates_.push_back(std::move(notification));
            return;
        }
        deliver(notification);
    }

    // --- replays that end after their answer --------------------------------------------
    // Some agents send part of a replay after the session/load (or session/resume)
    // answer. The replay ends, and the host's callback runs, once the answer arrived and
    // the session has then been quiet for options_.replay_settle: each update for the
    // session restarts the wait, up to kMaxSettleFactor times replay_settle after the
    // answer. So late history is still replay (no completions, CLIENT-MUST-58) and never
    // lands behind the host's next prompt.
    static constexpr uint64_t kMaxSettleFactor = 40;
    struct SettlingReplay {
        Impl* impl = nullptr;
        std::string session_id;
        std::function<void()> finish;
        uint64_t deadline = 0;  // uv_now() past which updates no longer extend the wait
        detail::UvHandlePtr<uv_timer_t> timer;
    };
    std::unordered_map<std::string, std::unique_ptr<SettlingReplay>> settling_;

    void finish_after_settling(const std::string& session_id, std::function<void()> finish) {
        if (options_.replay_settle.count() <= 0 || connection_ended_) {
            resuming_.erase(session_id);
            return finish();
        }
        auto settling = std::make_unique<SettlingReplay>();
        settling->impl = this;
        settling->session_id = session_id;
        settling->finish = std::move(finish);
        settling->deadline = uv_now(loop_) + kMaxSettleFactor * settle_ms();
        settling->timer.reset(new uv_timer_t{});
        uv_timer_init(loop_, settling->timer.get());
        settling->timer->data = settling.get();
        uv_timer_start(settling->timer.get(), &Impl::on_replay_settled, settle_ms(), 0);
        settling_[session_id] = std::move(settling);
    }
    uint64_t settle_ms() const { return static_cast<uint64_t>(options_.replay_settle.count()); }
    static void on_replay_settled(uv_timer_t* timer) {
        auto* settling = static_cast<SettlingReplay*>(timer->data);
        Impl* impl = settling->impl;
        auto keep_alive = impl->shared_from_this();
        impl->replay_settled(std::string(settling->session_id));
    }
    void replay_settled(std::string session_id) {
        auto found = settling_.find(session_id);
        if (found == settling_.end()) return;
        std::function<void()> finish = std::move(found->second->finish);
        settling_.erase(found);
        resuming_.erase(session_id);
        if (orphaned_) return;
        // Runs from a timer, outside the connection's guard: nothing may reach libuv.
        try {
            finish();
        } catch (const std::exception& e) {
            logger_(LogLevel::error, log_source::jsonrpc, std::string("resume callback threw: ") + e.what());
        } catch (...) {
            logger_(LogLevel::error, log_source::jsonrpc, "resume callback threw a non-standard exception");
        }
    }
    void replay_traffic(const std::string& session_id) {
        auto found = settling_.find(session_id);
        if (found == settling_.end() || uv_now(loop_) >= found->second->deadline) return;
        uv_timer_start(found->second->timer.get(), &Impl::on_replay_settled, settle_ms(), 0);
    }
    // The connection ended: nothing more can arrive, every settling replay is over.
    void settle_all_replays() {
        while (!settling_.empty() && !orphaned_) replay_settled(settling_.begin()->first);
    }

    void deliver(const av2::UpdateSessionNotification& notification) {
        if (!settling_.empty()) replay_traffic(notification.sessionId);
        // After the close answer the session's model stays as it was: stragglers are
        // ignored (CLIENT-GUIDE 7.7), and said so.
        if (!closed_sessions_.empty() && closed_sessions_.count(notification.sessionId) != 0) {
            logger_(LogLevel::warning, log_source::jsonrpc,
                    "ignored a session/update (" + notification.update.tag() + ") for closed session " +
                        notification.sessionId);
            return;
        }
        // The model first, so the host's callback sees the session with this update applied.
        if (Status applied = store_.apply(notification); !applied) {
            logger_(LogLevel::warning, log_source::jsonrpc,
                    "session/update " + notification.update.tag() + " only partly applied: " + applied.message());
        }
        if (session_update_ && !orphaned_) session_update_(notification);
    }

    // After a session/new answer: hand out what was held for it; once no session/new is
    // pending, whatever is left belongs to nobody we know and goes out as it is.
    void release_held_updates(const std::string* session_id) {
        std::vector<av2::UpdateSessionNotification> keep;
        std::vector<av2::UpdateSessionNotification> held;
        held.swap(held_updates_);
        for (auto& notification : held) {
            if (orphaned_) return;
            if (session_id != nullptr && notification.sessionId == *session_id) {
                deliver(notification);
            } else if (pending_new_sessions_ > 0) {
                keep.push_back(std::move(notification));
            } else {
                // No session/new can claim it any more: its session failed to be created
                // (CLIENT-GUIDE §4.3: drop them). Said, not silently.
                logger_(LogLevel::warning, log_source::jsonrpc,
                        "dropped a session/update (" + notification.update.tag() + ") for session " +
                            notification.sessionId + ", which no session/new created");
            }
        }
        keep.insert(keep.end(), std::make_move_iterator(held_updates_.begin()),
                    std::make_move_iterator(held_updates_.end()));
        held_updates_.swap(keep);
    }

    // Lists a response carries replace the session's (CLIENT-MUST-56).
    void apply_session_lists(const std::string& session_id,
                             const std::optional<std::vector<av2::SessionConfigOption>>& options,
                             const std::optional<std::vector<av2::AvailableCommand>>& commands) {
        if (options) store_.set_config_options(session_id, *options);
        if (commands) store_.set_available_commands(session_id, *commands);
    }

    // CLIENT-MUST-36: an entity may be cancelled only while its latest state says so.
    bool cancellable(const std::string& session_id, ItemKind kind, const std::string& id) const {
        if (closed_sessions_.count(session_id) != 0) return false;
        const SessionState* state = store_.find(session_id);
        const SessionItem* item = state ? state->item(kind, id) : nullptr;
        if (item == nullptr) return false;
        if (const auto* tool = item->tool_call()) return tool->capabilities && tool->capabilities->cancel.has_value();
        if (const auto* terminal = item->terminal()) {
            return terminal->capabilities && terminal->capabilities->cancel.has_value();
        }
        return false;
    }

    void on_permission(const JsonValue* params, Responder responder) {
        av2::RequestPermissionRequest request;
        Status decoded = params ? codec::decode(*params, request) : Status(Errc::protocol_error, "no params");
        if (!decoded) {
            responder.fail(detail::rpc_code::invalid_params, "Invalid params: " + decoded.message());
            return;
        }
        auto state = std::make_shared<PermissionResponder::State>(responder);
        for (const auto& option : request.options) state->offered.insert(option.optionId);
        // The tool call a permission is about counts as an update of that tool call.
        if (request.subject.has_value() && request.subject->tool_call() != nullptr) {
            // CLIENT-MUST-70: applied before the host sees the request.
            store_.apply_permission_subject(request.sessionId, request.subject->tool_call()->toolCall);
        }
        std::weak_ptr<PermissionResponder::State> weak = state;
        // CLIENT-MUST-68: the agent withdrew it: answer "cancelled" (once).
        responder.on_cancel([weak] {
            if (auto s = weak.lock()) {
                if (s->on_withdrawn) s->on_withdrawn();
                if (!s->responder.answered()) s->send_cancelled();
            }
        });
        if (!permission_handler_ || orphaned_) return;  // the state dies here: answered "cancelled"
        permission_handler_(request, PermissionResponder(std::move(state)));
    }

    void on_elicitation_request(const JsonValue* params, Responder responder) {
        av2::CreateElicitationRequest request;
        Status decoded = params ? codec::decode(*params, request) : Status(Errc::protocol_error, "no params");
        if (!decoded) {
            responder.fail(detail::rpc_code::invalid_params, "Invalid params: " + decoded.message());
            return;
        }
        const auto kind = request.mode.kind();
        const bool advertised = elicitation_handler_ &&
                                ((kind == av2::CreateElicitationRequestMode::Kind::form && elicitation_form_) ||
                                 (kind == av2::CreateElicitationRequestMode::Kind::url && elicitation_url_));
        if (!advertised) {
            // CLIENT-MUST-72
            responder.fail(detail::rpc_code::invalid_params,
                           "Invalid params: elicitation mode '" + request.mode.tag() + "' was not advertised");
            return;
        }
        if (const auto* url = request.mode.url()) open_url_elicitations_.insert(url->elicitationId);
        auto state = std::make_shared<ElicitationResponder::State>(responder);
        std::weak_ptr<ElicitationResponder::State> weak = state;
        // The agent withdrew it: tell the host, answer "cancel" (CLIENT-GUIDE §5.3).
        responder.on_cancel([weak] {
            if (auto s = weak.lock()) {
                if (s->on_withdrawn) s->on_withdrawn();
                if (!s->responder.answered()) s->send(av2::CreateElicitationResponseAction::make_cancel());
            }
        });
        if (orphaned_) return;  // the responder dies here: answered "cancel"
        elicitation_handler_(request, ElicitationResponder(std::move(state)));
    }

    void on_elicitation_complete_notification(const JsonValue* params) {
        av2::CompleteElicitationNotification notification;
        if (!params || !codec::decode(*params, notification)) {
            logger_(LogLevel::warning, log_source::jsonrpc, "invalid elicitation/complete ignored");
            return;
        }
        // CLIENT-MUST-78: only ids we were given, once.
        if (open_url_elicitations_.erase(notification.elicitationId) == 0) {
            logger_(LogLevel::debug, log_source::jsonrpc,
                    "elicitation/complete for unknown id " + notification.elicitationId + " ignored");
            return;
        }
        if (elicitation_complete_ && !orphaned_) elicitation_complete_(notification);
    }

    // --- ACP v1 ------------------------------------------------------------------------

    // Sends a v1 request; on success done gets the decoded answer and the raw result
    // (valid only during the call) for what is lifted from it.
    template <class V1Response, class V1Request>
    int64_t call_v1(std::string_view name, const V1Request& request,
                    std::function<void(Result<V1Response>, const JsonValue*)> done,
                    detail::RequestOptions options) {
        sent_other_request_ = true;
        std::string method_name(name);
        return rpc_->send_request(
            name, [&request](JsonWriter& w) { v1codec::encode(w, request); },
            [this, method_name, done = std::move(done)](const Reply& reply) {
                auto keep_alive = shared_from_this();
                if (orphaned_) return;
                if (!reply.status) return done(reply.status, nullptr);
                V1Response response;
                if (Status decoded = v1codec::decode(*reply.result, response); !decoded) {
                    logger_(LogLevel::error, log_source::jsonrpc,
                            "the agent's answer to " + method_name + " is invalid: " + decoded.message());
                    return done(Status(Errc::protocol_error,
                                       "the agent's answer to " + method_name + " is invalid: " + decoded.message()),
                                nullptr);
                }
                done(std::move(response), reply.result);
            },
            options);
    }

    void on_v1_session_update(const JsonValue* params) {
        av1::SessionNotification notification;
        Status decoded = params ? Status() : Status(Errc::protocol_error, "session/update without params");
        if (decoded && detail::V1Lifter::is_v1_update_kind(update_kind(*params))) decoded = v1codec::decode(*params, notification);
        std::vector<av2::UpdateSessionNotification> lifted;
        if (decoded) decoded = lifter_.lift_update(*params, lifted);
        if (!decoded) {
            logger_(LogLevel::error, log_source::jsonrpc, "invalid v1 session/update ignored: " + decoded.message());
            return;
        }
        for (auto& update : lifted) {
            if (orphaned_) return;
            auto starting = prompt_starting_.find(update.sessionId);
            if (starting != prompt_starting_.end()) {
                // The synthesized start of a prompt goes first.
                starting->second.push_back(std::move(update));
            } else if (known_sessions_.count(update.sessionId) == 0 && pending_new_sessions_ > 0) {
                held_updates_.push_back(std::move(update));
            } else {
                deliver(update);
            }
        }
    }

    // Delivers a v1 prompt's synthesized start (running, the user message) and whatever
    // the agent sent for the session meanwhile; nothing when already done.
    void flush_prompt_start(const std::string& session_id) {
        auto starting = prompt_starting_.find(session_id);
        if (starting == prompt_starting_.end()) return;
        std::vector<av2::UpdateSessionNotification> updates = std::move(starting->second);
        prompt_starting_.erase(starting);
        for (const auto& update : updates) {
            if (orphaned_) return;
            deliver(update);
        }
    }

    void deliver_state(const std::string& session_id, av2::StateUpdate state) {
        av2::UpdateSessionNotification notification;
        notification.sessionId = session_id;
        notification.update = av2::SessionUpdate::make_state_update(std::move(state));
        deliver(notification);
    }

    void on_v1_permission(const JsonValue* params, Responder responder) {
        av2::RequestPermissionRequest request;
        Status decoded = params ? detail::lift_permission(*params, request) : Status(Errc::protocol_error, "no params");
        if (!decoded) {
            responder.fail(detail::rpc_code::invalid_params, "Invalid params: " + decoded.message());
            return;
        }
        // The turn's synthesized start comes before anything the turn does.
        flush_prompt_start(request.sessionId);
        if (orphaned_) return;
        auto state = std::make_shared<PermissionResponder::State>(responder);
        for (const auto& option : request.options) state->offered.insert(option.optionId);
        // CLIENT-MUST-70: the tool call is applied before the host sees the request.
        store_.apply_permission_subject(request.sessionId, request.subject->tool_call()->toolCall);
        std::weak_ptr<PermissionResponder::State> weak = state;
        responder.on_cancel([weak] {
            if (auto s = weak.lock()) {
                if (s->on_withdrawn) s->on_withdrawn();
                if (!s->responder.answered()) s->send_cancelled();
            }
        });
        // v1: session/cancel obliges the client to answer them all "cancelled" itself.
        auto& pending = v1_permissions_[request.sessionId];
        pending.erase(std::remove_if(pending.begin(), pending.end(),
                                     [](const auto& w) { return w.expired(); }),
                      pending.end());
        pending.push_back(weak);
        if (!permission_handler_ || orphaned_) return;  // the state dies here: answered "cancelled"
        permission_handler_(request, PermissionResponder(std::move(state)));
    }

    void cancel_v1_permissions(const std::string& session_id) {
        auto found = v1_permissions_.find(session_id);
        if (found == v1_permissions_.end()) return;
        auto pending = std::move(found->second);
        v1_permissions_.erase(found);
        for (const auto& weak : pending) {
            if (auto state = weak.lock()) {
                if (!state->responder.answered()) state->send_cancelled();
            }
        }
    }

    // watch installs what the answer shows the model (the terminal methods).
    template <class Request>
    void serve_v1(std::string_view name, std::function<void(const Request&, ClientMethodResponder)> handler,
                  std::function<void(ClientMethodResponder::State&, const Request&)> watch = nullptr) {
        rpc_->on_request(std::string(name), [this, handler = std::move(handler),
                                             watch = std::move(watch)](const JsonValue* params, Responder r) {
            auto keep_alive = shared_from_this();
            // v2 has no client fs/terminal methods; a v1 agent calls only advertised ones,
            // and a handler that was unset since is not advertised either.
            if (version_ != 1 || !handler) {
                r.fail(detail::rpc_code::method_not_found, "Method not found");
                return;
            }
            Request request;
            Status decoded = params ? v1codec::decode(*params, request) : Status(Errc::protocol_error, "no params");
            if (!decoded) {
                r.fail(detail::rpc_code::invalid_params, "Invalid params: " + decoded.message());
                return;
            }
            flush_prompt_start(request.sessionId);  // the turn's start first
            auto state = std::make_shared<ClientMethodResponder::State>(r);
            if (watch) watch(*state, request);
            std::weak_ptr<ClientMethodResponder::State> weak = state;
            r.on_cancel([weak] {
                if (auto s = weak.lock()) {
                    if (s->on_withdrawn) s->on_withdrawn();
                }
            });
            if (orphaned_) return;
            handler(request, ClientMethodResponder(std::move(state)));
        });
    }

    // On the next loop turn: the host's respond() call must not run its own callbacks.
    void show_v1_terminal(const std::string& session_id, av2::TerminalUpdate update) {
        av2::UpdateSessionNotification notification;
        notification.sessionId = session_id;
        notification.update = av2::SessionUpdate::make_terminal_update(std::move(update));
        deferred_.post([this, notification = std::move(notification)] {
            auto keep_alive = shared_from_this();
            if (!orphaned_) deliver(notification);
        });
    }
    static av2::TerminalExitStatus lift_exit(const Nullable<int64_t>& code, const Nullable<std::string>& signal) {
        av2::TerminalExitStatus status;
        if (code.has_value()) status.exitCode = *code;
        if (signal.has_value()) status.signal = *signal;
        return status;
    }

    const av1::SessionCapabilities* v1_session_capabilities() const {
        if (!agent_v1_ || !agent_v1_->agentCapabilities || !agent_v1_->agentCapabilities->sessionCapabilities) {
            return nullptr;
        }
        return &*agent_v1_->agentCapabilities->sessionCapabilities;
    }

    // The v1 forms of the session calls (CLIENT-GUIDE §10, docs/v1.md).

    void v1_login(const std::string& method_id, Callback<av2::LoginAuthResponse> done) {
        av1::AuthenticateRequest request;
        request.methodId = method_id;
        call_v1<av1::AuthenticateResponse>(
            v1method::authenticate, request,
            [done = std::move(done)](Result<av1::AuthenticateResponse> result, const JsonValue*) {
                if (!result) return done(result.status());
                done(av2::LoginAuthResponse{});
            },
            request_options());
    }

    void v1_logout(Callback<av2::LogoutAuthResponse> done) {
        const auto& capabilities = agent_v1_->agentCapabilities;
        if (!capabilities || !capabilities->auth || !capabilities->auth->logout.has_value()) {
            return refuse(done, Status(Errc::unsupported, "logout: the v1 agent does not advertise auth.logout"));
        }
        call_v1<av1::LogoutResponse>(
            v1method::logout, av1::LogoutRequest{},
            [done = std::move(done)](Result<av1::LogoutResponse> result, const JsonValue*) {
                if (!result) return done(result.status());
                done(av2::LogoutAuthResponse{});
            },
            request_options());
    }

    void v1_new_session(const av2::NewSessionRequest& request, Callback<av2::NewSessionResponse> done) {
        av1::NewSessionRequest lowered;
        lowered.cwd = request.cwd;
        lowered.additionalDirectories = request.additionalDirectories;
        if (Status s = detail::lower_mcp_servers(request.mcpServers, lowered.mcpServers); !s) return refuse(done, s);
        ++pending_new_sessions_;
        call_v1<av1::NewSessionResponse>(
            v1method::session_new, lowered,
            [this, done = std::move(done)](Result<av1::NewSessionResponse> result, const JsonValue* raw) {
                --pending_new_sessions_;
                if (!result) {
                    release_held_updates(nullptr);
                    return done(result.status());
                }
                av2::NewSessionResponse response;
                response.sessionId = result->sessionId;
                response.configOptions = lifter_.set_lists(response.sessionId, *raw);
                known_sessions_.insert(response.sessionId);
                release_held_updates(&response.sessionId);
                apply_session_lists(response.sessionId, response.configOptions, response.availableCommands);
                done(std::move(response));
            },
            request_options());
    }

    // replayFrom {start} → session/load (needs loadSession); without → session/resume.
    void v1_resume_session(const av2::ResumeSessionRequest& request, Callback<av2::ResumeSessionResponse> done) {
        const bool replay = request.replayFrom.has_value();
        const av1::SessionCapabilities* capabilities = v1_session_capabilities();
        if (replay) {
            if (request.replayFrom->kind() != av2::ReplayFrom::Kind::start) {
                return refuse(done, Status(Errc::invalid_argument, "CLIENT-MUST-47: replayFrom must be {type: start}"));
            }
            if (!agent_v1_->agentCapabilities || !agent_v1_->agentCapabilities->loadSession.value_or(false)) {
                return refuse(done, Status(Errc::unsupported,
                                           "resume with replay: the v1 agent does not advertise loadSession"));
            }
        } else if (capabilities == nullptr || !capabilities->resume.has_value()) {
            return refuse(done, Status(Errc::unsupported,
                                       "resume: the v1 agent does not advertise sessionCapabilities.resume"));
        }
        std::vector<av1::McpServer> servers;
        if (Status s = detail::lower_mcp_servers(request.mcpServers, servers); !s) return refuse(done, s);
        const std::string session_id = request.sessionId;
        if (Status s = check_not_resuming(session_id); !s) return refuse(done, s);
        const SessionMembership before = admit_resumed(session_id);
        detail::V1Lifter::IdState ids;
        if (replay) {
            store_.begin_replay(session_id);
            ids = lifter_.restart(session_id);
        } else {
            store_.begin_resume(session_id);
        }
        auto finish = [this, session_id, before, replay, ids, done = std::move(done)](Status status,
                                                                                    const JsonValue* raw) {
            if (!status) {
                restore_membership(session_id, before);
                store_.abort_replay(session_id);
                // The transcript stays, so its synthetic ids go on where they stood.
                if (replay) lifter_.restore(session_id, ids);
                return done(status);
            }
            av2::ResumeSessionResponse response;
            response.configOptions = lifter_.set_lists(session_id, *raw);
            apply_session_lists(session_id, response.configOptions, response.availableCommands);
            finish_after_settling(session_id, [this, session_id, done, response = std::move(response)]() mutable {
                store_.end_replay(session_id);
                done(std::move(response));
            });
        };
        if (replay) {
            av1::LoadSessionRequest load;
            load.sessionId = session_id;
            load.cwd = request.cwd;
            load.additionalDirectories = request.additionalDirectories;
            load.mcpServers = std::move(servers);
            call_v1<av1::LoadSessionResponse>(
                v1method::session_load, load,
                [finish](Result<av1::LoadSessionResponse> result, const JsonValue* raw) {
                    finish(result ? Status() : result.status(), raw);
                },
                request_options());
        } else {
            av1::ResumeSessionRequest resume;
            resume.sessionId = session_id;
            resume.cwd = request.cwd;
            resume.additionalDirectories = request.additionalDirectories;
            if (request.mcpServers) resume.mcpServers = std::move(servers);
            call_v1<av1::ResumeSessionResponse>(
                v1method::session_resume, resume,
                [finish](Result<av1::ResumeSessionResponse> result, const JsonValue* raw) {
                    finish(result ? Status() : result.status(), raw);
                },
                request_options());
        }
    }

    void v1_list_sessions(const av2::ListSessionsRequest& request, Callback<av2::ListSessionsResponse> done) {
        const av1::SessionCapabilities* capabilities = v1_session_capabilities();
        if (capabilities == nullptr || !capabilities->list.has_value()) {
            return refuse(done, Status(Errc::unsupported, "session/list: the v1 agent does not advertise it"));
        }
        av1::ListSessionsRequest lowered;
        if (request.cwd.has_value()) lowered.cwd = *request.cwd;
        if (request.cursor.has_value()) lowered.cursor = *request.cursor;
        call_v1<av1::ListSessionsResponse>(
            v1method::session_list, lowered,
            [this, done = std::move(done)](Result<av1::ListSessionsResponse> result, const JsonValue* raw) {
                if (!result) return done(result.status());
                // The same shape in both versions; v2's stricter checks (absolute paths) apply.
                av2::ListSessionsResponse response;
                if (Status decoded = codec::decode(*raw, response); !decoded) {
                    return done(Status(Errc::protocol_error, "session/list answer: " + decoded.message()));
                }
                for (const auto& info : response.sessions) {
                    if (store_.find(info.sessionId)) store_.set_session_info(info);
                }
                done(std::move(response));
            },
            request_options());
    }

    template <class V1Request, class V1Response, class V2Response>
    void v1_session_end(std::string_view name, const std::string& session_id, bool advertised,
                        Callback<V2Response> done) {
        if (!advertised) {
            return refuse(done, Status(Errc::unsupported, std::string(name) + ": the v1 agent does not advertise it"));
        }
        V1Request request;
        request.sessionId = session_id;
        call_v1<V1Response>(
            name, request,
            [this, session_id, done = std::move(done)](Result<V1Response> result, const JsonValue*) {
                // CLIENT-MUST-46: an unknown session counts as closed.
                if (!result && !(result.status().code() == Errc::rpc_error &&
                                 result.status().rpc_code() == error_code::resource_not_found)) {
                    return done(result.status());
                }
                known_sessions_.erase(session_id);
                closed_sessions_.insert(session_id);
                done(V2Response{});
            },
            request_options());
    }

    RequestHandle v1_prompt(const av2::PromptRequest& request, Callback<av2::PromptResponse> done) {
        av1::PromptRequest lowered;
        lowered.sessionId = request.sessionId;
        if (Status s = detail::lower_prompt(request.prompt, lowered.prompt); !s) {
            refuse(done, s);
            return {};
        }
        const std::string session_id = request.sessionId;
        // v1 has no turn states and rarely echoes the prompt: the turn starts here
        // (running, then the user message), delivered on the next loop turn; anything
        // the agent sends for the session before that waits behind it.
        auto& start = prompt_starting_[session_id];
        av2::UpdateSessionNotification running;
        running.sessionId = session_id;
        running.update = av2::SessionUpdate::make_state_update(av2::StateUpdate::make_running({}));
        start.push_back(std::move(running));
        av2::UpdateSessionNotification user;
        user.sessionId = session_id;
        user.update = lifter_.user_message(session_id, request.prompt);
        const std::string message_id = user.update.user_message()->messageId;
        start.push_back(std::move(user));
        deferred_.post([this, session_id] {
            auto keep_alive = shared_from_this();
            if (!orphaned_) flush_prompt_start(session_id);
        });
        // The answer ends the turn, however long it takes: no request timeout.
        const int64_t id = call_v1<av1::PromptResponse>(
            v1method::session_prompt, lowered,
            [this, session_id, message_id, done = std::move(done)](Result<av1::PromptResponse> result,
                                                                   const JsonValue*) {
                flush_prompt_start(session_id);
                if (orphaned_) return;
                // idle with the stop reason, or with "error" when the prompt failed (§10)
                rapidjson::Document idle(rapidjson::kObjectType);
                auto& allocator = idle.GetAllocator();
                idle.AddMember("state", "idle", allocator);
                if (result) {
                    idle.AddMember("stopReason", JsonValue(result->stopReason.value.c_str(), allocator), allocator);
                } else {
                    JsonValue error(rapidjson::kObjectType);
                    const Status& why = result.status();
                    error.AddMember("code", why.code() == Errc::rpc_error ? why.rpc_code() : error_code::internal_error,
                                    allocator);
                    error.AddMember("message", JsonValue(why.message().c_str(), allocator), allocator);
                    idle.AddMember("stopReason", "error", allocator);
                    idle.AddMember("error", error, allocator);
                }
                av2::StateUpdate state;
                if (Status decoded = codec::decode(idle, state); decoded) deliver_state(session_id, std::move(state));
                if (orphaned_) return;
                if (!result) return done(result.status());
                av2::PromptResponse response;
                response.messageId = message_id;
                done(std::move(response));
            },
            detail::RequestOptions{});
        return RequestHandle{id};
    }

    void v1_cancel(const std::string& session_id) {
        rpc_->send_notification(v1method::session_cancel, [&session_id](JsonWriter& w) {
            av1::CancelNotification notification;
            notification.sessionId = session_id;
            v1codec::encode(w, notification);
        });
        store_.mark_cancelled(session_id);
        // v1: the client answers every pending permission request of the session
        // "cancelled" itself (CLIENT-GUIDE §10).
        cancel_v1_permissions(session_id);
    }

    // The synthesized mode option goes to session/set_mode, the agent's own options to
    // session/set_config_option; both answers become the session's full option list.
    void v1_set_config_option(const av2::SetSessionConfigOptionRequest& request,
                              Callback<av2::SetSessionConfigOptionResponse> done) {
        const std::string session_id = request.sessionId;
        auto finish = [this, session_id](std::optional<std::vector<av2::SessionConfigOption>> options,
                                         const Callback<av2::SetSessionConfigOptionResponse>& reply) {
            av2::SetSessionConfigOptionResponse response;
            if (options) {
                store_.set_config_options(session_id, *options);
                response.configOptions = std::move(*options);
            }
            reply(std::move(response));
        };
        if (request.configId == detail::kV1ModeOptionId && lifter_.has_mode_option(session_id) && request.type.id()) {
            av1::SetSessionModeRequest mode;
            mode.sessionId = session_id;
            mode.modeId = request.type.id()->value;
            const std::string mode_id = mode.modeId;
            call_v1<av1::SetSessionModeResponse>(
                v1method::session_set_mode, mode,
                [this, session_id, mode_id, finish, done = std::move(done)](Result<av1::SetSessionModeResponse> result,
                                                                            const JsonValue*) {
                    if (!result) return done(result.status());
                    finish(lifter_.set_mode(session_id, mode_id), done);
                },
                request_options());
            return;
        }
        av1::SetSessionConfigOptionRequest lowered;
        lowered.sessionId = session_id;
        lowered.configId = request.configId;
        rapidjson::StringBuffer value;
        JsonWriter writer(value);
        if (const auto* flag = request.type.boolean()) {
            lowered.type = "boolean";
            writer.Bool(flag->value);
        } else if (const auto* id = request.type.id()) {
            detail::write_string(writer, id->value);  // v1: no type means a value id
        } else {
            return refuse(done, Status(Errc::unsupported, "v1 config options take ids or booleans, not '" +
                                                              request.type.tag() + "'"));
        }
        lowered.value = RawJson{std::string(value.GetString(), value.GetSize())};
        call_v1<av1::SetSessionConfigOptionResponse>(
            v1method::session_set_config_option, lowered,
            [this, session_id, finish, done = std::move(done)](Result<av1::SetSessionConfigOptionResponse> result,
                                                               const JsonValue* raw) {
                if (!result) return done(result.status());
                finish(lifter_.set_lists(session_id, *raw), done);
            },
            request_options());
    }

    // --- state -----------------------------------------------------------------------

    uv_loop_t* loop_;
    ClientOptions options_;
    detail::Logger logger_;
    detail::DeferredQueue deferred_;
    std::unique_ptr<detail::Connection> rpc_;
    std::optional<av2::InitializeResponse> agent_;
    bool sent_other_request_ = false;
    bool orphaned_ = false;  // the Client is gone; no more host callbacks

    // Sessions this client created or resumed (their updates flow straight through).
    std::set<std::string> known_sessions_;
    std::set<std::string> closed_sessions_;  // until resumed again
    bool connection_ended_ = false;
    // Sessions with a resume (or v1 load) in flight or settling: one at a time each.
    std::set<std::string> resuming_;

    // Whether a session was known or closed before a resume, so a refused resume can
    // leave things as they were.
    struct SessionMembership {
        bool known = false;
        bool closed = false;
    };
    SessionMembership admit_resumed(const std::string& session_id) {
        SessionMembership before{known_sessions_.count(session_id) != 0, closed_sessions_.count(session_id) != 0};
        known_sessions_.insert(session_id);
        closed_sessions_.erase(session_id);
        resuming_.insert(session_id);
        return before;
    }
    void restore_membership(const std::string& session_id, SessionMembership before) {
        if (!before.known) known_sessions_.erase(session_id);
        if (before.closed) closed_sessions_.insert(session_id);
        resuming_.erase(session_id);
    }
    // Two resumes of one session at once would interleave their replays.
    Status check_not_resuming(const std::string& session_id) const {
        if (resuming_.count(session_id) == 0) return Status();
        return Status(Errc::invalid_argument, "a resume of session " + session_id + " is already under way");
    }
    SessionStore store_;
    int pending_new_sessions_ = 0;
    std::vector<av2::UpdateSessionNotification> held_updates_;
    std::set<std::string> open_url_elicitations_;

    std::function<void(const av2::UpdateSessionNotification&)> session_update_;
    std::function<void(const av2::RequestPermissionRequest&, PermissionResponder)> permission_handler_;
    std::function<void(const av2::CreateElicitationRequest&, ElicitationResponder)> elicitation_handler_;
    bool elicitation_form_ = false;
    bool elicitation_url_ = false;
    std::function<void(const av2::CompleteElicitationNotification&)> elicitation_complete_;
    std::function<void(std::string_view, const RawJson&)> unknown_notification_;
    std::function<void(const Status&)> closed_handler_;

    int version_ = 0;  // negotiated; 0 until initialize succeeded
    std::optional<av1::InitializeResponse> agent_v1_;
    detail::V1Lifter lifter_;
    std::map<std::string, std::vector<av2::UpdateSessionNotification>> prompt_starting_;
    std::map<std::string, std::vector<std::weak_ptr<PermissionResponder::State>>> v1_permissions_;
    std::function<void(const av1::ReadTextFileRequest&, ClientMethodResponder)> read_text_file_;
    std::function<void(const av1::WriteTextFileRequest&, ClientMethodResponder)> write_text_file_;
    TerminalHandlers terminal_;
};

}  // namespace acp

namespace acp {

Result<std::unique_ptr<Client>> Client::spawn(uv_loop_t* loop, const SpawnOptions& agent, ClientOptions options) {
    auto transport = detail::ProcessTransport::spawn(loop, agent, detail::Logger(options.log));
    if (!transport) return transport.status();
    return std::unique_ptr<Client>(
        new Client(std::make_shared<Impl>(loop, std::move(transport.value()), std::move(options))));
}

Result<std::unique_ptr<Client>> Client::adopt(uv_loop_t* loop, const AdoptedFds& fds, ClientOptions options) {
    auto transport = detail::FdTransport::adopt(loop, fds, detail::Logger(options.log));
    if (!transport) return transport.status();
    return std::unique_ptr<Client>(
        new Client(std::make_shared<Impl>(loop, std::move(transport.value()), std::move(options))));
}

Client::Client(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() { impl_->orphaned_ = true; }

void Client::on_session_update(std::function<void(const av2::UpdateSessionNotification&)> handler) {
    impl_->session_update_ = std::move(handler);
}
void Client::on_permission_request(
    std::function<void(const av2::RequestPermissionRequest&, PermissionResponder)> handler) {
    impl_->permission_handler_ = std::move(handler);
}
void Client::on_elicitation(bool form, bool url,
                            std::function<void(const av2::CreateElicitationRequest&, ElicitationResponder)> handler) {
    impl_->elicitation_form_ = form;
    impl_->elicitation_url_ = url;
    impl_->elicitation_handler_ = std::move(handler);
}
void Client::on_elicitation_complete(std::function<void(const av2::CompleteElicitationNotification&)> handler) {
    impl_->elicitation_complete_ = std::move(handler);
}
void Client::on_ext_request(std::string name, std::function<void(const RawJson&, ExtResponder)> handler) {
    if (!detail::v2::check_extension_method(name)) {
        impl_->logger_(LogLevel::error, log_source::jsonrpc, "extension handler for '" + name + "' ignored: no '_'");
        return;
    }
    impl_->rpc_->on_request(name, [handler = std::move(handler)](const JsonValue* params, Responder r) {
        handler(raw_of(params), ExtResponder(std::make_shared<ExtResponder::State>(std::move(r))));
    });
}
void Client::on_ext_notification(std::string name, std::function<void(const RawJson&)> handler) {
    if (!detail::v2::check_extension_method(name)) {
        impl_->logger_(LogLevel::error, log_source::jsonrpc, "extension handler for '" + name + "' ignored: no '_'");
        return;
    }
    impl_->rpc_->on_notification(name, [handler = std::move(handler)](const JsonValue* params) {
        handler(raw_of(params));
    });
}
void Client::on_unknown_notification(std::function<void(std::string_view, const RawJson&)> handler) {
    impl_->unknown_notification_ = std::move(handler);
}
void Client::on_closed(std::function<void(const Status&)> handler) { impl_->closed_handler_ = std::move(handler); }
void Client::on_read_text_file(std::function<void(const av1::ReadTextFileRequest&, ClientMethodResponder)> handler) {
    impl_->read_text_file_ = handler;
    impl_->serve_v1(v1method::fs_read_text_file, std::move(handler));
}
void Client::on_write_text_file(std::function<void(const av1::WriteTextFileRequest&, ClientMethodResponder)> handler) {
    impl_->write_text_file_ = handler;
    impl_->serve_v1(v1method::fs_write_text_file, std::move(handler));
}
void Client::on_terminal(TerminalHandlers handlers) {
    impl_->terminal_ = handlers;
    // The host's terminals appear in the model as v2 display terminals (CLIENT-GUIDE 10),
    // built from the host's own answers: created, output snapshots, exit.
    std::weak_ptr<Impl> weak = impl_;
    impl_->serve_v1<av1::CreateTerminalRequest>(
        v1method::terminal_create, std::move(handlers.create),
        [weak](ClientMethodResponder::State& state, const av1::CreateTerminalRequest& request) {
            std::string command = request.command;
            if (request.args) {
                for (const auto& arg : *request.args) command += " " + arg;
            }
            state.terminal_created = [weak, session = request.sessionId, command, cwd = request.cwd](
                                         const av1::CreateTerminalResponse& response) {
                av2::TerminalUpdate update;
                update.terminalId = response.terminalId;
                update.command = command;
                if (cwd.has_value()) update.cwd = *cwd;
                if (auto impl = weak.lock()) impl->show_v1_terminal(session, std::move(update));
            };
        });
    impl_->serve_v1<av1::TerminalOutputRequest>(
        v1method::terminal_output, std::move(handlers.output),
        [weak](ClientMethodResponder::State& state, const av1::TerminalOutputRequest& request) {
            state.terminal_output = [weak, session = request.sessionId, id = request.terminalId](
                                        const av1::TerminalOutputResponse& response) {
                av2::TerminalUpdate update;
                update.terminalId = id;
                av2::TerminalOutput output;
                output.data = detail::base64_encode(response.output);
                update.output = std::move(output);
                if (response.exitStatus.has_value()) {
                    update.exitStatus = Impl::lift_exit(response.exitStatus->exitCode, response.exitStatus->signal);
                }
                if (auto impl = weak.lock()) impl->show_v1_terminal(session, std::move(update));
            };
        });
    impl_->serve_v1<av1::WaitForTerminalExitRequest>(
        v1method::terminal_wait_for_exit, std::move(handlers.wait_for_exit),
        [weak](ClientMethodResponder::State& state, const av1::WaitForTerminalExitRequest& request) {
            state.terminal_exited = [weak, session = request.sessionId, id = request.terminalId](
                                        const av1::WaitForTerminalExitResponse& response) {
                av2::TerminalUpdate update;
                update.terminalId = id;
                update.exitStatus = Impl::lift_exit(response.exitCode, response.signal);
                if (auto impl = weak.lock()) impl->show_v1_terminal(session, std::move(update));
            };
        });
    impl_->serve_v1(v1method::terminal_kill, std::move(handlers.kill));
    impl_->serve_v1(v1method::terminal_release, std::move(handlers.release));
}
void Client::set_traffic_observer(TrafficObserver observer, bool redact_secrets) {
    impl_->rpc_->set_traffic_observer(std::move(observer), redact_secrets);
}

void Client::initialize(Callback<av2::InitializeResponse> done) { impl_->initialize(std::move(done)); }
const av2::InitializeResponse* Client::agent() const { return impl_->agent_ ? &*impl_->agent_ : nullptr; }
int Client::negotiated_version() const { return impl_->agent_ ? impl_->version_ : 0; }
const av1::InitializeResponse* Client::agent_v1() const { return impl_->agent_v1_ ? &*impl_->agent_v1_ : nullptr; }

void Client::login(const std::string& method_id, Callback<av2::LoginAuthResponse> done) {
    if (!impl_->ready(done, method::auth_login)) return;
    if (Status s = detail::v2::check_login(method_id, *impl_->agent_); !s) return impl_->refuse(done, s);
    if (impl_->version_ == 1) return impl_->v1_login(method_id, std::move(done));
    av2::LoginAuthRequest request;
    request.methodId = method_id;
    impl_->call(method::auth_login, request, std::move(done));
}

void Client::logout(Callback<av2::LogoutAuthResponse> done) {
    if (!impl_->ready(done, method::auth_logout)) return;
    if (impl_->version_ == 1) return impl_->v1_logout(std::move(done));
    if (Status s = detail::v2::check_logout(*impl_->agent_); !s) return impl_->refuse(done, s);
    impl_->call(method::auth_logout, av2::LogoutAuthRequest{}, std::move(done));
}

void Client::new_session(av2::NewSessionRequest request, Callback<av2::NewSessionResponse> done) {
    if (!impl_->ready(done, method::session_new)) return;
    if (Status s = detail::v2::check_new_session(request, *impl_->agent_); !s) return impl_->refuse(done, s);
    if (impl_->version_ == 1) return impl_->v1_new_session(request, std::move(done));
    ++impl_->pending_new_sessions_;
    Impl* impl = impl_.get();
    impl_->call<av2::NewSessionResponse>(
        method::session_new, request,
        [impl, done = std::move(done)](Result<av2::NewSessionResponse> result) {
            --impl->pending_new_sessions_;
            if (result) {
                impl->known_sessions_.insert(result->sessionId);
                // Updates that came before this answer go first (CLIENT-MUST-59: the
                // answer never overrides a state they reported).
                impl->release_held_updates(&result->sessionId);
                impl->apply_session_lists(result->sessionId, result->configOptions, result->availableCommands);
            } else {
                impl->release_held_updates(nullptr);
            }
            done(std::move(result));
        });
}

void Client::resume_session(av2::ResumeSessionRequest request, Callback<av2::ResumeSessionResponse> done) {
    if (!impl_->ready(done, method::session_resume)) return;
    if (impl_->version_ == 1) return impl_->v1_resume_session(request, std::move(done));
    if (Status s = detail::v2::check_resume_session(request, *impl_->agent_); !s) return impl_->refuse(done, s);
    const std::string session_id = request.sessionId;
    if (Status s = impl_->check_not_resuming(session_id); !s) return impl_->refuse(done, s);
    // The replay names this session before the answer does.
    const Impl::SessionMembership before = impl_->admit_resumed(session_id);
    // A full replay rebuilds the session from nothing, so a client that already held it
    // ends up with exactly what a fresh client would (docs/session-model.md). A replay
    // from a later cursor continues what the client holds.
    if (request.replayFrom.has_value() && request.replayFrom->kind() == av2::ReplayFrom::Kind::start) {
        impl_->store_.begin_replay(session_id);
    } else {
        impl_->store_.begin_resume(session_id);
    }
    Impl* impl = impl_.get();
    impl_->call<av2::ResumeSessionResponse>(
        method::session_resume, request,
        [impl, session_id, before, done = std::move(done)](Result<av2::ResumeSessionResponse> result) {
            if (!result) {
                impl->restore_membership(session_id, before);
                impl->store_.abort_replay(session_id);
                return done(std::move(result));
            }
            impl->apply_session_lists(session_id, result->configOptions, result->availableCommands);
            impl->finish_after_settling(session_id, [impl, session_id, done, result = std::move(result)]() mutable {
                impl->store_.end_replay(session_id);
                done(std::move(result));
            });
        });
}

void Client::list_sessions(av2::ListSessionsRequest request, Callback<av2::ListSessionsResponse> done) {
    if (!impl_->ready(done, method::session_list)) return;
    if (impl_->version_ == 1) return impl_->v1_list_sessions(request, std::move(done));
    if (Status s = detail::v2::check_list_sessions(request, *impl_->agent_); !s) return impl_->refuse(done, s);
    Impl* impl = impl_.get();
    // What the list says of sessions the model holds (title, cwd, roots) goes into them.
    impl_->call<av2::ListSessionsResponse>(method::session_list, request, std::move(done),
                                           [impl](const av2::ListSessionsResponse& response) {
                                               for (const auto& info : response.sessions) {
                                                   if (impl->store_.find(info.sessionId)) {
                                                       impl->store_.set_session_info(info);
                                                   }
                                               }
                                           });
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

namespace {

// CLIENT-MUST-46: closing or deleting a session the agent does not know is success.
template <class Response>
std::optional<Response> not_found_is_success(const Status& status) {
    if (status.code() == Errc::rpc_error && status.rpc_code() == error_code::resource_not_found) return Response{};
    return std::nullopt;
}

}  // namespace

void Client::close_session(const std::string& session_id, Callback<av2::CloseSessionResponse> done) {
    if (!impl_->ready(done, method::session_close)) return;
    if (impl_->version_ == 1) {
        const auto* capabilities = impl_->v1_session_capabilities();
        return impl_->v1_session_end<av1::CloseSessionRequest, av1::CloseSessionResponse>(
            v1method::session_close, session_id, capabilities && capabilities->close.has_value(), std::move(done));
    }
    if (Status s = detail::v2::check_session_capability(*impl_->agent_, method::session_close); !s) {
        return impl_->refuse(done, s);
    }
    av2::CloseSessionRequest request;
    request.sessionId = session_id;
    Impl* impl = impl_.get();
    // Forgotten whether the agent confirms or never knew it (-32002 counts as success).
    impl_->call<av2::CloseSessionResponse>(
        method::session_close, request,
        [impl, session_id, done = std::move(done)](Result<av2::CloseSessionResponse> result) {
            if (result) {
                // Its model stays for the host to show; nothing in it can be cancelled now.
                impl->known_sessions_.erase(session_id);
                impl->closed_sessions_.insert(session_id);
            }
            done(std::move(result));
        },
        nullptr, not_found_is_success<av2::CloseSessionResponse>);
}

void Client::delete_session(const std::string& session_id, Callback<av2::DeleteSessionResponse> done) {
    if (!impl_->ready(done, method::session_delete)) return;
    if (impl_->version_ == 1) {
        const auto* capabilities = impl_->v1_session_capabilities();
        return impl_->v1_session_end<av1::DeleteSessionRequest, av1::DeleteSessionResponse>(
            v1method::session_delete, session_id, capabilities && capabilities->delete_.has_value(), std::move(done));
    }
    if (Status s = detail::v2::check_delete_session(*impl_->agent_); !s) return impl_->refuse(done, s);
    av2::DeleteSessionRequest request;
    request.sessionId = session_id;
    impl_->call<av2::DeleteSessionResponse>(method::session_delete, request, std::move(done), nullptr,
                                            not_found_is_success<av2::DeleteSessionResponse>);
}

RequestHandle Client::prompt(av2::PromptRequest request, Callback<av2::PromptResponse> done) {
    if (!impl_->ready(done, method::session_prompt)) return {};
    if (Status s = detail::v2::check_prompt(request, *impl_->agent_); !s) {
        impl_->refuse(done, s);
        return {};
    }
    if (impl_->version_ == 1) return impl_->v1_prompt(request, std::move(done));
    return RequestHandle{impl_->call<av2::PromptResponse>(method::session_prompt, request, std::move(done))};
}

void Client::cancel(const std::string& session_id) {
    if (!impl_->agent_ || impl_->rpc_->is_closed()) return;
    if (impl_->version_ == 1) return impl_->v1_cancel(session_id);
    impl_->rpc_->send_notification(method::session_cancel, [&session_id](JsonWriter& w) {
        av2::CancelSessionNotification notification;
        notification.sessionId = session_id;
        codec::encode(w, notification);
    });
    // CLIENT-MUST-69: unfinished tool calls of the cancelled work show as cancelled now;
    // the agent's final statuses still win.
    impl_->store_.mark_cancelled(session_id);
    // Pending permission requests stay open: the agent withdraws those of the cancelled
    // foreground work with $/cancel_request (answered "cancelled", CLIENT-MUST-68); those
    // of background work stay valid, and libacp cannot tell the two apart itself.
}

void Client::set_config_option(av2::SetSessionConfigOptionRequest request,
                               Callback<av2::SetSessionConfigOptionResponse> done) {
    if (!impl_->ready(done, method::session_set_config_option)) return;
    const SessionState* state = impl_->store_.find(request.sessionId);
    const auto* options = state != nullptr && state->config_options() ? &*state->config_options() : nullptr;
    if (Status s = detail::v2::check_set_config_option(request, options);
        !s) {
        return impl_->refuse(done, s);
    }
    if (impl_->version_ == 1) return impl_->v1_set_config_option(request, std::move(done));
    const std::string session_id = request.sessionId;
    Impl* impl = impl_.get();
    // CLIENT-MUST-56: the answer is the complete list; it replaces ours.
    impl_->call<av2::SetSessionConfigOptionResponse>(
        method::session_set_config_option, request, std::move(done),
        [impl, session_id](const av2::SetSessionConfigOptionResponse& response) {
            impl->store_.set_config_options(session_id, response.configOptions);
        });
}

void Client::cancel_tool_call(const std::string& session_id, const std::string& tool_call_id,
                              Callback<av2::CancelToolCallResponse> done) {
    if (!impl_->ready(done, method::tool_call_cancel)) return;
    if (impl_->version_ == 1) {
        return impl_->refuse(done, Status(Errc::unsupported, "tool_call/cancel: ACP v1 has no such method"));
    }
    if (!impl_->cancellable(session_id, ItemKind::tool_call, tool_call_id)) {
        return impl_->refuse(done, Status(Errc::invalid_argument,
                                          "CLIENT-MUST-36: tool call '" + tool_call_id +
                                              "' does not currently advertise capabilities.cancel"));
    }
    av2::CancelToolCallRequest request;
    request.sessionId = session_id;
    request.toolCallId = tool_call_id;
    impl_->call(method::tool_call_cancel, request, std::move(done));
}

void Client::cancel_terminal(const std::string& session_id, const std::string& terminal_id,
                             Callback<av2::CancelTerminalResponse> done) {
    if (!impl_->ready(done, method::terminal_cancel)) return;
    if (impl_->version_ == 1) {
        return impl_->refuse(done, Status(Errc::unsupported, "terminal/cancel: ACP v1 has no such method"));
    }
    if (!impl_->cancellable(session_id, ItemKind::terminal, terminal_id)) {
        return impl_->refuse(done, Status(Errc::invalid_argument,
                                          "CLIENT-MUST-36: terminal '" + terminal_id +
                                              "' does not currently advertise capabilities.cancel"));
    }
    av2::CancelTerminalRequest request;
    request.sessionId = session_id;
    request.terminalId = terminal_id;
    impl_->call(method::terminal_cancel, request, std::move(done));
}

RequestHandle Client::ext_request(const std::string& name, RawJson params, Callback<RawJson> done) {
    if (!impl_->ready(done, name)) return {};
    Status valid = detail::v2::check_extension_method(name);
    if (valid) valid = check_raw_object(params, "extension params");
    if (!valid) {
        impl_->refuse(done, valid);
        return {};
    }
    impl_->sent_other_request_ = true;
    return RequestHandle{impl_->rpc_->send_request(
        name, [&params](JsonWriter& w) { write_raw(w, params); },
        [impl = impl_.get(), done = std::move(done)](const Reply& reply) {
            auto keep_alive = impl->shared_from_this();
            if (impl->orphaned_) return;
            if (!reply.status) return done(reply.status);
            done(raw_of(reply.result));
        },
        impl_->request_options())};
}

Status Client::ext_notification(const std::string& name, RawJson params) {
    if (!impl_->agent_) return Status(Errc::invalid_argument, "CLIENT-MUST-20: initialize first");
    Status valid = detail::v2::check_extension_method(name);
    if (valid) valid = check_raw_object(params, "extension params");
    if (!valid) return valid;
    impl_->rpc_->send_notification(name, [&params](JsonWriter& w) { write_raw(w, params); });
    return Status();
}

bool Client::cancel_request(RequestHandle handle) { return handle.id >= 0 && impl_->rpc_->cancel_request(handle.id); }

SessionStore& Client::sessions() { return impl_->store_; }
const SessionStore& Client::sessions() const { return impl_->store_; }

void Client::close() { impl_->rpc_->close(); }
bool Client::is_closed() const { return impl_->rpc_->is_closed(); }

void run_until(uv_loop_t* loop, const std::function<bool()>& done) {
    while (!done()) {
        if (uv_run(loop, UV_RUN_ONCE) == 0 && !done()) return;
    }
}

}  // namespace acp
