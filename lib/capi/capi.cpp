// SPDX-License-Identifier: Apache-2.0
// The extern "C" entry points of include/acp/acp.h. Each one is a barrier: no C++
// exception leaves it; a failure becomes a negative ACP_E* code and acp_error_last().
#include <poll.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#include "acp/acp.h"
#include "acp/version.hpp"
#include "capi/core.hpp"
#include "jsonrpc/json.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v1/methods.hpp"
#include "protocol/v2/codec.hpp"

namespace acp::capi {

const char* error_text();

namespace {

// The barrier: returns what f returns, or fallback after recording the exception.
template <class R, class F>
R guarded(R fallback, F&& f) noexcept {
    try {
        return f();
    } catch (const std::bad_alloc&) {
        fail(ACP_EINTERNAL, "out of memory");
    } catch (const std::exception& e) {
        fail(ACP_EINTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        fail(ACP_EINTERNAL, "internal error: unknown exception");
    }
    return fallback;
}

template <class F>
void guarded_void(F&& f) noexcept {
    guarded(0, [&] {
        f();
        return 0;
    });
}

template <class T>
std::string encode_json(const T& value) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    v2::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

// Parses and decodes JSON text into a request type; ACP_EINVAL naming the problem otherwise.
template <class T>
int decode_json(const char* json, T& out, const char* what) {
    if (json == nullptr) return fail(ACP_EINVAL, std::string(what) + " is NULL");
    rapidjson::Document document;
    document.Parse(json);
    if (document.HasParseError()) return fail(ACP_EINVAL, std::string(what) + " is not valid JSON");
    if (Status s = v2::codec::decode(document, out); !s) {
        return fail(ACP_EINVAL, std::string(what) + ": " + s.message());
    }
    return ACP_OK;
}

// NULL or a JSON object, as RawJson.
int object_json(const char* json, RawJson& out, const char* what) {
    if (json == nullptr) return ACP_OK;
    rapidjson::Document document;
    document.Parse(json);
    if (document.HasParseError() || !document.IsObject()) {
        return fail(ACP_EINVAL, std::string(what) + " must be a JSON object");
    }
    out.text = detail::to_json_text(document);
    return ACP_OK;
}

int need(const void* p, const char* what) {
    return p != nullptr ? ACP_OK : fail(ACP_EINVAL, std::string(what) + " is NULL");
}

template <class Response>
Callback<Response> completion(std::shared_ptr<Call> call) {
    return [call](Result<Response> result) {
        if (result) {
            call->succeed(encode_json(*result));
        } else {
            call->finish(result.status());
        }
    };
}

// Starts one asynchronous call: checks the client, allocates its id, runs start on the
// loop thread with the Client and the Call.
int submit(unsigned long* out_request, acp_client* client, const char* method, acp_result_cb fn, void* userdata,
           std::function<void(Core&, const std::shared_ptr<Call>&)> start) {
    if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
    auto core = client->core;
    if (core->closing || core->freed) return fail(ACP_ECLOSED, std::string(method) + ": the client is closed");
    auto call = std::make_shared<Call>();
    call->core = core;
    call->id = core->next_id();
    call->method = method;
    call->fn = fn;
    call->userdata = userdata;
    int posted = core->run([core, call, start = std::move(start)] {
        if (!core->client) return;  // the Call's destructor reports ACP_ECLOSED
        start(*core, call);
    });
    if (posted != ACP_OK) {
        call->done = true;  // refused now: it must not complete later as well
        return posted;
    }
    if (out_request != nullptr) *out_request = call->id;
    return ACP_OK;
}

// The host's options, or the defaults. A struct of an older version is shorter: only the
// members it has are read, the rest keep their defaults.
int read_options(const acp_client_options* options, acp_client_options& out) {
    out = ACP_CLIENT_OPTIONS_INIT;
    if (options == nullptr) return ACP_OK;
    if (options->version == 1) {
        std::memcpy(&out, options, offsetof(acp_client_options, protocol_version));
        out.version = ACP_CLIENT_OPTIONS_VERSION;
        return ACP_OK;
    }
    if (options->version != ACP_CLIENT_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_client_options version");
    out = *options;
    return ACP_OK;
}

int create(acp_client** out, const SpawnOptions* spawn, const AdoptedFds* fds, const acp_client_options* options) {
    if (out == nullptr) return fail(ACP_EINVAL, "out is NULL");
    *out = nullptr;
    acp_client_options opts;
    if (int read = read_options(options, opts); read != ACP_OK) return read;
    if (opts.mode < ACP_MODE_POLLED || opts.mode > ACP_MODE_LOOP) return fail(ACP_EINVAL, "unknown mode");
    if (opts.protocol_version < ACP_PROTOCOL_AUTO || opts.protocol_version > ACP_PROTOCOL_V2) {
        return fail(ACP_EINVAL, "unknown protocol_version (ACP_PROTOCOL_AUTO, _V1 or _V2)");
    }
    auto core = std::make_shared<Core>(opts.mode, opts);
    int started = core->start(spawn, fds, opts);
    if (started != ACP_OK) return started;
    *out = new acp_client{core};
    return ACP_OK;
}

int responder_answer(acp_responder* r, int kind_a, int kind_b, std::function<void(Core::Answer&)> answer) {
    if (r == nullptr) return fail(ACP_EINVAL, "responder is NULL");
    if (r->kind != kind_a && r->kind != kind_b) return fail(ACP_ESTATE, "this answer does not fit the request");
    if (r->answered.exchange(true)) return fail(ACP_ESTATE, "the request was already answered");
    auto core = r->core;
    const unsigned long id = r->id;
    const int posted = core->run([core, id, answer = std::move(answer)] {
        auto it = core->answers.find(id);
        if (it == core->answers.end()) return;
        answer(it->second);
        core->answers.erase(it);
    });
    // Not sent (the client is closed): nothing was answered through this handle.
    if (posted != ACP_OK) r->answered = false;
    return posted;
}

// Decodes the host's answer to a v1 client method as that method's response type, so an
// answer that does not fit is refused here (ACP_EINVAL) instead of reaching the agent.
int client_method_answer(const std::string& method, const char* json,
                         std::function<void(ClientMethodResponder&)>& send) {
    if (json == nullptr) return fail(ACP_EINVAL, "result_json is NULL");
    rapidjson::Document document;
    document.Parse(json);
    if (document.HasParseError()) return fail(ACP_EINVAL, "result_json is not valid JSON");
    auto decoded_as = [&](auto response) {
        if (Status s = v1::codec::decode(document, response); !s) {
            return fail(ACP_EINVAL, "result_json is no " + method + " response: " + s.message());
        }
        send = [response](ClientMethodResponder& r) { r.respond(response); };
        return ACP_OK;
    };
    namespace m = v1::method;
    if (method == m::fs_read_text_file) return decoded_as(v1::ReadTextFileResponse{});
    if (method == m::fs_write_text_file) return decoded_as(v1::WriteTextFileResponse{});
    if (method == m::terminal_create) return decoded_as(v1::CreateTerminalResponse{});
    if (method == m::terminal_output) return decoded_as(v1::TerminalOutputResponse{});
    if (method == m::terminal_wait_for_exit) return decoded_as(v1::WaitForTerminalExitResponse{});
    if (method == m::terminal_kill) return decoded_as(v1::KillTerminalResponse{});
    if (method == m::terminal_release) return decoded_as(v1::ReleaseTerminalResponse{});
    return fail(ACP_EINTERNAL, "no response type for " + method);
}

char* copy_string(const std::string& text) {
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) throw std::bad_alloc();
    std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
}

std::optional<std::string> string_member(const rapidjson::Value& object, const char* key) {
    const auto* value = detail::find_member(object, key);
    if (value == nullptr || !value->IsString()) return std::nullopt;
    return std::string(value->GetString(), value->GetStringLength());
}

std::optional<std::string> json_member(const rapidjson::Value& object, const char* key) {
    const auto* value = detail::find_member(object, key);
    if (value == nullptr || value->IsNull()) return std::nullopt;
    return detail::to_json_text(*value);
}

int item_kind_of(const std::string& kind) {
    static const char* const names[] = {"user_message", "agent_message", "agent_thought", "tool_call",
                                        "plan",         "terminal",      "compaction"};
    for (int i = 0; i < 7; ++i) {
        if (kind == names[i]) return i;
    }
    return ACP_ITEM_UNKNOWN;
}

// Fills a snapshot from the canonical dump, so every accessor reads immutable data.
void fill_session(acp_session& s, std::string json) {
    s.json = std::move(json);
    rapidjson::Document d;
    d.Parse(s.json.c_str());
    s.id = string_member(d, "sessionId").value_or("");
    if (const auto* fg = detail::find_member(d, "foreground")) {
        s.state = string_member(*fg, "state").value_or("idle");
        s.stop_reason = string_member(*fg, "stopReason");
    }
    if (const auto* info = detail::find_member(d, "info")) s.title = string_member(*info, "title");
    s.config_options = json_member(d, "configOptions");
    s.commands = json_member(d, "availableCommands");
    if (const auto* usage = detail::find_member(d, "usage"); usage != nullptr && usage->IsObject()) {
        s.has_usage = true;
        if (const auto* used = detail::find_member(*usage, "used"); used && used->IsNumber()) s.used = used->GetDouble();
        if (const auto* size = detail::find_member(*usage, "size"); size && size->IsNumber()) s.size = size->GetDouble();
    }
    const auto* items = detail::find_member(d, "items");
    if (items == nullptr || !items->IsArray()) return;
    for (const auto& value : items->GetArray()) {
        acp_session::Item item;
        item.kind = item_kind_of(string_member(value, "kind").value_or(""));
        item.json = detail::to_json_text(value);
        item.id = string_member(value, item.kind == ACP_ITEM_UNKNOWN ? "sessionUpdate" : "id").value_or("");
        if (item.kind <= ACP_ITEM_AGENT_THOUGHT) {
            std::string text;
            if (const auto* content = detail::find_member(value, "content"); content && content->IsArray()) {
                for (const auto& block : content->GetArray()) {
                    if (string_member(block, "type").value_or("") == "text") {
                        text += string_member(block, "text").value_or("");
                    }
                }
            }
            item.text = std::move(text);
        } else if (item.kind == ACP_ITEM_TERMINAL) {
            item.text = string_member(value, "output");
        }
        if (item.kind == ACP_ITEM_TOOL_CALL) item.title = string_member(value, "title");
        if (item.kind == ACP_ITEM_TOOL_CALL || item.kind == ACP_ITEM_COMPACTION) {
            item.status = string_member(value, "status");
        }
        s.items.push_back(std::move(item));
    }
}

const acp_session::Item* item_at(const acp_session* s, int index) {
    if (s == nullptr || index < 0 || static_cast<std::size_t>(index) >= s->items.size()) {
        fail(ACP_ENOTFOUND, "no item at this index");
        return nullptr;
    }
    return &s->items[static_cast<std::size_t>(index)];
}

const char* c_str_or_null(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

// libuv hands a started watcher to epoll only at its next poll, and uv_backend_timeout()
// does not count such watchers: a host that waited on the backend fd now could wait for
// ever on a stream libuv has not registered yet. The queue is a private member of
// uv_loop_t, but every libuv 1.x keeps it as a circular list whose head points to itself
// when empty (void*[2] up to 1.46, struct uv__queue after).
bool has_unregistered_watchers(uv_loop_t* loop) {
    void* const* head = reinterpret_cast<void* const*>(&loop->watcher_queue);
    return head[0] != static_cast<const void*>(head);
}

}  // namespace

}  // namespace acp::capi

using namespace acp;
using namespace acp::capi;

extern "C" {

const char* acp_version(void) { return ACP_VERSION_STRING; }
int acp_version_major(void) { return ACP_VERSION_MAJOR; }

const char* acp_error_last(void) { return error_text(); }

const char* acp_error_name(int code) {
    static const char* const names[] = {"ACP_OK",        "ACP_EINVAL",    "ACP_ESPAWN",      "ACP_EIO",
                                        "ACP_ECLOSED",   "ACP_ETIMEDOUT", "ACP_ECANCELLED",  "ACP_ERPC",
                                        "ACP_EPROTOCOL", "ACP_EUNSUPPORTED", "ACP_EINTERNAL", "ACP_EAGAIN",
                                        "ACP_ENOTFOUND", "ACP_ESTATE"};
    if (code > 0 || -code >= static_cast<int>(sizeof names / sizeof names[0])) return "ACP_E?";
    return names[-code];
}

// --- creating -----------------------------------------------------------------------------

int acp_client_spawn(acp_client** out, const acp_spawn_options* agent, const acp_client_options* options) {
    return guarded(ACP_EINTERNAL, [&] {
        if (out != nullptr) *out = nullptr;
        if (agent == nullptr || agent->argv == nullptr || agent->argv[0] == nullptr) {
            return fail(ACP_EINVAL, "the agent's argv is empty");
        }
        if (agent->version != ACP_SPAWN_OPTIONS_VERSION) return fail(ACP_EINVAL, "unknown acp_spawn_options version");
        SpawnOptions spawn;
        for (const char* const* arg = agent->argv; *arg != nullptr; ++arg) spawn.argv.emplace_back(*arg);
        if (agent->cwd != nullptr) spawn.cwd = agent->cwd;
        if (agent->env_set != nullptr) {
            for (const char* const* entry = agent->env_set; *entry != nullptr; ++entry) {
                const char* eq = std::strchr(*entry, '=');
                if (eq == nullptr) return fail(ACP_EINVAL, std::string("env_set entry without '=': ") + *entry);
                spawn.env_set.emplace_back(std::string(*entry, eq), std::string(eq + 1));
            }
        }
        if (agent->env_unset != nullptr) {
            for (const char* const* name = agent->env_unset; *name != nullptr; ++name) spawn.env_unset.emplace_back(*name);
        }
        if (agent->shutdown_grace_ms != 0) spawn.shutdown_grace = std::chrono::milliseconds(agent->shutdown_grace_ms);
        if (agent->terminate_grace_ms != 0) {
            spawn.terminate_grace = std::chrono::milliseconds(agent->terminate_grace_ms);
        }
        return create(out, &spawn, nullptr, options);
    });
}

int acp_client_adopt(acp_client** out, int read_fd, int write_fd, int stderr_fd, const acp_client_options* options) {
    return guarded(ACP_EINTERNAL, [&] {
        AdoptedFds fds;
        fds.read_fd = read_fd;
        fds.write_fd = write_fd;
        fds.stderr_fd = stderr_fd;
        return create(out, nullptr, &fds, options);
    });
}

void acp_client_free(acp_client* client) {
    guarded_void([&] {
        if (client == nullptr) return;
        if (client->core->in_callback()) {
            // Freeing would pull the loop (or libacp's thread) from under the callback.
            fail(ACP_ESTATE, "acp_client_free inside the client's own callback: close it there, free it later");
            return;
        }
        client->core->shutdown();
        delete client;
    });
}

// --- hosting --------------------------------------------------------------------------------

int acp_client_fd(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        if (client->core->mode() != ACP_MODE_POLLED) return fail(ACP_ESTATE, "acp_client_fd: polled mode only");
        return uv_backend_fd(client->core->loop());
    });
}

int acp_client_timeout_ms(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        if (client->core->mode() != ACP_MODE_POLLED) return fail(ACP_ESTATE, "acp_client_timeout_ms: polled mode only");
        // A loop with nothing left reports 0; the host then has nothing to wait for.
        if (client->core->freed || !uv_loop_alive(client->core->loop())) return -1;
        if (has_unregistered_watchers(client->core->loop())) return 0;
        return uv_backend_timeout(client->core->loop());
    });
}

int acp_client_run_nowait(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        if (core->mode() != ACP_MODE_POLLED) return fail(ACP_ESTATE, "acp_client_run_nowait: polled mode only");
        if (!core->on_loop_thread()) return fail(ACP_ESTATE, "acp_client_run_nowait: not the client's thread");
        if (core->freed) return 0;
        int alive = uv_run(core->loop(), UV_RUN_NOWAIT);
        // Register what the callbacks just started, so the fd reflects every watcher.
        for (int pass = 0; pass < 4 && alive != 0 && has_unregistered_watchers(core->loop()); ++pass) {
            alive = uv_run(core->loop(), UV_RUN_NOWAIT);
        }
        return alive != 0 ? 1 : 0;
    });
}

int acp_client_run_once(acp_client* client, int timeout_ms) {
    return guarded(ACP_EINTERNAL, [&] {
        int fd = acp_client_fd(client);
        if (fd < 0) return fd;
        int loop_timeout = acp_client_timeout_ms(client);
        int wait = loop_timeout;
        if (timeout_ms >= 0 && (wait < 0 || timeout_ms < wait)) wait = timeout_ms;
        if (wait != 0) {
            pollfd p{fd, POLLIN, 0};
            ::poll(&p, 1, wait);
        }
        return acp_client_run_nowait(client);
    });
}

int acp_client_event_fd(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        return client->core->event_fd();
    });
}

// --- events ---------------------------------------------------------------------------------

int acp_client_next_event(acp_event** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        int got = client->core->next_event(out);
        return got == ACP_OK ? ACP_OK : fail(got, "no event is queued");
    });
}

int acp_client_pending_events(const acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        return client->core->pending_events();
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
const char* acp_event_method(const acp_event* event) { return event != nullptr ? c_str_or_null(event->method) : nullptr; }
const char* acp_event_text(const acp_event* event) { return event != nullptr ? c_str_or_null(event->text) : nullptr; }
int acp_event_log_level(const acp_event* event) { return event != nullptr ? event->log_level : 0; }
int acp_event_direction(const acp_event* event) { return event != nullptr ? event->direction : 0; }
int acp_event_change(const acp_event* event) { return event != nullptr ? event->change : -1; }
int acp_event_item_index(const acp_event* event) { return event != nullptr ? event->item_index : -1; }
int acp_event_item_kind(const acp_event* event) { return event != nullptr ? event->item_kind : ACP_ITEM_UNKNOWN; }
const char* acp_event_item_id(const acp_event* event) {
    return event != nullptr && event->item_id ? event->item_id->c_str() : nullptr;
}

int acp_event_take_responder(acp_responder** out, const acp_event* event) {
    return guarded(ACP_EINTERNAL, [&] {
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
    return guarded(ACP_EINTERNAL, [&] {
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
    return guarded(ACP_EINTERNAL, [&] {
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
                r.on_withdrawn(c->withdrawal_reporter(id));
                c->answers[id].elicitation.emplace(std::move(r));
                auto event = c->request_event(ACP_EVENT_ELICITATION_REQUEST, id);
                event->json = encode_json(request);
                {
                    // The session id sits in the mode's members (form or url).
                    rapidjson::Document d;
                    d.Parse(event->json.c_str());
                    if (!d.HasParseError()) event->session_id = string_member(d, "sessionId");
                }
                c->emit(std::move(event));
            });
        });
    });
}

int acp_client_add_ext_method(acp_client* client, const char* method, int is_request) {
    return guarded(ACP_EINTERNAL, [&] {
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
                    c->answers[id].ext.emplace(std::move(r));
                    auto event = c->request_event(ACP_EVENT_EXT_REQUEST, id);
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
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        const unsigned int known = ACP_CLIENT_METHOD_READ_TEXT_FILE | ACP_CLIENT_METHOD_WRITE_TEXT_FILE |
                                   ACP_CLIENT_METHOD_TERMINAL;
        if ((methods & ~known) != 0) return fail(ACP_EINVAL, "unknown ACP_CLIENT_METHOD_* flags");
        auto core = client->core;
        return core->run([core, methods] { core->serve_client_methods(methods); });
    });
}

int acp_client_observe_traffic(acp_client* client, int enabled, int redact) {
    return guarded(ACP_EINTERNAL, [&] {
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
                    event->direction = direction == Direction::incoming ? ACP_DIRECTION_INCOMING : ACP_DIRECTION_OUTGOING;
                    event->text = std::string(line);
                    c->emit(std::move(event));
                },
                redact != 0);
        });
    });
}

// The C numbering follows the C++ enums one to one.
static_assert(static_cast<int>(SessionEvent::Type::session_added) == ACP_CHANGE_SESSION_ADDED &&
                  static_cast<int>(SessionEvent::Type::item_inserted) == ACP_CHANGE_ITEM_INSERTED &&
                  static_cast<int>(SessionEvent::Type::turn_ended) == ACP_CHANGE_TURN_ENDED &&
                  static_cast<int>(SessionEvent::Type::replay_ended) == ACP_CHANGE_REPLAY_ENDED,
              "ACP_CHANGE_* and SessionEvent::Type differ");
static_assert(static_cast<int>(ItemKind::user_message) == ACP_ITEM_USER_MESSAGE &&
                  static_cast<int>(ItemKind::compaction) == ACP_ITEM_COMPACTION &&
                  static_cast<int>(ItemKind::unknown) == ACP_ITEM_UNKNOWN,
              "ACP_ITEM_* and ItemKind differ");

int acp_client_observe_sessions(acp_client* client, int enabled) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        std::weak_ptr<Core> weak = core;
        return core->run([core, weak, enabled] {
            if (!core->client || enabled == 0) {
                core->session_changes.reset();
                return;
            }
            core->session_changes = core->client->sessions().subscribe([weak](const SessionEvent& change) {
                auto c = weak.lock();
                if (!c) return;
                auto event = std::make_unique<acp_event>();
                event->type = ACP_EVENT_SESSION_CHANGED;
                event->session_id = std::string(change.session_id);
                event->change = static_cast<int>(change.type);
                if (change.type == SessionEvent::Type::item_inserted || change.type == SessionEvent::Type::item_changed) {
                    event->item_index = static_cast<int>(change.index);
                    event->item_kind = static_cast<int>(change.item_kind);
                    event->item_id = std::string(change.item_id);
                }
                c->emit(std::move(event));
            });
        });
    });
}

// --- responders -------------------------------------------------------------------------------

unsigned long acp_responder_id(const acp_responder* responder) { return responder != nullptr ? responder->id : 0; }

int acp_responder_select(acp_responder* responder, const char* option_id) {
    return guarded(ACP_EINTERNAL, [&] {
        if (option_id == nullptr) return fail(ACP_EINVAL, "option_id is NULL");
        std::string option = option_id;
        return responder_answer(responder, ACP_EVENT_PERMISSION_REQUEST, ACP_EVENT_PERMISSION_REQUEST,
                                [option](Core::Answer& a) { a.permission->select(option); });
    });
}

int acp_responder_cancel(acp_responder* responder) {
    return guarded(ACP_EINTERNAL, [&] {
        return responder_answer(responder, ACP_EVENT_PERMISSION_REQUEST, ACP_EVENT_ELICITATION_REQUEST,
                                [](Core::Answer& a) {
                                    if (a.permission) a.permission->cancel();
                                    if (a.elicitation) a.elicitation->cancel();
                                });
    });
}

int acp_responder_accept(acp_responder* responder, const char* content_json) {
    return guarded(ACP_EINTERNAL, [&] {
        RawJson content{"{}"};
        if (int valid = object_json(content_json, content, "content_json"); valid != ACP_OK) return valid;
        return responder_answer(responder, ACP_EVENT_ELICITATION_REQUEST, ACP_EVENT_ELICITATION_REQUEST,
                                [content](Core::Answer& a) {
                                    // A content the schema refuses: the agent gets "cancel", never a bad answer.
                                    if (!a.elicitation->accept(content)) a.elicitation->cancel();
                                });
    });
}

int acp_responder_decline(acp_responder* responder) {
    return guarded(ACP_EINTERNAL, [&] {
        return responder_answer(responder, ACP_EVENT_ELICITATION_REQUEST, ACP_EVENT_ELICITATION_REQUEST,
                                [](Core::Answer& a) { a.elicitation->decline(); });
    });
}

int acp_responder_respond(acp_responder* responder, const char* result_json) {
    return guarded(ACP_EINTERNAL, [&] {
        if (responder != nullptr && responder->kind == ACP_EVENT_CLIENT_REQUEST) {
            if (responder->answered) return fail(ACP_ESTATE, "the request was already answered");
            std::function<void(ClientMethodResponder&)> send;
            if (int valid = client_method_answer(responder->method, result_json, send); valid != ACP_OK) return valid;
            return responder_answer(responder, ACP_EVENT_CLIENT_REQUEST, ACP_EVENT_CLIENT_REQUEST,
                                    [send](Core::Answer& a) { send(*a.client_method); });
        }
        RawJson result{"{}"};
        if (int valid = object_json(result_json, result, "result_json"); valid != ACP_OK) return valid;
        return responder_answer(responder, ACP_EVENT_EXT_REQUEST, ACP_EVENT_EXT_REQUEST,
                                [result](Core::Answer& a) { a.ext->respond(result); });
    });
}

int acp_responder_fail(acp_responder* responder, int rpc_code, const char* message) {
    return guarded(ACP_EINTERNAL, [&] {
        std::string text = message != nullptr ? message : "";
        return responder_answer(responder, ACP_EVENT_EXT_REQUEST, ACP_EVENT_CLIENT_REQUEST,
                                [rpc_code, text](Core::Answer& a) {
                                    if (a.ext) a.ext->fail(rpc_code, text);
                                    if (a.client_method) a.client_method->fail(rpc_code, text);
                                });
    });
}

int acp_responder_answered(const acp_responder* responder) {
    return responder != nullptr && responder->answered.load() ? 1 : 0;
}

void acp_responder_free(acp_responder* responder) {
    guarded_void([&] {
        if (responder == nullptr) return;
        if (!responder->answered) responder->core->drop_responder(responder->id);
        delete responder;
    });
}

// --- calls ------------------------------------------------------------------------------------

int acp_client_initialize(unsigned long* out_request, acp_client* client, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        return submit(out_request, client, "initialize", done, userdata, [](Core& core, const std::shared_ptr<Call>& call) {
            core.client->initialize(completion<v2::InitializeResponse>(call));
        });
    });
}

int acp_client_agent_json(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        std::optional<std::string> json;
        int ran = core->run_sync([&] {
            if (core->client && core->client->agent() != nullptr) json = encode_json(*core->client->agent());
        });
        if (ran != ACP_OK) return ran;
        if (!json) return fail(ACP_ESTATE, "initialize has not succeeded");
        *out = copy_string(*json);
        return ACP_OK;
    });
}

int acp_client_agent_v1_json(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        bool initialized = false;
        std::optional<std::string> json;
        int ran = core->run_sync([&] {
            if (!core->client || core->client->agent() == nullptr) return;
            initialized = true;
            if (const v1::InitializeResponse* v1_answer = core->client->agent_v1()) {
                rapidjson::StringBuffer buffer;
                detail::JsonWriter writer(buffer);
                v1::codec::encode(writer, *v1_answer);
                json = std::string(buffer.GetString(), buffer.GetSize());
            }
        });
        if (ran != ACP_OK) return ran;
        if (!initialized) return fail(ACP_ESTATE, "initialize has not succeeded");
        if (!json) return fail(ACP_ENOTFOUND, "the agent speaks ACP v2");
        *out = copy_string(*json);
        return ACP_OK;
    });
}

void acp_string_free(char* text) { std::free(text); }

int acp_client_negotiated_version(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        int version = 0;
        int ran = core->run_sync([&] {
            if (core->client) version = core->client->negotiated_version();
        });
        return ran != ACP_OK ? ran : version;
    });
}

int acp_client_login(unsigned long* out_request, acp_client* client, const char* method_id, acp_result_cb done,
                     void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (int ok = need(method_id, "method_id"); ok != ACP_OK) return ok;
        std::string id = method_id;
        return submit(out_request, client, "auth/login", done, userdata, [id](Core& core, const std::shared_ptr<Call>& call) {
            core.client->login(id, completion<v2::LoginAuthResponse>(call));
        });
    });
}

int acp_client_logout(unsigned long* out_request, acp_client* client, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        return submit(out_request, client, "auth/logout", done, userdata, [](Core& core, const std::shared_ptr<Call>& call) {
            core.client->logout(completion<v2::LogoutAuthResponse>(call));
        });
    });
}

int acp_client_new_session(unsigned long* out_request, acp_client* client, const char* request_json,
                           acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        v2::NewSessionRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return submit(out_request, client, "session/new", done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          Core* c = &core;
                          core.client->new_session(request, [c, call](Result<v2::NewSessionResponse> r) {
                              if (r) c->session_ids.insert(r->sessionId);
                              completion<v2::NewSessionResponse>(call)(std::move(r));
                          });
                      });
    });
}

int acp_client_resume_session(unsigned long* out_request, acp_client* client, const char* request_json,
                              acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        v2::ResumeSessionRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return submit(out_request, client, "session/resume", done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          core.session_ids.insert(request.sessionId);
                          core.client->resume_session(request, completion<v2::ResumeSessionResponse>(call));
                      });
    });
}

int acp_client_list_sessions(unsigned long* out_request, acp_client* client, const char* request_json,
                             acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        v2::ListSessionsRequest request;
        if (int ok = decode_json(request_json != nullptr ? request_json : "{}", request, "request_json"); ok != ACP_OK) {
            return ok;
        }
        return submit(out_request, client, "session/list", done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->list_sessions(request, completion<v2::ListSessionsResponse>(call));
                      });
    });
}

int acp_client_list_all_sessions(unsigned long* out_request, acp_client* client, const char* cwd, acp_result_cb done,
                                 void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        std::optional<std::string> filter;
        if (cwd != nullptr) filter = cwd;
        return submit(out_request, client, "session/list", done, userdata,
                      [filter](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->list_all_sessions(filter, [call](Result<std::vector<v2::SessionInfo>> r) {
                              if (!r) return call->finish(r.status());
                              std::string json = "[";
                              for (const auto& info : *r) {
                                  if (json.size() > 1) json += ",";
                                  json += encode_json(info);
                              }
                              call->succeed(json + "]");
                          });
                      });
    });
}

int acp_client_close_session(unsigned long* out_request, acp_client* client, const char* session_id,
                             acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
        std::string id = session_id;
        return submit(out_request, client, "session/close", done, userdata, [id](Core& core, const std::shared_ptr<Call>& call) {
            core.client->close_session(id, completion<v2::CloseSessionResponse>(call));
        });
    });
}

int acp_client_delete_session(unsigned long* out_request, acp_client* client, const char* session_id,
                              acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
        std::string id = session_id;
        return submit(out_request, client, "session/delete", done, userdata, [id](Core& core, const std::shared_ptr<Call>& call) {
            core.client->delete_session(id, completion<v2::DeleteSessionResponse>(call));
        });
    });
}

namespace {

int start_prompt(unsigned long* out_request, acp_client* client, v2::PromptRequest request, acp_result_cb done,
                 void* userdata) {
    return submit(out_request, client, "session/prompt", done, userdata,
                  [request = std::move(request)](Core& core, const std::shared_ptr<Call>& call) {
                      RequestHandle handle = core.client->prompt(request, completion<v2::PromptResponse>(call));
                      if (handle.id >= 0 && !call->done) core.requests[call->id] = handle;
                  });
}

}  // namespace

int acp_client_prompt(unsigned long* out_request, acp_client* client, const char* request_json, acp_result_cb done,
                      void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        v2::PromptRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return start_prompt(out_request, client, std::move(request), done, userdata);
    });
}

int acp_client_prompt_text(unsigned long* out_request, acp_client* client, const char* session_id, const char* text,
                           acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (int ok = need(session_id, "session_id"); ok != ACP_OK) return ok;
        if (int ok = need(text, "text"); ok != ACP_OK) return ok;
        v2::PromptRequest request;
        request.sessionId = session_id;
        v2::TextContent content;
        content.text = text;
        request.prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
        return start_prompt(out_request, client, std::move(request), done, userdata);
    });
}

int acp_client_cancel(acp_client* client, const char* session_id) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr || session_id == nullptr) return fail(ACP_EINVAL, "client or session_id is NULL");
        auto core = client->core;
        if (core->closing || core->freed) return fail(ACP_ECLOSED, "session/cancel: the client is closed");
        std::string id = session_id;
        return core->run([core, id] {
            if (core->client) core->client->cancel(id);
        });
    });
}

int acp_client_set_config_option(unsigned long* out_request, acp_client* client, const char* request_json,
                                 acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        v2::SetSessionConfigOptionRequest request;
        if (int ok = decode_json(request_json, request, "request_json"); ok != ACP_OK) return ok;
        return submit(out_request, client, "session/set_config_option", done, userdata,
                      [request](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->set_config_option(request, completion<v2::SetSessionConfigOptionResponse>(call));
                      });
    });
}

int acp_client_cancel_tool_call(unsigned long* out_request, acp_client* client, const char* session_id,
                                const char* tool_call_id, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (session_id == nullptr || tool_call_id == nullptr) return fail(ACP_EINVAL, "session_id or tool_call_id is NULL");
        std::string sid = session_id;
        std::string tid = tool_call_id;
        return submit(out_request, client, "tool_call/cancel", done, userdata,
                      [sid, tid](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->cancel_tool_call(sid, tid, completion<v2::CancelToolCallResponse>(call));
                      });
    });
}

int acp_client_cancel_terminal(unsigned long* out_request, acp_client* client, const char* session_id,
                               const char* terminal_id, acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (session_id == nullptr || terminal_id == nullptr) return fail(ACP_EINVAL, "session_id or terminal_id is NULL");
        std::string sid = session_id;
        std::string tid = terminal_id;
        return submit(out_request, client, "terminal/cancel", done, userdata,
                      [sid, tid](Core& core, const std::shared_ptr<Call>& call) {
                          core.client->cancel_terminal(sid, tid, completion<v2::CancelTerminalResponse>(call));
                      });
    });
}

int acp_client_ext_request(unsigned long* out_request, acp_client* client, const char* method, const char* params_json,
                           acp_result_cb done, void* userdata) {
    return guarded(ACP_EINTERNAL, [&] {
        if (int ok = need(method, "method"); ok != ACP_OK) return ok;
        if (method[0] != '_') return fail(ACP_EINVAL, "extension methods start with '_'");
        RawJson params{"{}"};
        if (int ok = object_json(params_json, params, "params_json"); ok != ACP_OK) return ok;
        std::string name = method;
        return submit(out_request, client, method, done, userdata,
                      [name, params](Core& core, const std::shared_ptr<Call>& call) {
                          RequestHandle handle = core.client->ext_request(name, params, [call](Result<RawJson> r) {
                              if (!r) return call->finish(r.status());
                              call->succeed(r->text.empty() ? "{}" : r->text);
                          });
                          if (handle.id >= 0 && !call->done) core.requests[call->id] = handle;
                      });
    });
}

int acp_client_ext_notify(acp_client* client, const char* method, const char* params_json) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr || method == nullptr) return fail(ACP_EINVAL, "client or method is NULL");
        if (method[0] != '_') return fail(ACP_EINVAL, "extension methods start with '_'");
        RawJson params{"{}"};
        if (int ok = object_json(params_json, params, "params_json"); ok != ACP_OK) return ok;
        auto core = client->core;
        if (core->closing || core->freed) return fail(ACP_ECLOSED, "the client is closed");
        std::string name = method;
        int result = ACP_OK;
        std::string message;
        int ran = core->run_sync([&] {
            if (!core->client) {
                result = ACP_ECLOSED;
                message = "the client is closed";
                return;
            }
            Status sent = core->client->ext_notification(name, params);
            result = code_of(sent);
            message = sent.message();
        });
        if (ran != ACP_OK) return ran;
        return result == ACP_OK ? ACP_OK : fail(result, message);
    });
}

int acp_client_cancel_request(acp_client* client, unsigned long request) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        return core->run([core, request] {
            auto it = core->requests.find(request);
            if (it == core->requests.end() || !core->client) return;
            core->client->cancel_request(it->second);
        });
    });
}

int acp_client_close(acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (client == nullptr) return fail(ACP_EINVAL, "client is NULL");
        auto core = client->core;
        if (core->closing.exchange(true) || core->freed) return ACP_OK;
        return core->run([core] {
            if (core->client) core->client->close();
        });
    });
}

int acp_client_is_closed(const acp_client* client) {
    if (client == nullptr) return 1;
    return client->core->closing || client->core->ended || client->core->freed ? 1 : 0;
}

// --- the session model -----------------------------------------------------------------------

int acp_client_session(acp_session** out, acp_client* client, const char* session_id) {
    return guarded(ACP_EINTERNAL, [&] {
        if (out == nullptr || client == nullptr || session_id == nullptr) {
            return fail(ACP_EINVAL, "out, client or session_id is NULL");
        }
        *out = nullptr;
        auto core = client->core;
        std::optional<std::string> json;
        std::string id = session_id;
        int ran = core->run_sync([&] {
            if (!core->client) return;
            if (const SessionState* state = core->client->sessions().find(id)) json = to_json(*state);
        });
        if (ran != ACP_OK) return ran;
        if (!json) return fail(ACP_ENOTFOUND, "no session '" + id + "' in the model");
        auto session = std::make_unique<acp_session>();
        fill_session(*session, std::move(*json));
        *out = session.release();
        return ACP_OK;
    });
}

int acp_client_session_ids(char** out, acp_client* client) {
    return guarded(ACP_EINTERNAL, [&] {
        if (out == nullptr || client == nullptr) return fail(ACP_EINVAL, "out or client is NULL");
        *out = nullptr;
        auto core = client->core;
        rapidjson::StringBuffer buffer;
        detail::JsonWriter writer(buffer);
        int ran = core->run_sync([&] {
            writer.StartArray();
            if (core->client) {
                for (const auto& id : core->session_ids) {
                    if (core->client->sessions().find(id) != nullptr) detail::write_string(writer, id);
                }
            }
            writer.EndArray();
        });
        if (ran != ACP_OK) return ran;
        *out = copy_string(std::string(buffer.GetString(), buffer.GetSize()));
        return ACP_OK;
    });
}

void acp_session_free(acp_session* session) { delete session; }

const char* acp_session_id(const acp_session* s) { return s != nullptr ? s->id.c_str() : nullptr; }
const char* acp_session_json(const acp_session* s) { return s != nullptr ? s->json.c_str() : nullptr; }
const char* acp_session_state(const acp_session* s) { return s != nullptr ? s->state.c_str() : nullptr; }
const char* acp_session_stop_reason(const acp_session* s) { return s != nullptr ? c_str_or_null(s->stop_reason) : nullptr; }
const char* acp_session_title(const acp_session* s) { return s != nullptr ? c_str_or_null(s->title) : nullptr; }
int acp_session_usage(const acp_session* s, double* used, double* size) {
    if (s == nullptr || !s->has_usage) return fail(ACP_ENOTFOUND, "no usage reported");
    if (used != nullptr) *used = s->used;
    if (size != nullptr) *size = s->size;
    return ACP_OK;
}
const char* acp_session_config_options_json(const acp_session* s) {
    return s != nullptr ? c_str_or_null(s->config_options) : nullptr;
}
const char* acp_session_commands_json(const acp_session* s) { return s != nullptr ? c_str_or_null(s->commands) : nullptr; }

int acp_session_item_count(const acp_session* s) { return s != nullptr ? static_cast<int>(s->items.size()) : 0; }
int acp_session_item_kind(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? item->kind : ACP_ENOTFOUND;
}
const char* acp_session_item_id(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? item->id.c_str() : nullptr;
}
const char* acp_session_item_text(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? c_str_or_null(item->text) : nullptr;
}
const char* acp_session_item_title(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? c_str_or_null(item->title) : nullptr;
}
const char* acp_session_item_status(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? c_str_or_null(item->status) : nullptr;
}
const char* acp_session_item_json(const acp_session* s, int index) {
    const auto* item = item_at(s, index);
    return item != nullptr ? item->json.c_str() : nullptr;
}

}  // extern "C"
