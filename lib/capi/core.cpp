// SPDX-License-Identifier: Apache-2.0
#include "capi/core.hpp"

#include <utility>

#include "client/client_access.hpp"

namespace acp::capi {

namespace {

thread_local std::string last_error;

HostingMode hosting_mode(int mode) {
    switch (mode) {
        case ACP_MODE_THREAD: return HostingMode::own_thread;
        case ACP_MODE_LOOP: return HostingMode::host_loop;
        default: return HostingMode::polled;
    }
}

int level_of(LogLevel level) {
    switch (level) {
        case LogLevel::debug: return ACP_LOG_DEBUG;
        case LogLevel::info: return ACP_LOG_INFO;
        case LogLevel::warning: return ACP_LOG_WARNING;
        case LogLevel::error: return ACP_LOG_ERROR;
    }
    return ACP_LOG_ERROR;
}

}  // namespace

const char* error_text() { return last_error.c_str(); }

int fail(int code, const std::string& message) noexcept {
    // Accessors call this outside any exception barrier: out of memory for the message
    // must not throw across the C boundary.
    try {
        last_error = message;
    } catch (...) {
        last_error.clear();
    }
    return code;
}

int code_of(const Status& status) { return status.ok() ? ACP_OK : -static_cast<int>(status.code()); }

// --- calls ---------------------------------------------------------------------------------

Call::~Call() {
    if (!done) finish(Status(Errc::connection_closed, method + ": the client was freed before an answer"));
}

void Call::succeed(std::string json) {
    if (done) return;
    done = true;
    auto event = std::make_unique<acp_event>();
    event->type = ACP_EVENT_RESULT;
    event->request = id;
    event->method = method;
    event->session_id = session_id;
    event->json = std::move(json);
    if (auto c = core.lock()) {
        c->deliver_result(*this, std::move(event));
    } else if (fn != nullptr) {
        fn(event.get(), userdata);
    }
}

void Call::finish(const Status& status) {
    if (done) return;
    done = true;
    auto event = std::make_unique<acp_event>();
    event->type = ACP_EVENT_RESULT;
    event->request = id;
    event->method = method;
    event->session_id = session_id;
    event->set_status(status);
    if (auto c = core.lock()) {
        c->deliver_result(*this, std::move(event));
    } else if (fn != nullptr) {
        fn(event.get(), userdata);
    }
}

// --- the core --------------------------------------------------------------------------------

Core::Core(const acp_client_options& options) : mode_(options.mode), updates_(options.session_updates) {
    queue_events = options.queue_events != 0;
    log_level = options.log_level;
}

Core::~Core() = default;

int Core::start(const AgentSource& agent, const acp_client_options& options) {
    if (Status opened = events_.open(); !opened) return fail(ACP_EINTERNAL, opened.message());
    if (mode_ == ACP_MODE_LOOP && options.uv_loop == nullptr) {
        return fail(ACP_EINVAL, "ACP_MODE_LOOP needs options.uv_loop");
    }
    std::weak_ptr<Core> weak = shared_from_this();
    LogSink log = [weak](const LogRecord& record) {
        auto core = weak.lock();
        if (!core || level_of(record.level) < core->log_level) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_LOG;
        event->log_level = level_of(record.level);
        event->method = std::string(record.source);
        event->text = std::string(record.message);
        core->emit(std::move(event));
    };

    RuntimeOptions hosting;
    hosting.mode = hosting_mode(mode_);
    hosting.host_loop = static_cast<uv_loop_t*>(options.uv_loop);
    hosting.log = log;
    auto runtime = Runtime::create(std::move(hosting));
    if (!runtime) return fail(code_of(runtime.status()), runtime.status().message());
    runtime_ = std::move(*runtime);

    ClientOptions client_options;
    if (options.client_name != nullptr) client_options.info.name = options.client_name;
    if (options.client_version != nullptr) client_options.info.version = options.client_version;
    client_options.request_timeout = std::chrono::milliseconds(options.request_timeout_ms);
    client_options.protocol_version = options.protocol_version == ACP_PROTOCOL_V1 ? 1 : 2;
    client_options.unstable = options.unstable != 0;
    if (options.max_line_bytes != 0) client_options.max_line_bytes = options.max_line_bytes;
    client_options.log = std::move(log);
    // The Client lives on the loop thread (libacp's own, in thread mode) from its birth.
    Status created;
    Status ran = runtime_->call([&] {
        auto made = agent.spawn != nullptr    ? Client::spawn(runtime_->loop(), *agent.spawn, client_options)
                    : agent.remote != nullptr ? Client::connect(runtime_->loop(), *agent.remote, client_options)
                                              : Client::adopt(runtime_->loop(), *agent.fds, client_options);
        if (!made) {
            created = made.status();
            return;
        }
        client = std::move(*made);
        install_client_handlers();
        if (client_options.unstable) install_unstable_handlers();
    });
    bound_queue(kDefaultQueueBytes);
    if (!ran) created = ran;
    if (!created) {
        int code = fail(code_of(created), created.to_string());
        shutdown();
        return code;
    }
    return ACP_OK;
}

// --- running on the loop thread --------------------------------------------------------------

int Core::run(std::function<void()> fn) {
    if (freed || runtime_ == nullptr) return fail(ACP_ECLOSED, "the client was freed");
    Status s = runtime_->dispatch(std::move(fn));
    return s ? ACP_OK : fail(ACP_ECLOSED, "the client was freed");
}

int Core::run_sync(const std::function<void()>& fn) {
    if (freed || runtime_ == nullptr) return fail(ACP_ECLOSED, "the client was freed");
    Status s = runtime_->call(fn);
    return s ? ACP_OK : fail(ACP_ECLOSED, "the client was freed");
}

// --- events --------------------------------------------------------------------------------

void Core::bound_queue(std::size_t max_bytes) {
    std::weak_ptr<Core> weak = shared_from_this();
    // The queue flips on the loop thread (a push) or the host's (a pull): the loop thread
    // then asks the queue again, so flips that cross on the way settle on the last state.
    events_.set_bound(max_bytes, max_bytes / 4, [weak] {
        auto core = weak.lock();
        if (!core || core->freed) return;
        (void)core->run([weak] {
            if (auto alive = weak.lock()) alive->follow_queue_bound();
        });
    });
}

void Core::follow_queue_bound() {
    if (client) detail::ClientAccess::core(*client).rpc->hold_reading(events_.held());
}

void Core::emit(std::unique_ptr<acp_event> event) {
    Handler handler = handlers[event->type];
    if (handler.fn != nullptr) {
        ++dispatch_depth_;
        handler.fn(event.get(), handler.userdata);
        event.reset();  // an untaken responder answers now, before anything else happens
        end_dispatch();
        return;
    }
    if (queue_events) events_.push(std::move(event));
}

void Core::deliver_result(Call& call, std::unique_ptr<acp_event> event) {
    requests.erase(call.id);
    if (call.fn == nullptr) {
        emit(std::move(event));
        return;
    }
    ++dispatch_depth_;
    call.fn(event.get(), call.userdata);
    event.reset();
    end_dispatch();
}

void Core::end_dispatch() {
    if (--dispatch_depth_ > 0) return;
    // A handler replaced while it ran is released only now, after its last call.
    std::vector<Handler> releases;
    releases.swap(pending_releases_);
    for (auto& h : releases) h.release(h.userdata);
}

void Core::set_handler(int type, Handler handler) {
    Handler old = handlers[type];
    handlers[type] = handler;
    if (type == ACP_EVENT_SESSION_UPDATE) follow_updates_choice();
    if (old.release == nullptr) return;
    if (dispatch_depth_ > 0) {
        pending_releases_.push_back(old);
    } else {
        old.release(old.userdata);
    }
}

std::unique_ptr<acp_event> Core::request_event(int type, unsigned long id) {
    auto event = std::make_unique<acp_event>();
    event->type = type;
    event->request = id;
    event->responder = new acp_responder;
    event->responder->core = shared_from_this();
    event->responder->id = id;
    event->responder->kind = type;
    return event;
}

std::function<void()> Core::withdrawal_reporter(const acp_event& request) {
    std::weak_ptr<Core> weak = shared_from_this();
    const unsigned long id = request.request;
    std::shared_ptr<std::atomic<bool>> withdrawn = request.responder->withdrawn;
    return [weak, id, withdrawn] {
        *withdrawn = true;
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_REQUEST_WITHDRAWN;
        event->request = id;
        core->emit(std::move(event));
    };
}

void Core::drop_responder(unsigned long id) {
    auto self = shared_from_this();
    // Failing to post means the client is gone, and with it the request's answer.
    (void)run([self, id] { self->answers.erase(id); });
}

// --- the end -------------------------------------------------------------------------------

void Core::shutdown() {
    if (runtime_ != nullptr) {
        // 1. An orderly close, so every outstanding call completes with its real status. On
        // the host's loop the host runs the loop: there the close just begins.
        if (client) (void)runtime_->dispatch([this] { client->close(); });
        if (mode_ != ACP_MODE_LOOP) (void)runtime_->run_until([this] { return ended.load() || !client; });
        // 2. Tear down on the loop thread: the C++ client, the unanswered requests; from
        // here on, calls (even from callbacks run below) fail with ACP_ECLOSED.
        runtime_->shutdown([this] {
            freed = true;
            session_changes_.reset();
            client.reset();
            answers.clear();
            requests.clear();
        });
    }
    freed = true;
    // 3. The host's references.
    for (auto& h : handlers) {
        if (h.release != nullptr) h.release(h.userdata);
        h = Handler{};
    }
    events_.clear();
}

}  // namespace acp::capi

acp_event::~acp_event() {
    if (responder != nullptr) acp_responder_free(responder);
}

void acp_event::set_status(const acp::Status& s) {
    status.code = acp::capi::code_of(s);
    message = s.ok() ? std::string() : s.message();
    if (const auto* exit = s.agent_exit(); exit != nullptr && !exit->stderr_tail.empty()) {
        message += "\nagent stderr (tail):\n" + exit->stderr_tail;
    }
    rpc_data = s.rpc_data_json();
    status.message = message.c_str();
    status.rpc_code = s.rpc_code();
    status.rpc_data_json = rpc_data.c_str();
}
