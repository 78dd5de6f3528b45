// SPDX-License-Identifier: Apache-2.0
// acp::unstable (acp/unstable.hpp): the unstable surface's calls. Each passes the request
// gate (its capability, then the checks its kind shares with the stable calls), goes to
// the protocol driver as a checked, encoded message (a v1 agent's driver lowers it to
// v1's unstable schema and lifts the answer), and its answer is decoded with the unstable
// codec.
#include "acp/unstable.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/agent_tolerance.hpp"
#include "client/client_access.hpp"
#include "client/typed_call.hpp"
#include "protocol/unstable_additions.hpp"
#include "protocol/v2/unstable_methods.hpp"

namespace acp::unstable {

namespace {

using detail::Checked;
using detail::ClientAccess;
using detail::RequestGate;
using detail::UnstableMessage;
using detail::UnstableMethod;
namespace method = ::acp::v2::unstable::method;

// Sends a checked unstable message; done gets the decoded answer. after(answer) runs
// first, on success only, for what the model learns from it.
template <class Response, class Check>
void send(Client& client, std::string_view name, Callback<Response> done, Check&& check,
          std::function<void(const Response&)> after = nullptr) {
    Client::Impl& impl = ClientAccess::impl(client);
    if (Status s = impl.ready(name); !s) return impl.core_.refuse(std::move(done), s);
    Result<Checked<UnstableMessage>> checked = check(*impl.gate_);
    if (!checked) return impl.core_.refuse(std::move(done), checked.status());
    detail::ClientCore& core = impl.core_;
    impl.driver_->unstable_request(
        std::move(checked.value()),
        [&core, method = std::string(name), after = std::move(after), done = std::move(done)](Result<RawJson> json) {
            if (!json) return done(json.status());
            rapidjson::Document document;
            document.Parse(json->text.data(), json->text.size());
            Response answer;
            // A fork's commands lacking `type` (Appendix B 9) are read as session/new's are.
            rapidjson::Document repaired;
            Status decoded = document.HasParseError()
                                 ? Status(Errc::protocol_error, "not JSON")
                                 : un::codec::decode(detail::with_command_types(document, repaired), answer);
            if (!decoded) {
                const std::string why = "the agent's answer to " + method + " is invalid: " + decoded.message();
                core.log(LogLevel::error, why);
                return done(Status(Errc::protocol_error, why));
            }
            if (after) after(answer);
            done(std::move(answer));
        });
}

template <class Request, class Response>
void simple(Client& client, UnstableMethod which, std::string_view name, const Request& request,
            Callback<Response> done) {
    send<Response>(client, name, std::move(done),
                   [&](const RequestGate& gate) { return gate.unstable_call(which, name, request); });
}

}  // namespace

Offer offer(const Client& client) {
    const Client::Impl& impl = ClientAccess::impl(client);
    Offer out;
    if (!impl.gate_) return out;
    const detail::UnstableFeatures& f = impl.gate_->unstable();
    if (!f.enabled) return out;
    out.fork = f.fork;
    out.archive = f.archive;
    out.status = f.status;
    out.title = f.title;
    out.system_prompt = f.system_prompt;
    out.system_prompt_override = f.system_prompt_override;
    out.auth_status = f.auth_status;
    out.providers = f.providers;
    return out;
}

void new_session(Client& client, v2::NewSessionRequest request, un::SystemPrompt prompt,
                 Callback<v2::NewSessionResponse> done) {
    new_session(client, std::move(request), std::move(prompt), {}, std::move(done));
}

void new_session(Client& client, v2::NewSessionRequest request, un::SystemPrompt prompt, ToolServers tools,
                 Callback<v2::NewSessionResponse> done) {
    ClientAccess::impl(client).new_session(std::move(request), tools, std::move(prompt), std::move(done));
}

void resume_session(Client& client, v2::ResumeSessionRequest request, un::SystemPrompt prompt,
                    Callback<v2::ResumeSessionResponse> done) {
    resume_session(client, std::move(request), std::move(prompt), {}, std::move(done));
}

void resume_session(Client& client, v2::ResumeSessionRequest request, un::SystemPrompt prompt, ToolServers tools,
                    Callback<v2::ResumeSessionResponse> done) {
    ClientAccess::impl(client).resume_session(std::move(request), tools, std::move(prompt), std::move(done));
}

void list_sessions(Client& client, v2::ListSessionsRequest request, un::SessionArchiveFilter archived,
                   Callback<v2::ListSessionsResponse> done) {
    ClientAccess::impl(client).list_sessions(std::move(request), std::move(archived), std::move(done));
}

un::SessionInfoAdditions additions(const v2::SessionInfo& info) {
    un::SessionInfoAdditions out;
    if (!detail::decode_additions(info.extra_fields, out)) out = un::SessionInfoAdditions();
    return out;
}

void fork_session(Client& client, un::ForkSessionRequest request, Callback<un::ForkSessionResponse> done) {
    fork_session(client, std::move(request), {}, std::move(done));
}

void fork_session(Client& client, un::ForkSessionRequest request, ToolServers tools,
                  Callback<un::ForkSessionResponse> done) {
    Client::Impl& impl = ClientAccess::impl(client);
    SessionRoots roots{request.cwd, request.additionalDirectories.value_or(std::vector<std::string>{})};
    // The tool servers' offer belongs to the request until the agent answered with the fork.
    auto offer = tools.empty() ? nullptr : impl.tools_.prepare(tools);
    detail::ToolEntries entries;
    if (offer) entries = [&impl, &offer](detail::ToolTransport t) { return impl.tools_.start(*offer, t); };
    // The fork is a new session: it joins the model like a session/new answer, and updates
    // for it that arrive first are held for it (CLIENT-MUST-59).
    std::weak_ptr<Client::Impl> weak = impl.weak_from_this();
    auto sent = std::make_shared<bool>(false);
    send<un::ForkSessionResponse>(
        client, method::session_fork,
        [weak, sent, done = std::move(done)](Result<un::ForkSessionResponse> result) {
            auto strong = weak.lock();
            if (strong && !result && *sent) strong->router_.new_session_answered(nullptr);
            done(std::move(result));
        },
        [&](const RequestGate& gate) {
            auto checked = gate.fork_session(std::move(request), entries);
            if (checked) {
                impl.router_.new_session_sent();
                *sent = true;
            }
            return checked;
        },
        [weak, roots, offer](const un::ForkSessionResponse& answer) {
            auto strong = weak.lock();
            if (!strong) return;
            strong->router_.new_session_answered(&answer.sessionId);
            strong->router_.apply_lists(answer.sessionId, answer.configOptions, answer.availableCommands);
            strong->core_.session_roots[answer.sessionId] = roots;
            if (offer) strong->tools_.attach(answer.sessionId, offer);
        });
}

void archive_session(Client& client, un::ArchiveSessionRequest request, Callback<un::ArchiveSessionResponse> done) {
    simple(client, UnstableMethod::archive, method::session_archive, request, std::move(done));
}

void archive_session(Client& client, const std::string& session_id, Callback<un::ArchiveSessionResponse> done) {
    un::ArchiveSessionRequest request;
    request.sessionId = session_id;
    archive_session(client, std::move(request), std::move(done));
}

void unarchive_session(Client& client, un::UnarchiveSessionRequest request,
                       Callback<un::UnarchiveSessionResponse> done) {
    simple(client, UnstableMethod::unarchive, method::session_unarchive, request, std::move(done));
}

void unarchive_session(Client& client, const std::string& session_id, Callback<un::UnarchiveSessionResponse> done) {
    un::UnarchiveSessionRequest request;
    request.sessionId = session_id;
    unarchive_session(client, std::move(request), std::move(done));
}

void session_status(Client& client, un::SessionStatusRequest request, Callback<un::SessionStatusResponse> done) {
    simple(client, UnstableMethod::status, method::session_status, request, std::move(done));
}

void session_status(Client& client, const std::string& session_id, Callback<un::SessionStatusResponse> done) {
    un::SessionStatusRequest request;
    request.sessionId = session_id;
    session_status(client, std::move(request), std::move(done));
}

void set_session_title(Client& client, un::SetSessionTitleRequest request, Callback<un::SetSessionTitleResponse> done) {
    simple(client, UnstableMethod::set_title, method::session_set_title, request, std::move(done));
}

void set_session_title(Client& client, const std::string& session_id, const std::string& title,
                       Callback<un::SetSessionTitleResponse> done) {
    un::SetSessionTitleRequest request;
    request.sessionId = session_id;
    request.title = title;
    set_session_title(client, std::move(request), std::move(done));
}

void auth_status(Client& client, un::AuthStatusRequest request, Callback<un::AuthStatusResponse> done) {
    simple(client, UnstableMethod::auth_status, method::auth_status, request, std::move(done));
}

void auth_status(Client& client, Callback<un::AuthStatusResponse> done) {
    auth_status(client, un::AuthStatusRequest{}, std::move(done));
}

void on_auth_status_update(Client& client, std::function<void(const un::AuthStatusUpdateNotification&)> handler) {
    detail::ClientCore& core = ClientAccess::core(client);
    if (!core.options.unstable) {
        core.log(LogLevel::warning, "auth/status_update handler not installed: ClientOptions::unstable is off");
        return;
    }
    core.rpc->on_notification(std::string(method::auth_status_update), [&core, handler = std::move(handler)](
                                                                           const detail::JsonValue* params) {
        auto keep_alive = core.keep_alive();
        if (core.orphaned) return;
        un::AuthStatusUpdateNotification notification;
        Status decoded =
            params == nullptr ? Status(Errc::protocol_error, "no params") : un::codec::decode(*params, notification);
        if (!decoded) {
            core.log(LogLevel::warning, "an invalid auth/status_update was ignored: " + decoded.message());
            return;
        }
        handler(notification);
    });
}

void list_providers(Client& client, un::ListProvidersRequest request, Callback<un::ListProvidersResponse> done) {
    simple(client, UnstableMethod::providers, method::providers_list, request, std::move(done));
}

void list_providers(Client& client, Callback<un::ListProvidersResponse> done) {
    list_providers(client, un::ListProvidersRequest{}, std::move(done));
}

void set_provider(Client& client, un::SetProviderRequest request, Callback<un::SetProviderResponse> done) {
    simple(client, UnstableMethod::providers, method::providers_set, request, std::move(done));
}

void disable_provider(Client& client, un::DisableProviderRequest request, Callback<un::DisableProviderResponse> done) {
    Client::Impl& impl = ClientAccess::impl(client);
    std::weak_ptr<Client::Impl> weak = impl.weak_from_this();
    Client* self = &client;
    list_providers(client, [weak, self, request = std::move(request),
                            done = std::move(done)](Result<un::ListProvidersResponse> listed) {
        if (!listed) return done(listed.status());
        auto strong = weak.lock();
        if (!strong || strong->core_.orphaned) return;
        send<un::DisableProviderResponse>(*self, method::providers_disable, done, [&](const RequestGate& gate) {
            return gate.disable_provider(request, *listed);
        });
    });
}

void disable_provider(Client& client, const std::string& provider_id, Callback<un::DisableProviderResponse> done) {
    un::DisableProviderRequest request;
    request.providerId = provider_id;
    disable_provider(client, std::move(request), std::move(done));
}

}  // namespace acp::unstable
