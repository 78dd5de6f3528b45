// SPDX-License-Identifier: Apache-2.0
// acp-chat: the commands of the agent's unstable ACP surface (acp/unstable.hpp), with
// --unstable only, each offered where the agent advertises it: /fork, /title, /archive,
// /unarchive, /status, /providers.
#include <acp/unstable.hpp>

#include <algorithm>

#include "chat.hpp"

namespace chat {

namespace un = acp::v2::unstable;

std::vector<std::string> Chat::unstable_commands() const {
    std::vector<std::string> names;
    if (!client_ || client_->agent() == nullptr) return names;
    const acp::unstable::Offer offer = acp::unstable::offer(*client_);
    if (offer.fork) names.push_back("/fork");
    if (offer.title) names.push_back("/title");
    if (offer.archive) {
        names.push_back("/archive");
        names.push_back("/unarchive");
    }
    if (offer.status) names.push_back("/status");
    if (offer.providers) names.push_back("/providers");
    return names;
}

bool Chat::unstable_command(const std::vector<std::string>& words, const std::string& arg) {
    const std::string& command = words[0];
    const std::vector<std::string> offered = unstable_commands();
    const bool known = command == "/fork" || command == "/title" || command == "/archive" || command == "/unarchive" ||
                       command == "/status" || command == "/providers";
    if (!known) return false;
    if (std::find(offered.begin(), offered.end(), command) == offered.end()) {
        error(command + ": " +
              (options_.unstable ? "the agent does not offer it"
                                 : "a command of the agent's unstable surface: start acp-chat with --unstable"));
        return true;
    }
    // The current session, or the one named.
    const std::string target = words.size() > 1 && command != "/title" && command != "/providers" ? words[1] : session_;
    if (target.empty() && command != "/providers") {
        error(command + ": no session");
        return true;
    }
    busy_ = true;
    if (command == "/fork") {
        fork_session();
    } else if (command == "/title") {
        if (arg.empty()) {
            error("/title TEXT: the new title");
            done();
            return true;
        }
        acp::unstable::set_session_title(*client_, target, arg, [this](acp::Result<un::SetSessionTitleResponse> r) {
            // The agent may normalise the title: show the one it stored.
            if (!r)
                error("cannot set the title: " + failure(r.status()));
            else
                line("title: \"" + sanitize(r->title) + "\"");
            done();
        });
    } else if (command == "/archive" || command == "/unarchive") {
        const bool archive = command == "/archive";
        auto report = [this, target, archive](const acp::Status& status) {
            if (!status)
                error(std::string("cannot ") + (archive ? "archive " : "unarchive ") + sanitize(target) + ": " +
                      failure(status));
            else
                line((archive ? "archived " : "unarchived ") + sanitize(target));
            done();
        };
        if (archive) {
            acp::unstable::archive_session(*client_, target,
                                           [report](acp::Result<un::ArchiveSessionResponse> r) { report(r.status()); });
        } else {
            acp::unstable::unarchive_session(
                *client_, target, [report](acp::Result<un::UnarchiveSessionResponse> r) { report(r.status()); });
        }
    } else if (command == "/status") {
        acp::unstable::session_status(*client_, target, [this, target](acp::Result<un::SessionStatusResponse> r) {
            if (!r) {
                error("cannot ask the status of " + sanitize(target) + ": " + failure(r.status()));
            } else {
                // An unknown status means saved; a missing state is not idle (the guide).
                const std::string status = r->status.value == un::SessionStatus::open ? "open" : "saved";
                line(sanitize(target) + ": " + status + ", " +
                     (r->state.has_value() ? "state " + sanitize(r->state->tag()) : std::string("state not known")));
            }
            done();
        });
    } else {
        providers(words);
    }
    return true;
}

void Chat::fork_session() {
    un::ForkSessionRequest request;
    request.sessionId = session_;
    request.cwd = roots_.cwd;
    if (!roots_.additional.empty()) request.additionalDirectories = roots_.additional;
    if (!mcp_servers_.empty()) request.mcpServers = mcp_servers_;
    const std::string source = session_;
    acp::unstable::fork_session(*client_, request, [this, source](acp::Result<un::ForkSessionResponse> r) {
        if (!r) {
            error("cannot fork " + sanitize(source) + ": " + failure(r.status()));
        } else {
            // The fork is active at once, with the source's history on the agent's side.
            session_ = r->sessionId;
            shown_.clear();
            line("forked " + sanitize(source) + " as " + sanitize(r->sessionId) + "; prompts go to the fork");
        }
        done();
    });
}

void Chat::providers(const std::vector<std::string>& words) {
    if (words.size() == 3 && words[1] == "disable") {
        const std::string id = words[2];
        // libacp asks providers/list first and never disables a required one.
        acp::unstable::disable_provider(*client_, id, [this, id](acp::Result<un::DisableProviderResponse> r) {
            if (!r)
                error("cannot disable " + sanitize(id) + ": " + failure(r.status()));
            else
                line("disabled " + sanitize(id));
            done();
        });
        return;
    }
    if (words.size() == 5 && words[1] == "set") {
        un::SetProviderRequest request;
        request.providerId = words[2];
        request.apiType = words[3];
        request.baseUrl = words[4];
        const std::string id = words[2];
        acp::unstable::set_provider(*client_, request, [this, id](acp::Result<un::SetProviderResponse> r) {
            if (!r)
                error("cannot set " + sanitize(id) + ": " + failure(r.status()));
            else
                line("set " + sanitize(id));
            done();
        });
        return;
    }
    if (words.size() != 1) {
        error("/providers [set ID API_TYPE BASE_URL | disable ID]");
        done();
        return;
    }
    acp::unstable::list_providers(*client_, [this](acp::Result<un::ListProvidersResponse> r) {
        if (!r) {
            error("cannot list providers: " + failure(r.status()));
        } else if (r->providers.empty()) {
            line("no providers");
        } else {
            for (const auto& p : r->providers) {
                std::string text = "  " + sanitize(p.providerId) + (p.required ? " (required)" : "");
                if (p.current.has_value()) {
                    text += "  " + sanitize(p.current->apiType.value) + " " + sanitize(p.current->baseUrl);
                } else {
                    text += "  disabled";
                }
                line(text);
            }
        }
        done();
    });
}

}  // namespace chat
