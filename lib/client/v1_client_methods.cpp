// SPDX-License-Identifier: Apache-2.0
#include "client/v1_client_methods.hpp"

#include <memory>
#include <utility>

#include "client/client_core.hpp"
#include "client/update_router.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v1/methods.hpp"
#include "session/terminal_bytes.hpp"

namespace acp::detail {

namespace av1 = acp::v1;
namespace av2 = acp::v2;
namespace v1codec = acp::v1::codec;
namespace v1method = acp::v1::method;

namespace {

av2::TerminalExitStatus lift_exit(const Nullable<int64_t>& code, const Nullable<std::string>& signal) {
    av2::TerminalExitStatus status;
    if (code.has_value()) status.exitCode = *code;
    if (signal.has_value()) status.signal = *signal;
    return status;
}

}  // namespace

const std::string_view V1ClientMethods::names[7] = {
    v1method::fs_read_text_file, v1method::fs_write_text_file,     v1method::terminal_create,
    v1method::terminal_output,   v1method::terminal_wait_for_exit, v1method::terminal_kill,
    v1method::terminal_release,
};

V1ClientMethods::V1ClientMethods(ClientCore& core, UpdateRouter& router,
                                 std::function<void(const std::string&)> before_request)
    : core_(core), router_(router), before_request_(std::move(before_request)) {}

void V1ClientMethods::serve(std::string_view method, const JsonValue* params, Responder responder) {
    const HostHandlers& host = core_.host;
    if (method == v1method::fs_read_text_file) return serve_with(host.read_text_file, params, std::move(responder));
    if (method == v1method::fs_write_text_file) return serve_with(host.write_text_file, params, std::move(responder));
    if (method == v1method::terminal_create) {
        return serve_with(host.terminal.create, params, std::move(responder), &V1ClientMethods::watch_create);
    }
    if (method == v1method::terminal_output) {
        return serve_with(host.terminal.output, params, std::move(responder), &V1ClientMethods::watch_output);
    }
    if (method == v1method::terminal_wait_for_exit) {
        return serve_with(host.terminal.wait_for_exit, params, std::move(responder), &V1ClientMethods::watch_exit);
    }
    if (method == v1method::terminal_kill) return serve_with(host.terminal.kill, params, std::move(responder));
    if (method == v1method::terminal_release) return serve_with(host.terminal.release, params, std::move(responder));
    responder.fail(rpc_code::method_not_found, "Method not found");
}

template <class Request>
void V1ClientMethods::serve_with(std::function<void(const Request&, ClientMethodResponder)> handler,
                                 const JsonValue* params, Responder r, Watch<Request> watch) {
    if (!handler) {
        r.fail(rpc_code::method_not_found, "Method not found");
        return;
    }
    Request request;
    Status decoded = params ? v1codec::decode(*params, request) : Status(Errc::protocol_error, "no params");
    if (!decoded) {
        r.fail(rpc_code::invalid_params, "Invalid params: " + decoded.message());
        return;
    }
    before_request_(request.sessionId);  // the turn's start first
    if (!router_.admits_request(request.sessionId, r)) return;
    auto state = std::make_shared<ClientMethodResponder::State>(r);
    if (watch) (this->*watch)(*state, request);
    std::weak_ptr<ClientMethodResponder::State> weak = state;
    r.on_cancel([weak] {
        if (auto s = weak.lock()) {
            if (s->on_withdrawn) s->on_withdrawn();
        }
    });
    if (core_.orphaned) return;
    handler(request, ClientMethodResponder(std::move(state)));
}

void V1ClientMethods::show_terminal(const std::string& session_id, av2::TerminalUpdate update) {
    av2::UpdateSessionNotification notification;
    notification.sessionId = session_id;
    notification.update = av2::SessionUpdate::make_terminal_update(std::move(update));
    shown_.push_back(std::move(notification));
    if (shown_.size() > 1) return;  // a flush is already posted
    core_.deferred.post([this] {
        auto keep_alive = core_.keep_alive();
        flush_shown();
    });
}

void V1ClientMethods::flush_shown() {
    std::vector<av2::UpdateSessionNotification> shown = std::move(shown_);
    shown_.clear();
    for (auto& notification : shown) {
        if (core_.orphaned) return;
        router_.route(std::move(notification));
    }
}

// The watchers run when the host answers, which may be after the Client is gone: they
// reach this part only through the Client's owner, while it lives.
void V1ClientMethods::watch_create(ClientMethodResponder::State& state, const av1::CreateTerminalRequest& request) {
    std::string command = request.command;
    if (request.args) {
        for (const auto& arg : *request.args) command += " " + arg;
    }
    state.terminal_created = [owner = core_.owner, self = this, session = request.sessionId, command,
                              cwd = request.cwd](const av1::CreateTerminalResponse& response) {
        av2::TerminalUpdate update;
        update.terminalId = response.terminalId;
        update.command = command;
        if (cwd.has_value()) update.cwd = *cwd;
        if (auto alive = owner.lock()) self->show_terminal(session, std::move(update));
    };
}

void V1ClientMethods::watch_output(ClientMethodResponder::State& state, const av1::TerminalOutputRequest& request) {
    state.terminal_output = [owner = core_.owner, self = this, session = request.sessionId,
                             id = request.terminalId](const av1::TerminalOutputResponse& response) {
        av2::TerminalUpdate update;
        update.terminalId = id;
        av2::TerminalOutput output;
        output.data = base64_encode(response.output);
        update.output = std::move(output);
        if (response.exitStatus.has_value()) {
            update.exitStatus = lift_exit(response.exitStatus->exitCode, response.exitStatus->signal);
        }
        if (auto alive = owner.lock()) self->show_terminal(session, std::move(update));
    };
}

void V1ClientMethods::watch_exit(ClientMethodResponder::State& state, const av1::WaitForTerminalExitRequest& request) {
    state.terminal_exited = [owner = core_.owner, self = this, session = request.sessionId,
                             id = request.terminalId](const av1::WaitForTerminalExitResponse& response) {
        av2::TerminalUpdate update;
        update.terminalId = id;
        update.exitStatus = lift_exit(response.exitCode, response.signal);
        if (auto alive = owner.lock()) self->show_terminal(session, std::move(update));
    };
}

}  // namespace acp::detail
