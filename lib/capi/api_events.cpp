// SPDX-License-Identifier: Apache-2.0
// Events (the pull queue, the accessors, handlers) and what the host switches on before
// or during a connection: elicitation, extension methods, v1 client methods, traffic and
// session model observers.
#include "capi/barrier.hpp"
#include "capi/json_text.hpp"

using namespace acp;
using namespace acp::capi;

namespace {

const acp_event::Option* option_at(const acp_event* event, int index) {
    if (event == nullptr || index < 0 || static_cast<std::size_t>(index) >= event->options.size()) {
        fail(ACP_ENOTFOUND, "no permission option at this index");
        return nullptr;
    }
    return &event->options[static_cast<std::size_t>(index)];
}

}  // namespace

extern "C" {

int acp_client_next_event(acp_event** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = client->core->events().pop();
        return *out != nullptr ? ACP_OK : fail(ACP_EAGAIN, "no event is queued");
    });
}

int acp_client_pending_events(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        return client->core->events().size();
    });
}

int acp_event_type(const acp_event* event) { return event != nullptr ? event->type : 0; }
unsigned long acp_event_request(const acp_event* event) { return event != nullptr ? event->request : 0; }
const acp_status* acp_event_status(const acp_event* event) {
    static const acp_status ok{ACP_OK, "", 0, ""};
    return event != nullptr ? &event->status : &ok;
}
const char* acp_event_json(const acp_event* event) { return event != nullptr ? event->json.c_str() : "null"; }
const char* acp_event_session_id(const acp_event* event) {
    return event != nullptr ? c_str_or_null(event->session_id) : nullptr;
}
const char* acp_event_method(const acp_event* event) {
    return event != nullptr ? c_str_or_null(event->method) : nullptr;
}
const char* acp_event_text(const acp_event* event) { return event != nullptr ? c_str_or_null(event->text) : nullptr; }
int acp_event_log_level(const acp_event* event) { return event != nullptr ? event->log_level : 0; }
int acp_event_direction(const acp_event* event) { return event != nullptr ? event->direction : 0; }
int acp_event_change(const acp_event* event) { return event != nullptr ? event->change : -1; }
int acp_event_item_index(const acp_event* event) { return event != nullptr ? event->item_index : -1; }
int acp_event_item_kind(const acp_event* event) { return event != nullptr ? event->item_kind : ACP_ITEM_UNKNOWN; }
const char* acp_event_item_id(const acp_event* event) {
    return event != nullptr && event->item_id ? event->item_id->c_str() : nullptr;
}
const char* acp_event_appended_text(const acp_event* event, size_t* size) {
    const bool appended = event != nullptr && event->appended_text.has_value();
    if (size != nullptr) *size = appended ? event->appended_text->size() : 0;
    return appended ? event->appended_text->c_str() : nullptr;
}
const char* acp_event_state(const acp_event* event) { return event != nullptr ? c_str_or_null(event->state) : nullptr; }
const char* acp_event_stop_reason(const acp_event* event) {
    return event != nullptr ? c_str_or_null(event->stop_reason) : nullptr;
}

int acp_event_option_count(const acp_event* event) {
    return event != nullptr ? static_cast<int>(event->options.size()) : 0;
}
const char* acp_event_option_id(const acp_event* event, int index) {
    const auto* option = option_at(event, index);
    return option != nullptr ? option->id.c_str() : nullptr;
}
const char* acp_event_option_name(const acp_event* event, int index) {
    const auto* option = option_at(event, index);
    return option != nullptr ? option->name.c_str() : nullptr;
}
const char* acp_event_option_kind(const acp_event* event, int index) {
    const auto* option = option_at(event, index);
    return option != nullptr ? option->kind.c_str() : nullptr;
}

int acp_event_take_responder(acp_responder** out, const acp_event* event) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (out == nullptr || event == nullptr) return fail(ACP_EINVAL, "out or event is NULL");
        *out = event->responder;
        if (*out == nullptr) return fail(ACP_ENOTFOUND, "the event has no responder (or it was taken)");
        event->responder = nullptr;
        return ACP_OK;
    });
}

void acp_event_free(acp_event* event) {
    guarded_void([&] { delete event; });
}

int acp_client_set_handler(acp_client* client, int event_type, acp_event_cb fn, void* userdata,
                           acp_release_cb release) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        if (event_type < 1 || event_type >= ACP_EVENT_TYPE_COUNT) return fail(ACP_EINVAL, "unknown event type");
        auto core = client->core;
        Core::Handler handler{fn, userdata, release};
        if (fn == nullptr) handler = Core::Handler{nullptr, nullptr, nullptr};
        int posted = core->run([core, event_type, handler] { core->set_handler(event_type, handler); });
        // Never installed (a NULL fn, or a closed client): its release still runs, once.
        if ((posted != ACP_OK || fn == nullptr) && release != nullptr) release(userdata);
        return posted;
    });
}

int acp_client_enable_elicitation(acp_client* client, int form, int url) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        std::weak_ptr<Core> weak = core;
        return core->run([core, weak, form, url] {
            if (!core->client) return;
            core->client->on_elicitation(form != 0, url != 0,
                                         [weak](const v2::CreateElicitationRequest& request, ElicitationResponder r) {
                                             auto c = weak.lock();
                                             if (!c) return;
                                             const unsigned long id = c->next_id();
                                             auto event = c->request_event(ACP_EVENT_ELICITATION_REQUEST, id);
                                             r.on_withdrawn(c->withdrawal_reporter(*event));
                                             c->answers[id].elicitation.emplace(std::move(r));
                                             event->json = encode_json(request);
                                             {
                                                 // The session id sits in the mode's members (form or url).
                                                 rapidjson::Document d;
                                                 d.Parse(event->json.c_str());
                                                 if (!d.HasParseError())
                                                     event->session_id = string_member(d, "sessionId");
                                             }
                                             c->emit(std::move(event));
                                         });
        });
    });
}

int acp_client_add_ext_method(acp_client* client, const char* method, int is_request) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr || method == nullptr) return fail(ACP_EINVAL, "client or method is NULL");
        if (method[0] != '_') return fail(ACP_EINVAL, "extension methods start with '_'");
        auto core = client->core;
        std::weak_ptr<Core> weak = core;
        std::string name = method;
        return core->run([core, weak, name, is_request] {
            if (!core->client) return;
            if (is_request != 0) {
                core->client->on_ext_request(name, [weak, name](const RawJson& params, ExtResponder r) {
                    auto c = weak.lock();
                    if (!c) return;
                    const unsigned long id = c->next_id();
                    auto event = c->request_event(ACP_EVENT_EXT_REQUEST, id);
                    r.on_withdrawn(c->withdrawal_reporter(*event));
                    c->answers[id].ext.emplace(std::move(r));
                    event->method = name;
                    event->json = params.text.empty() ? "{}" : params.text;
                    c->emit(std::move(event));
                });
            } else {
                core->client->on_ext_notification(name, [weak, name](const RawJson& params) {
                    auto c = weak.lock();
                    if (!c) return;
                    auto event = std::make_unique<acp_event>();
                    event->type = ACP_EVENT_EXT_NOTIFICATION;
                    event->method = name;
                    event->json = params.text.empty() ? "{}" : params.text;
                    c->emit(std::move(event));
                });
            }
        });
    });
}

int acp_client_serve_client_methods(acp_client* client, unsigned int methods) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        const unsigned int known =
            ACP_CLIENT_METHOD_READ_TEXT_FILE | ACP_CLIENT_METHOD_WRITE_TEXT_FILE | ACP_CLIENT_METHOD_TERMINAL;
        if ((methods & ~known) != 0) return fail(ACP_EINVAL, "unknown ACP_CLIENT_METHOD_* flags");
        auto core = client->core;
        return core->run([core, methods] { core->serve_client_methods(methods); });
    });
}

int acp_client_observe_traffic(acp_client* client, int enabled, int redact) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        std::weak_ptr<Core> weak = core;
        return core->run([core, weak, enabled, redact] {
            if (!core->client) return;
            if (enabled == 0) {
                core->client->set_traffic_observer(nullptr);
                return;
            }
            core->client->set_traffic_observer(
                [weak](Direction direction, std::string_view line, std::chrono::system_clock::time_point) {
                    auto c = weak.lock();
                    if (!c) return;
                    auto event = std::make_unique<acp_event>();
                    event->type = ACP_EVENT_TRAFFIC;
                    event->direction =
                        direction == Direction::incoming ? ACP_DIRECTION_INCOMING : ACP_DIRECTION_OUTGOING;
                    event->text = std::string(line);
                    c->emit(std::move(event));
                },
                redact != 0);
        });
    });
}

int acp_client_observe_sessions(acp_client* client, int enabled) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        return core->run([core, enabled] { core->observe_sessions(enabled != 0); });
    });
}

int acp_client_set_event_queue_bound(acp_client* client, size_t max_bytes) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        client->core->bound_queue(max_bytes);
        return ACP_OK;
    });
}

int acp_client_report_updates(acp_client* client, int enabled) {
    return guarded(ACP_EINTERNAL, [&]() -> int {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        return core->run([core, enabled] { core->choose_updates(enabled != 0); });
    });
}

}  // extern "C"
