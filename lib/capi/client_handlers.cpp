// SPDX-License-Identifier: Apache-2.0
// What the C++ Client reports, turned into acp_events (loop thread): updates, agent
// requests with their responders, notifications, the end of the connection and the
// session model's change events.
#include "capi/core.hpp"
#include "capi/json_text.hpp"
#include "protocol/v1/methods.hpp"

namespace acp::capi {

namespace {

// The Client handler of one v1 client method: each request becomes an
// ACP_EVENT_CLIENT_REQUEST carrying its params in v1 shape and a responder.
template <class Request>
std::function<void(const Request&, ClientMethodResponder)> client_method_handler(std::weak_ptr<Core> weak,
                                                                                 std::string_view method) {
    return [weak, method = std::string(method)](const Request& request, ClientMethodResponder r) {
        auto core = weak.lock();
        if (!core) return;
        const unsigned long id = core->next_id();
        auto event = core->request_event(ACP_EVENT_CLIENT_REQUEST, id);
        r.on_withdrawn(core->withdrawal_reporter(*event));
        core->answers[id].client_method.emplace(std::move(r));
        event->method = method;
        event->responder->method = method;
        event->session_id = request.sessionId;
        event->json = encode_v1_json(request);
        core->emit(std::move(event));
    };
}

// The permission's options as accessors read them, and the tool call it is about (already
// in the model: the Client applied the subject before asking).
void describe_permission(const Core& core, const v2::RequestPermissionRequest& request, acp_event& event) {
    event.options.reserve(request.options.size());
    for (const auto& option : request.options) {
        event.options.push_back(acp_event::Option{option.optionId, option.name, option.kind.value});
    }
    if (!request.subject.has_value() || request.subject->tool_call() == nullptr) return;
    const std::string& tool_call_id = request.subject->tool_call()->toolCall.toolCallId;
    event.item_kind = ACP_ITEM_TOOL_CALL;
    event.item_id = tool_call_id;
    if (const SessionState* session = core.client->sessions().find(request.sessionId)) {
        if (auto index = session->find(ItemKind::tool_call, tool_call_id)) event.item_index = static_cast<int>(*index);
    }
}

}  // namespace

void Core::install_client_handlers() {
    std::weak_ptr<Core> weak = shared_from_this();
    report_updates(updates_ != ACP_UPDATES_OFF);
    client->on_permission_request([weak](const v2::RequestPermissionRequest& request, PermissionResponder r) {
        auto core = weak.lock();
        if (!core) return;
        const unsigned long id = core->next_id();
        auto event = core->request_event(ACP_EVENT_PERMISSION_REQUEST, id);
        r.on_withdrawn(core->withdrawal_reporter(*event));
        core->answers[id].permission.emplace(std::move(r));
        event->session_id = request.sessionId;
        event->json = encode_json(request);
        describe_permission(*core, request, *event);
        core->emit(std::move(event));
    });
    client->on_elicitation_complete([weak](const v2::CompleteElicitationNotification& n) {
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_ELICITATION_COMPLETE;
        event->json = encode_json(n);
        core->emit(std::move(event));
    });
    client->on_unknown_notification([weak](std::string_view method, const RawJson& params) {
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_UNKNOWN_NOTIFICATION;
        event->method = std::string(method);
        event->json = params.text.empty() ? "{}" : params.text;
        core->emit(std::move(event));
    });
    client->on_closed([weak](const Status& why) {
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_CLOSED;
        event->set_status(why);
        core->ended = true;
        core->emit(std::move(event));
    });
}

void Core::serve_client_methods(unsigned int methods) {
    if (!client) return;
    std::weak_ptr<Core> weak = shared_from_this();
    namespace m = v1::method;
    if ((methods & ACP_CLIENT_METHOD_READ_TEXT_FILE) != 0) {
        client->on_read_text_file(client_method_handler<v1::ReadTextFileRequest>(weak, m::fs_read_text_file));
    }
    if ((methods & ACP_CLIENT_METHOD_WRITE_TEXT_FILE) != 0) {
        client->on_write_text_file(client_method_handler<v1::WriteTextFileRequest>(weak, m::fs_write_text_file));
    }
    if ((methods & ACP_CLIENT_METHOD_TERMINAL) != 0) {
        TerminalHandlers terminals;
        terminals.create = client_method_handler<v1::CreateTerminalRequest>(weak, m::terminal_create);
        terminals.output = client_method_handler<v1::TerminalOutputRequest>(weak, m::terminal_output);
        terminals.wait_for_exit =
            client_method_handler<v1::WaitForTerminalExitRequest>(weak, m::terminal_wait_for_exit);
        terminals.kill = client_method_handler<v1::KillTerminalRequest>(weak, m::terminal_kill);
        terminals.release = client_method_handler<v1::ReleaseTerminalRequest>(weak, m::terminal_release);
        client->on_terminal(std::move(terminals));
    }
}

void Core::choose_updates(bool enabled) {
    updates_ = enabled ? ACP_UPDATES_ON : ACP_UPDATES_OFF;
    report_updates(enabled);
}

void Core::report_updates(bool enabled) {
    if (!client) return;
    std::weak_ptr<Core> weak = shared_from_this();
    if (!enabled) {
        client->on_session_update(nullptr);
        // acp_client_session_ids still names the sessions only updates revealed.
        added_sessions_ = client->sessions().subscribe([weak](const SessionEvent& change) {
            if (change.type != SessionEvent::Type::session_added) return;
            if (auto core = weak.lock()) core->session_ids.insert(std::string(change.session_id));
        });
        return;
    }
    added_sessions_.reset();
    client->on_session_update([weak](const v2::UpdateSessionNotification& n) {
        auto core = weak.lock();
        if (!core) return;
        core->session_ids.insert(n.sessionId);
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_SESSION_UPDATE;
        event->session_id = n.sessionId;
        event->json = encode_json(n);
        core->emit(std::move(event));
    });
}

// The C numbering follows the C++ enums one to one.
static_assert(static_cast<int>(SessionEvent::Type::session_added) == ACP_CHANGE_SESSION_ADDED &&
                  static_cast<int>(SessionEvent::Type::item_inserted) == ACP_CHANGE_ITEM_INSERTED &&
                  static_cast<int>(SessionEvent::Type::state_changed) == ACP_CHANGE_STATE &&
                  static_cast<int>(SessionEvent::Type::turn_ended) == ACP_CHANGE_TURN_ENDED &&
                  static_cast<int>(SessionEvent::Type::replay_ended) == ACP_CHANGE_REPLAY_ENDED,
              "ACP_CHANGE_* and SessionEvent::Type differ");
static_assert(static_cast<int>(ItemKind::user_message) == ACP_ITEM_USER_MESSAGE &&
                  static_cast<int>(ItemKind::compaction) == ACP_ITEM_COMPACTION &&
                  static_cast<int>(ItemKind::unknown) == ACP_ITEM_UNKNOWN &&
                  static_cast<int>(ItemKind::subagent) == ACP_ITEM_SUBAGENT &&
                  static_cast<int>(ItemKind::session_message) == ACP_ITEM_SESSION_MESSAGE,
              "ACP_ITEM_* and ItemKind differ");

void Core::follow_updates_choice() {
    if (updates_ != ACP_UPDATES_AUTO) return;
    report_updates(!observing_ || handlers[ACP_EVENT_SESSION_UPDATE].fn != nullptr);
}

void Core::observe_sessions(bool enabled) {
    observing_ = enabled;
    follow_updates_choice();
    if (!client || !enabled) {
        session_changes_.reset();
        return;
    }
    std::weak_ptr<Core> weak = shared_from_this();
    session_changes_ = client->sessions().subscribe([weak](const SessionEvent& change) {
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_SESSION_CHANGED;
        event->session_id = std::string(change.session_id);
        event->change = static_cast<int>(change.type);
        if (change.type == SessionEvent::Type::item_inserted || change.type == SessionEvent::Type::item_changed) {
            event->item_index = static_cast<int>(change.index);
            event->item_kind = static_cast<int>(change.item_kind);
            event->item_id = std::string(change.item_id);
            if (change.appended_text) event->appended_text = std::string(*change.appended_text);
        } else if ((change.type == SessionEvent::Type::state_changed ||
                    change.type == SessionEvent::Type::turn_ended) &&
                   change.session != nullptr) {
            const ForegroundState& foreground = change.session->foreground();
            event->state = foreground.state;
            event->stop_reason = foreground.stop_reason;
        }
        core->emit(std::move(event));
    });
}

}  // namespace acp::capi
