// SPDX-License-Identifier: Apache-2.0
// acp/unstable.hpp — the unstable ACP surface (CLIENT-GUIDE 4.14), behind an explicit opt-in.
//
// What the unstable schema adds to ACP v2 and agents already offer: forking a session,
// archiving, a session's status, renaming, a system prompt on new/resume/fork, the auth
// status, LLM provider routing. The schema may still change, so nothing here is used
// unless the host sets ClientOptions::unstable; then each call is sent only when the agent
// advertises its capability (the same gate as every other request), and refused before
// sending otherwise. The types are acp::v2::unstable (acp/v2/unstable.hpp). A v1 agent's
// unstable capabilities count the same, and the calls reach it in the shapes of v1's
// unstable schema (docs/unstable.md). What the unstable schema adds to session updates
// reaches the session model (docs/session-model.md).
//
//   acp::ClientOptions options;
//   options.unstable = true;
//   auto client = acp::Client::spawn(loop, agent, options);
//   ... initialize, new_session ...
//   acp::v2::unstable::ForkSessionRequest fork;
//   fork.sessionId = "sess-1";
//   fork.cwd = "/home/me/project";
//   acp::unstable::fork_session(**client, fork, [](acp::Result<acp::v2::unstable::ForkSessionResponse> r) {
//       if (r) open_tab(r->sessionId);   // a new session in client->sessions()
//   });
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "acp/client.hpp"
#include "acp/export.hpp"
#include "acp/v2/unstable.hpp"

namespace acp::unstable {

namespace un = ::acp::v2::unstable;

// What the agent advertises of the unstable surface (all false without the opt-in and
// before initialize).
struct Offer {
    bool fork = false;
    bool archive = false;  // session/archive, session/unarchive, the session/list archived filter
    bool status = false;
    bool title = false;
    bool system_prompt = false;           // append mode
    bool system_prompt_override = false;  // override mode as well
    bool auth_status = false;
    bool providers = false;
};
ACP_EXPORT Offer offer(const Client& client);

// session/new, session/resume and session/list with their unstable members; prompt:
// text blocks only, none empty, `override` only when advertised.
ACP_EXPORT void new_session(Client& client, v2::NewSessionRequest request, un::SystemPrompt prompt,
                            Callback<v2::NewSessionResponse> done);
ACP_EXPORT void resume_session(Client& client, v2::ResumeSessionRequest request, un::SystemPrompt prompt,
                               Callback<v2::ResumeSessionResponse> done);
// A system prompt and the host's tool servers together (Client::new_session with tools).
ACP_EXPORT void new_session(Client& client, v2::NewSessionRequest request, un::SystemPrompt prompt, ToolServers tools,
                            Callback<v2::NewSessionResponse> done);
ACP_EXPORT void resume_session(Client& client, v2::ResumeSessionRequest request, un::SystemPrompt prompt,
                               ToolServers tools, Callback<v2::ResumeSessionResponse> done);
// Keep the filter the same while following nextCursor.
ACP_EXPORT void list_sessions(Client& client, v2::ListSessionsRequest request, un::SessionArchiveFilter archived,
                              Callback<v2::ListSessionsResponse> done);
// A session's unstable members (SessionInfo.archived) from a listed SessionInfo.
ACP_EXPORT un::SessionInfoAdditions additions(const v2::SessionInfo& info);

// A new session with the context of an existing one, active at once (no resume needed):
// it is a new session in client.sessions(), with the roots the request gives.
ACP_EXPORT void fork_session(Client& client, un::ForkSessionRequest request, Callback<un::ForkSessionResponse> done);
// The fork with the host's tool servers (acp/tools.hpp), served for it as for new_session.
ACP_EXPORT void fork_session(Client& client, un::ForkSessionRequest request, ToolServers tools,
                             Callback<un::ForkSessionResponse> done);
ACP_EXPORT void archive_session(Client& client, const std::string& session_id,
                                Callback<un::ArchiveSessionResponse> done);
// Never resumes the session.
ACP_EXPORT void unarchive_session(Client& client, const std::string& session_id,
                                  Callback<un::UnarchiveSessionResponse> done);
// Side-effect free. `open` does not mean attached to this connection (resume before
// prompting); an unknown status means `saved`; a missing state is not idle.
ACP_EXPORT void session_status(Client& client, const std::string& session_id, Callback<un::SessionStatusResponse> done);
// Show the returned title: the agent may normalise it.
ACP_EXPORT void set_session_title(Client& client, const std::string& session_id, const std::string& title,
                                  Callback<un::SetSessionTitleResponse> done);

// The calls above with their whole request, its _meta included.
ACP_EXPORT void archive_session(Client& client, un::ArchiveSessionRequest request,
                                Callback<un::ArchiveSessionResponse> done);
ACP_EXPORT void unarchive_session(Client& client, un::UnarchiveSessionRequest request,
                                  Callback<un::UnarchiveSessionResponse> done);
ACP_EXPORT void session_status(Client& client, un::SessionStatusRequest request,
                               Callback<un::SessionStatusResponse> done);
ACP_EXPORT void set_session_title(Client& client, un::SetSessionTitleRequest request,
                                  Callback<un::SetSessionTitleResponse> done);

// Accounts are display-only: never log them or use them as ids.
ACP_EXPORT void auth_status(Client& client, Callback<un::AuthStatusResponse> done);
ACP_EXPORT void auth_status(Client& client, un::AuthStatusRequest request, Callback<un::AuthStatusResponse> done);
// auth/status_update notifications (install before initialize, like every handler).
ACP_EXPORT void on_auth_status_update(Client& client,
                                      std::function<void(const un::AuthStatusUpdateNotification&)> handler);

ACP_EXPORT void list_providers(Client& client, Callback<un::ListProvidersResponse> done);
ACP_EXPORT void list_providers(Client& client, un::ListProvidersRequest request,
                               Callback<un::ListProvidersResponse> done);
ACP_EXPORT void set_provider(Client& client, un::SetProviderRequest request, Callback<un::SetProviderResponse> done);
// Asks providers/list first and refuses, without sending providers/disable, a provider the
// agent lists as required.
ACP_EXPORT void disable_provider(Client& client, const std::string& provider_id,
                                 Callback<un::DisableProviderResponse> done);
ACP_EXPORT void disable_provider(Client& client, un::DisableProviderRequest request,
                                 Callback<un::DisableProviderResponse> done);

}  // namespace acp::unstable
