// SPDX-License-Identifier: Apache-2.0
// acp-chat: the slash commands and prompts.
#include "chat.hpp"

#include "agents.hpp"

#include <algorithm>

namespace chat {

void Chat::handle(const std::string& text) {
    if (text.empty()) return;
    if (text[0] != '/') {
        send_prompt(text);
        return;
    }
    const std::vector<std::string> words = split_words(text);
    const std::string& command = words[0];
    const std::string arg = words.size() > 1 ? text.substr(text.find(words[1], command.size())) : "";
    if (command == "/help") {
        line(kCommands);
        if (const auto offered = unstable_commands(); !offered.empty()) {
            line("the agent's unstable commands (--unstable):");
            for (const auto& name : offered) line("  " + std::string(unstable_help(name)));
        }
        if (const acp::SessionState* s = session_.empty() ? nullptr : client_->sessions().find(session_);
            s != nullptr && s->available_commands().has_value()) {
            line("the agent's commands:");
            for (const auto& c : *s->available_commands()) {
                if (const auto* cmd = c.command())
                    line("  /" + sanitize(cmd->name) + "  " + sanitize(cmd->description));
            }
        }
    } else if (command == "/quit" || command == "/exit") {
        quit(exit_code_);
    } else if (command == "/agents") {
        for (const std::string& entry : agent_lines(catalogue_, options_.agent_name)) line(entry);
        line(style_.paint(Color::dim,
                          "start one with acp-chat NAME; the user's agents: " + sanitize(acp::user_agents_path())));
    } else if (command == "/image" && words.size() >= 2) {
        send_image(words, arg);
    } else if (command == "/new") {
        new_session();
    } else if (command == "/stderr") {
        show_stderr();
    } else if (command == "/sessions") {
        list_sessions();
    } else if (command == "/resume" && words.size() == 2) {
        resume(words[1]);
    } else if (command == "/history") {
        history(words);
    } else if (command == "/close") {
        close_session();
    } else if (command == "/delete" && words.size() == 2) {
        delete_session(words[1]);
    } else if (command == "/config") {
        config(words);
    } else if (command == "/cwd") {
        if (!arg.empty()) options_.cwd = absolute(options_.cwd, arg);
        line("working directory for /new: " + sanitize(options_.cwd));
    } else if (command == "/add-dir" && !arg.empty()) {
        add_dir(arg);
    } else if (command == "/mcp" && words.size() >= 3) {
        add_mcp(words);
    } else if (unstable_command(words, arg)) {
        // handled (or refused with the reason)
    } else {
        // One of the agent's slash commands goes to the agent as a prompt.
        const acp::SessionState* s = session_.empty() ? nullptr : client_->sessions().find(session_);
        if (s != nullptr && s->available_commands().has_value()) {
            for (const auto& c : *s->available_commands()) {
                if (const auto* cmd = c.command(); cmd != nullptr && "/" + cmd->name == command) {
                    send_prompt(text);
                    return;
                }
            }
        }
        error("unknown command or missing argument: " + sanitize(text) + " (/help lists the commands)");
    }
}

// --- commands -----------------------------------------------------------------------------------

void Chat::send_image(const std::vector<std::string>& words, const std::string& arg) {
    const auto* agent = client_->agent();
    if (agent == nullptr || !agent->capabilities.has_value() || !agent->capabilities->session.has_value() ||
        !agent->capabilities->session->prompt.has_value() || !agent->capabilities->session->prompt->image.has_value()) {
        error("the agent takes no images (it does not advertise prompt.image)");
        return;
    }
    std::string why;
    const std::string path = absolute(roots_.cwd.empty() ? options_.cwd : roots_.cwd, words[1]);
    std::optional<v2::ContentBlock> image = image_block(path, why);
    if (!image) {
        error("not sent: " + sanitize(why));
        return;
    }
    line(style_.paint(Color::dim, "attached " + sanitize(words[1]) + " (" + image->image()->mimeType + ")"));
    // The words after the path are the prompt's text.
    const std::size_t rest = arg.find_first_not_of(" \t", words[1].size());
    send_prompt(rest == std::string::npos ? words[1] : arg.substr(rest), std::move(image));
}

void Chat::send_prompt(const std::string& text, std::optional<v2::ContentBlock> image) {
    if (session_.empty()) {
        error("no session: /new or /resume ID first");
        return;
    }
    const auto* agent = client_->agent();
    const bool embed = agent != nullptr && agent->capabilities.has_value() &&
                       agent->capabilities->session.has_value() && agent->capabilities->session->prompt.has_value() &&
                       agent->capabilities->session->prompt->embeddedContext.has_value();
    Attachments attachments = attach(text, roots_, embed);
    if (!attachments.error.empty()) {
        error("not sent: " + attachments.error);
        return;
    }
    for (const auto& note : attachments.notes) line(style_.paint(Color::dim, note));
    v2::PromptRequest request;
    request.sessionId = session_;
    request.prompt = std::move(attachments.blocks);
    if (image) request.prompt.push_back(std::move(*image));
    if (tty_) {
        // A sign of work until the agent's first output, which erases it (write()).
        end_stream();
        write(style_.paint(Color::dim, kWaiting));
        waiting_shown_ = true;
    }
    busy_ = true;
    turn_running_ = true;
    uv_update_time(loop_);
    turn_started_ms_ = uv_now(loop_);
    const unsigned turn = ++turns_sent_;
    cancel_sent_ = false;
    client_->prompt(request, [this, turn](acp::Result<v2::PromptResponse> r) {
        if (!r) {
            if (r.status().code() == acp::Errc::connection_closed) return;
            // A v1 agent's failed turn has already ended (idle with the error on the
            // status line) and the next line may be running: nothing more to say.
            if (turn != turns_sent_ || !turn_running_) return;
            // A v2 agent refused the prompt: the turn never started.
            error(r.status().code() == acp::Errc::cancelled ? "prompt withdrawn"
                                                            : "prompt failed: " + failure(r.status()));
            turn_running_ = false;
            done();
        }
        // Otherwise the turn goes on until the session reports idle (turn_ended).
    });
}

void Chat::remember_sessions(const std::vector<v2::SessionInfo>& sessions) {
    for (const auto& info : sessions) {
        // Hostile ids: only one that shows as itself and is one word is offered; bounded.
        if (listed_.size() >= 1000) break;
        if (!info.sessionId.empty() && sanitize(info.sessionId) == info.sessionId &&
            info.sessionId.find_first_of(" \t") == std::string::npos) {
            listed_.insert(info.sessionId);
        }
    }
}

std::vector<std::string> Chat::complete(const std::string& word, bool first, const std::string& command) const {
    if (!word.empty() && word[0] == '@') return complete_path(word, roots_.cwd);
    if (command == "/resume" || command == "/delete") {
        std::set<std::string> ids = listed_;
        for (const auto& id : seen_) {
            if (sanitize(id) == id && id.find_first_of(" \t") == std::string::npos) ids.insert(id);
        }
        std::vector<std::string> matching;
        for (const auto& id : ids) {
            if (id.compare(0, word.size(), word) == 0) matching.push_back(id);
        }
        return matching;
    }
    if (!first || word.empty() || word[0] != '/') return {};
    std::vector<std::string> names = {"/agents",  "/image", "/new",    "/sessions", "/resume",
                                      "/history", "/close", "/delete", "/config",   "/cwd",
                                      "/add-dir", "/mcp",   "/stderr", "/help",     "/quit"};
    for (auto& name : unstable_commands()) names.push_back(std::move(name));
    if (const acp::SessionState* s = session_.empty() ? nullptr : client_->sessions().find(session_);
        s != nullptr && s->available_commands().has_value()) {
        for (const auto& c : *s->available_commands()) {
            // The agent's names are hostile: one that would not show as itself is not offered.
            if (const auto* cmd = c.command(); cmd != nullptr && !cmd->name.empty() &&
                                               sanitize(cmd->name) == cmd->name &&
                                               cmd->name.find_first_of(" \t") == std::string::npos) {
                names.push_back("/" + cmd->name);
            }
        }
    }
    std::vector<std::string> matching;
    for (auto& name : names) {
        if (name.compare(0, word.size(), word) == 0 &&
            std::find(matching.begin(), matching.end(), name) == matching.end()) {
            matching.push_back(std::move(name));
        }
    }
    std::sort(matching.begin(), matching.end());
    return matching;
}

void Chat::list_sessions() {
    busy_ = true;
    client_->list_all_sessions(std::nullopt, [this](acp::Result<std::vector<v2::SessionInfo>> r) {
        if (!r) {
            error("cannot list sessions: " + failure(r.status()));
        } else if (r->empty()) {
            line("no sessions");
        } else {
            remember_sessions(*r);
            for (const auto& info : *r) {
                line(std::string(info.sessionId == session_ ? "* " : "  ") + sanitize(info.sessionId) + "  " +
                     (info.title.has_value() ? "\"" + sanitize(*info.title) + "\"" : "(untitled)") + "  " +
                     sanitize(info.cwd) + (info.updatedAt.has_value() ? "  " + sanitize(*info.updatedAt) : ""));
            }
        }
        done();
    });
}

void Chat::resume(const std::string& id) {
    busy_ = true;
    // session/resume needs the session's own cwd: ask the agent for it first.
    client_->list_all_sessions(std::nullopt, [this, id](acp::Result<std::vector<v2::SessionInfo>> listed) {
        v2::ResumeSessionRequest request;
        request.sessionId = id;
        request.cwd = options_.cwd;
        if (listed) {
            for (const auto& info : *listed) {
                if (info.sessionId != id) continue;
                request.cwd = info.cwd;
                // Its directories again, and the MCP servers set up with /mcp.
                if (agent_supports_directories()) request.additionalDirectories = info.additionalDirectories;
            }
        }
        if (!mcp_servers_.empty()) request.mcpServers = mcp_servers_;
        request.replayFrom = v2::ReplayFrom::make_start({});
        const std::string previous = session_;
        session_ = id;
        shown_.clear();
        // The whole history goes into the model; the screen gets its last turns at the end.
        hiding_replay_ = true;
        line(style_.paint(Color::dim, "resuming " + sanitize(id)));
        Roots roots{request.cwd, request.additionalDirectories.value_or(std::vector<std::string>{})};
        client_->resume_session(request, [this, id, previous, roots](acp::Result<v2::ResumeSessionResponse> r) {
            hiding_replay_ = false;
            if (!r) {
                error("cannot resume " + sanitize(id) + ": " + failure(r.status()));
                session_ = previous;
            } else {
                roots_ = roots;
                if (const acp::SessionState* s = client_->sessions().find(id)) {
                    show_history(*s, options_.resume_turns, "resumed " + sanitize(id));
                } else {
                    line(style_.paint(Color::dim, "resumed " + sanitize(id)));
                }
            }
            done();
        });
    });
}

void Chat::history(const std::vector<std::string>& words) {
    const acp::SessionState* s = session_.empty() ? nullptr : client_->sessions().find(session_);
    if (s == nullptr) {
        error("no session: /new or /resume ID first");
        return;
    }
    std::size_t turns = kAllTurns;
    if (words.size() > 2 ||
        (words.size() == 2 && (words[1].find_first_not_of("0123456789") != std::string::npos || words[1].size() > 9))) {
        error("usage: /history [N]");
        return;
    }
    if (words.size() == 2) turns = std::stoul(words[1]);
    // Drawn afresh: what is on screen of the live items stays as it was for their updates.
    end_stream();
    std::map<std::string, Shown> live = std::move(shown_);
    shown_.clear();
    show_history(*s, turns, "session " + sanitize(session_));
    shown_ = std::move(live);
}

void Chat::close_session() {
    if (session_.empty()) {
        error("no session to close");
        return;
    }
    busy_ = true;
    const std::string id = session_;
    client_->close_session(id, [this, id](acp::Result<v2::CloseSessionResponse> r) {
        if (!r) {
            error("cannot close " + sanitize(id) + ": " + failure(r.status()));
        } else {
            line("closed " + sanitize(id));
            if (session_ == id) session_.clear();
        }
        done();
    });
}

void Chat::delete_session(const std::string& id) {
    busy_ = true;
    client_->delete_session(id, [this, id](acp::Result<v2::DeleteSessionResponse> r) {
        if (!r) {
            error("cannot delete " + sanitize(id) + ": " + failure(r.status()));
        } else {
            line("deleted " + sanitize(id));
            if (session_ == id) session_.clear();
        }
        done();
    });
}

void Chat::config(const std::vector<std::string>& words) {
    const acp::SessionState* s = session_.empty() ? nullptr : client_->sessions().find(session_);
    if (s == nullptr || !s->config_options().has_value() || s->config_options()->empty()) {
        error("the session has no config options");
        return;
    }
    if (words.size() == 1) {
        for (const auto& option : *s->config_options()) {
            std::string text = "  " + option.configId + " = ";
            if (const auto* select = option.type.select()) {
                text += select->currentValue + "  (one of:";
                std::vector<v2::SessionConfigSelectOption> values;
                if (const auto* flat = select->options.options()) values = *flat;
                if (const auto* groups = select->options.groups()) {
                    for (const auto& g : *groups) values.insert(values.end(), g.options.begin(), g.options.end());
                }
                for (const auto& v : values) text += " " + v.value;
                text += ")";
            } else if (const auto* boolean = option.type.boolean()) {
                text += boolean->currentValue ? "true  (true or false)" : "false  (true or false)";
            } else {
                text += "(" + option.type.tag() + ")";
            }
            line(sanitize(text + "  " + option.name));  // all of it the agent's
        }
        return;
    }
    if (words.size() != 3) {
        error("usage: /config [ID VALUE]");
        return;
    }
    v2::SetSessionConfigOptionRequest request;
    request.sessionId = session_;
    request.configId = words[1];
    const v2::SessionConfigOption* option = nullptr;
    for (const auto& o : *s->config_options()) {
        if (o.configId == words[1]) option = &o;
    }
    if (option != nullptr && option->type.boolean() != nullptr) {
        const std::set<std::string> yes{"true", "on", "yes", "1"}, no{"false", "off", "no", "0"};
        if (yes.count(words[2]) == 0 && no.count(words[2]) == 0) {
            error(words[1] + " is true or false, not " + words[2]);
            return;
        }
        const bool on = yes.count(words[2]) != 0;
        request.type = v2::SetSessionConfigOptionRequestType::make_boolean({on, {}});
    } else {
        request.type = v2::SetSessionConfigOptionRequestType::make_id({words[2], {}});
    }
    busy_ = true;
    client_->set_config_option(request, [this, words](acp::Result<v2::SetSessionConfigOptionResponse> r) {
        if (!r) {
            error("cannot set " + sanitize(words[1]) + ": " + failure(r.status()));
        } else {
            line(words[1] + " = " + words[2]);
        }
        done();
    });
}

bool Chat::agent_supports_directories() const {
    const auto* agent = client_->agent();
    return agent != nullptr && agent->capabilities.has_value() && agent->capabilities->session.has_value() &&
           agent->capabilities->session->additionalDirectories.has_value();
}

void Chat::add_dir(const std::string& path) {
    if (!agent_supports_directories()) {
        error(
            "refused: the agent does not support additional directories (it did not advertise "
            "session.additionalDirectories)");
        return;
    }
    directories_.push_back(absolute(options_.cwd, path));
    line("added " + directories_.back() + " for the next /new");
}

void Chat::add_mcp(const std::vector<std::string>& words) {
    const std::string& target = words[2];
    const bool http = target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0;
    // Refused here with the reason, before /new; libacp refuses it again when sending
    // (CLIENT-MUST-33) should the agent's capabilities say otherwise by then.
    const auto* agent = client_->agent();
    const v2::McpCapabilities* mcp = agent != nullptr && agent->capabilities.has_value() &&
                                             agent->capabilities->session.has_value() &&
                                             agent->capabilities->session->mcp.has_value()
                                         ? &*agent->capabilities->session->mcp
                                         : nullptr;
    if (mcp == nullptr || !(http ? mcp->http.has_value() : mcp->stdio.has_value())) {
        error(std::string("refused: the agent does not support MCP servers over ") + (http ? "http" : "stdio") +
              " (it did not advertise session.mcp." + (http ? "http" : "stdio") + ")");
        return;
    }
    if (http) {
        v2::McpServerHttp server;
        server.name = words[1];
        server.url = target;
        mcp_servers_.push_back(v2::McpServer::make_http(std::move(server)));
    } else {
        v2::McpServerStdio server;
        server.name = words[1];
        server.command = resolve_command(options_.cwd, target);
        if (server.command.empty()) {
            error("refused: " + target + " is not an executable on PATH");
            return;
        }
        server.args = std::vector<std::string>(words.begin() + 3, words.end());
        mcp_servers_.push_back(v2::McpServer::make_stdio(std::move(server)));
    }
    line("MCP server " + words[1] + " added for the next /new");
}

}  // namespace chat
