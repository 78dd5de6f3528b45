// SPDX-License-Identifier: Apache-2.0
#include "capi/core.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <future>
#include <utility>

#include "jsonrpc/json.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v1/methods.hpp"
#include "protocol/v2/codec.hpp"

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

namespace acp::capi {

namespace {

thread_local std::string last_error;

template <class T>
std::string encode_json(const T& value) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    v2::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

template <class T>
std::string encode_v1_json(const T& value) {
    rapidjson::StringBuffer buffer;
    detail::JsonWriter writer(buffer);
    v1::codec::encode(writer, value);
    return std::string(buffer.GetString(), buffer.GetSize());
}

// The Client handler of one v1 client method: each request becomes an
// ACP_EVENT_CLIENT_REQUEST carrying its params in v1 shape and a responder.
template <class Request>
std::function<void(const Request&, ClientMethodResponder)> client_method_handler(std::weak_ptr<Core> weak,
                                                                                 std::string_view method) {
    return [weak, method = std::string(method)](const Request& request, ClientMethodResponder r) {
        auto core = weak.lock();
        if (!core) return;
        const unsigned long id = core->next_id();
        r.on_withdrawn(core->withdrawal_reporter(id));
        core->answers[id].client_method.emplace(std::move(r));
        auto event = core->request_event(ACP_EVENT_CLIENT_REQUEST, id);
        event->method = method;
        event->responder->method = method;
        event->session_id = request.sessionId;
        event->json = encode_v1_json(request);
        core->emit(std::move(event));
    };
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
    event->set_status(status);
    if (auto c = core.lock()) {
        c->deliver_result(*this, std::move(event));
    } else if (fn != nullptr) {
        fn(event.get(), userdata);
    }
}

// --- the core --------------------------------------------------------------------------------

Core::Core(int mode, const acp_client_options& options) : mode_(mode) {
    queue_events = options.queue_events != 0;
    log_level = options.log_level;
    loop_thread_.store(std::this_thread::get_id());
}

Core::~Core() {
    for (auto* event : events_) delete event;
    for (int fd : pipe_) {
        if (fd >= 0) ::close(fd);
    }
}

int Core::start(const SpawnOptions* spawn, const AdoptedFds* fds, const acp_client_options& options) {
    if (::pipe(pipe_) != 0) return fail(ACP_EINTERNAL, "pipe() failed");
    for (int fd : pipe_) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    if (mode_ == ACP_MODE_LOOP) {
        if (options.uv_loop == nullptr) return fail(ACP_EINVAL, "ACP_MODE_LOOP needs options.uv_loop");
        loop_ = static_cast<uv_loop_t*>(options.uv_loop);
    } else {
        own_loop_ = std::make_unique<uv_loop_t>();
        if (uv_loop_init(own_loop_.get()) != 0) {
            own_loop_.reset();
            return fail(ACP_EINTERNAL, "uv_loop_init failed");
        }
        loop_ = own_loop_.get();
    }
    wake_ = new uv_async_t{};
    uv_async_init(loop_, wake_, &Core::on_wake);
    wake_->data = this;
    // Only libacp's own thread lives on it; elsewhere the wake handle must not keep a loop alive.
    if (mode_ != ACP_MODE_THREAD) uv_unref(reinterpret_cast<uv_handle_t*>(wake_));

    ClientOptions client_options;
    if (options.client_name != nullptr) client_options.info.name = options.client_name;
    if (options.client_version != nullptr) client_options.info.version = options.client_version;
    client_options.request_timeout = std::chrono::milliseconds(options.request_timeout_ms);
    client_options.protocol_version = options.protocol_version == ACP_PROTOCOL_V1 ? 1 : 2;
    if (options.max_line_bytes != 0) client_options.max_line_bytes = options.max_line_bytes;
    std::weak_ptr<Core> weak = shared_from_this();
    client_options.log = [weak](const LogRecord& record) {
        auto core = weak.lock();
        if (!core || level_of(record.level) < core->log_level) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_LOG;
        event->log_level = level_of(record.level);
        event->method = std::string(record.source);
        event->text = std::string(record.message);
        core->emit(std::move(event));
    };
    auto created = spawn != nullptr ? Client::spawn(loop_, *spawn, client_options)
                                    : Client::adopt(loop_, *fds, client_options);
    if (!created) {
        int code = fail(code_of(created.status()), created.status().to_string());
        shutdown();
        return code;
    }
    client = std::move(created.value());
    install_client_handlers();
    if (mode_ == ACP_MODE_THREAD) {
        std::promise<void> started;
        auto ready = started.get_future();
        thread_ = std::thread([this, &started] {
            loop_thread_.store(std::this_thread::get_id());
            started.set_value();
            thread_main();
        });
        ready.wait();
    }
    return ACP_OK;
}

void Core::thread_main() { uv_run(loop_, UV_RUN_DEFAULT); }

void Core::install_client_handlers() {
    std::weak_ptr<Core> weak = shared_from_this();
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
    client->on_permission_request([weak](const v2::RequestPermissionRequest& request, PermissionResponder r) {
        auto core = weak.lock();
        if (!core) return;
        const unsigned long id = core->next_id();
        r.on_withdrawn(core->withdrawal_reporter(id));
        core->answers[id].permission.emplace(std::move(r));
        auto event = core->request_event(ACP_EVENT_PERMISSION_REQUEST, id);
        event->session_id = request.sessionId;
        event->json = encode_json(request);
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
        {
            std::lock_guard<std::mutex> lock(core->ended_mutex_);
            core->ended = true;
        }
        core->ended_cv_.notify_all();
        core->emit(std::move(event));
    });
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

std::function<void()> Core::withdrawal_reporter(unsigned long id) {
    std::weak_ptr<Core> weak = shared_from_this();
    return [weak, id] {
        auto core = weak.lock();
        if (!core) return;
        auto event = std::make_unique<acp_event>();
        event->type = ACP_EVENT_REQUEST_WITHDRAWN;
        event->request = id;
        core->emit(std::move(event));
    };
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
        terminals.wait_for_exit = client_method_handler<v1::WaitForTerminalExitRequest>(weak, m::terminal_wait_for_exit);
        terminals.kill = client_method_handler<v1::KillTerminalRequest>(weak, m::terminal_kill);
        terminals.release = client_method_handler<v1::ReleaseTerminalRequest>(weak, m::terminal_release);
        client->on_terminal(std::move(terminals));
    }
}

// --- running on the loop thread --------------------------------------------------------------

int Core::run(std::function<void()> fn) {
    if (on_loop_thread()) {
        if (freed) return fail(ACP_ECLOSED, "the client was freed");
        fn();
        return ACP_OK;
    }
    {
        std::lock_guard<std::mutex> lock(commands_mutex_);
        if (!accepting_) return fail(ACP_ECLOSED, "the client was freed");
        commands_.push_back(std::move(fn));
        uv_async_send(wake_);
    }
    return ACP_OK;
}

int Core::run_sync(const std::function<void()>& fn) {
    if (on_loop_thread()) return run(fn);
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    int posted = run([&fn, done] {
        fn();
        done->set_value();
    });
    if (posted != ACP_OK) return posted;
    finished.wait();
    return ACP_OK;
}

void Core::on_wake(uv_async_t* async) {
    auto* core = static_cast<Core*>(async->data);
    if (core != nullptr) core->run_commands();
}

void Core::run_commands() {
    std::deque<std::function<void()>> batch;
    {
        std::lock_guard<std::mutex> lock(commands_mutex_);
        batch.swap(commands_);
    }
    for (auto& fn : batch) {
        try {
            fn();
        } catch (const std::exception& e) {
            fail(ACP_EINTERNAL, e.what());
        } catch (...) {
            fail(ACP_EINTERNAL, "unknown exception");
        }
    }
}

// --- events --------------------------------------------------------------------------------

void Core::emit(std::unique_ptr<acp_event> event) {
    Handler handler = handlers[event->type];
    if (handler.fn != nullptr) {
        ++dispatch_depth_;
        handler.fn(event.get(), handler.userdata);
        event.reset();  // an untaken responder answers now, before anything else happens
        end_dispatch();
        return;
    }
    if (!queue_events) return;
    std::lock_guard<std::mutex> lock(events_mutex_);
    if (events_.empty()) {
        const char byte = 1;
        // The pipe holds at most one byte at a time: readable = non-empty queue.
        [[maybe_unused]] ssize_t written = ::write(pipe_[1], &byte, 1);
    }
    events_.push_back(event.release());
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
    if (old.release == nullptr) return;
    if (dispatch_depth_ > 0) {
        pending_releases_.push_back(old);
    } else {
        old.release(old.userdata);
    }
}

int Core::next_event(acp_event** out) {
    std::lock_guard<std::mutex> lock(events_mutex_);
    if (events_.empty()) return ACP_EAGAIN;
    *out = events_.front();
    events_.pop_front();
    if (events_.empty()) {
        char buffer[16];
        while (::read(pipe_[0], buffer, sizeof buffer) > 0) {
        }
    }
    return ACP_OK;
}

int Core::pending_events() {
    std::lock_guard<std::mutex> lock(events_mutex_);
    return static_cast<int>(events_.size());
}

void Core::drop_responder(unsigned long id) {
    auto self = shared_from_this();
    // Failing to post means the client is gone, and with it the request's answer.
    (void)run([self, id] { self->answers.erase(id); });
}

// --- the end -------------------------------------------------------------------------------

void Core::shutdown() {
    // 1. An orderly close, so every outstanding call completes with its real status.
    if (client) {
        if (mode_ == ACP_MODE_THREAD) {
            (void)run([this] { client->close(); });
            std::unique_lock<std::mutex> lock(ended_mutex_);
            ended_cv_.wait(lock, [this] { return ended.load(); });
        } else if (mode_ == ACP_MODE_POLLED) {
            client->close();
            while (!ended) {
                if (uv_run(loop_, UV_RUN_ONCE) == 0 && !ended) break;
            }
        } else {
            client->close();
        }
    }
    // 2. Tear down on the loop thread: the C++ client, the unanswered requests.
    auto teardown = [this] {
        freed = true;  // from here on, calls (even from callbacks run below) fail with ACP_ECLOSED
        client.reset();
        answers.clear();
        requests.clear();
        freed = true;
        {
            std::lock_guard<std::mutex> lock(commands_mutex_);
            accepting_ = false;
            commands_.clear();
        }
        if (wake_ != nullptr) {
            wake_->data = nullptr;
            uv_close(reinterpret_cast<uv_handle_t*>(wake_), [](uv_handle_t* h) { delete reinterpret_cast<uv_async_t*>(h); });
            wake_ = nullptr;
        }
    };
    if (thread_.joinable()) {
        (void)run(teardown);
        thread_.join();  // its uv_run returns once every handle is closed
        loop_thread_.store(std::this_thread::get_id());
    } else {
        teardown();
    }
    freed = true;
    if (own_loop_) {
        uv_run(loop_, UV_RUN_DEFAULT);
        if (uv_loop_close(loop_) == UV_EBUSY) {
            // Inactive handles nobody closed (a stopped timer, an unreferenced async) would
            // keep the loop registered with libuv's process-wide signal handling after its
            // memory is gone: close them and finish the loop properly.
            uv_walk(loop_, [](uv_handle_t* h, void*) {
                if (!uv_is_closing(h)) uv_close(h, nullptr);
            }, nullptr);
            uv_run(loop_, UV_RUN_DEFAULT);
            if (uv_loop_close(loop_) != 0) std::fprintf(stderr, "libacp: a loop could not be closed\n");
        }
        own_loop_.reset();
    }
    // 3. The host's references.
    for (auto& h : handlers) {
        if (h.release != nullptr) h.release(h.userdata);
        h = Handler{};
    }
    std::deque<acp_event*> queued;
    {
        std::lock_guard<std::mutex> lock(events_mutex_);
        queued.swap(events_);
    }
    for (auto* event : queued) delete event;
}

}  // namespace acp::capi
