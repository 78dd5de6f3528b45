// SPDX-License-Identifier: Apache-2.0
// acp-chat: startup, the connection with the agent, the first session, and the end.
#include "chat.hpp"

#include <signal.h>
#include <unistd.h>
#include <acp/version.hpp>

#include <climits>

namespace chat {

// --connect's URL, --header lines and --ca-file.
acp::RemoteOptions Chat::remote_options() const {
    acp::RemoteOptions remote;
    remote.url = options_.connect;
    remote.ca_file = options_.ca_file;
    for (const std::string& line : options_.headers) {
        auto colon = line.find(':');
        auto value = line.find_first_not_of(" \t", colon + 1);
        remote.headers.emplace_back(line.substr(0, colon), value == std::string::npos ? "" : line.substr(value));
    }
    return remote;
}

int Chat::run() {
    if (options_.cwd.empty()) {
        char buffer[PATH_MAX];
        options_.cwd = getcwd(buffer, sizeof buffer) != nullptr ? buffer : "/";
    }
    const acp::SpawnOptions& agent = options_.spawn;
    acp::ClientOptions client_options;
    client_options.info.name = "acp-chat";
    client_options.info.title = "acp-chat";
    client_options.info.version = acp::version_string();
    client_options.unstable = options_.unstable;
    if (!options_.log_file.empty() && !log_.open(options_.log_file)) {
        error("cannot write " + options_.log_file);
        return exit_usage;
    }
    // A terminal login is the command acp-chat started, run by the user in another
    // terminal: offered only when a user is at this one to read it, and never for an agent
    // on the network (--connect: there is no command to show).
    client_options.auth_terminal = tty_ && options_.connect.empty();
    if (options_.max_line_bytes != 0) client_options.max_line_bytes = options_.max_line_bytes;
    client_options.log = [this](const acp::LogRecord& record) { on_log(record); };
    auto created = options_.connect.empty() ? acp::Client::spawn(loop_, agent, client_options)
                                            : acp::Client::connect(loop_, remote_options(), client_options);
    if (!created) {
        std::string who =
            options_.connect.empty() ? "start the agent `" + sanitize(agent.argv[0]) + "`" : "connect to the agent";
        error("could not " + who + ": " + failure(created.status()));
        return exit_agent_start;
    }
    client_ = std::move(created.value());
    if (log_.is_open()) {
        client_->set_traffic_observer([this](acp::Direction d, std::string_view text, auto) { log_.message(d, text); });
    }
    subscription_ = client_->sessions().subscribe([this](const acp::SessionEvent& e) { on_event(e); });
    client_->on_permission_request(
        [this](const v2::RequestPermissionRequest& request, acp::PermissionResponder responder) {
            on_permission(request, std::move(responder));
        });
    client_->on_closed([this](const acp::Status& why) {
        const acp::AgentExit* exit = why.agent_exit();
        // Said even on the way out: the agent attacked the guard that keeps it in check.
        const std::string guard_report =
            exit != nullptr && !exit->guard_report.empty() ? "libacp: " + sanitize(exit->guard_report) : "";
        if (quitting_) {
            if (!guard_report.empty()) error(guard_report);
            finish_quit();
            return;
        }
        if (!options_.connect.empty() && !initialized_) {
            // Refused, unreachable, or closed before initialize answered: it never started.
            error("could not connect to the agent: " + failure(why));
            quit(exit_agent_start);
            return;
        }
        std::string text = "the agent exited";
        if (exit != nullptr && exit->exited) {
            if (!guard_report.empty()) error(guard_report);
            text += exit->term_signal != 0 ? " on signal " + std::to_string(exit->term_signal)
                                           : " with code " + std::to_string(exit->exit_code);
            if (!exit->stderr_tail.empty()) text += "; its last output on stderr:";
        } else {
            text += ": " + failure(why);
        }
        error(text);
        if (exit != nullptr && exit->exited) gutter_lines(exit->stderr_tail);
        quit(exit_agent_exited);
    });
    uv_prepare_init(loop_, &flush_);
    flush_.data = this;
    uv_prepare_start(&flush_, [](uv_prepare_t* p) {
        static_cast<Chat*>(p->data)->redraw_prompt();
        std::fflush(stdout);
    });
    uv_signal_init(loop_, &sigint_);
    sigint_.data = this;
    uv_signal_start(
        &sigint_, [](uv_signal_t* s, int) { static_cast<Chat*>(s->data)->on_interrupt(); }, SIGINT);
    uv_signal_init(loop_, &sigwinch_);
    sigwinch_.data = this;
    uv_signal_start(
        &sigwinch_,
        [](uv_signal_t* s, int) {
            auto* chat = static_cast<Chat*>(s->data);
            chat->measure_width();
            chat->editor_.resize();
        },
        SIGWINCH);
    measure_width();
    busy_ = true;
    connect();
    start_input();
    uv_run(loop_, UV_RUN_DEFAULT);

    if (!options_.dump_file.empty()) {
        std::ofstream dump(options_.dump_file, std::ios::trunc);
        if (!dump) {
            error("cannot write " + options_.dump_file);
            return exit_error;
        }
        dump << "{";
        bool first = true;
        for (const auto& id : seen_) {
            const acp::SessionState* state = client_->sessions().find(id);
            if (state == nullptr) continue;
            dump << (first ? "" : ",") << "\n" << chat::json_string(id) << ":" << acp::to_json(*state);
            first = false;
        }
        dump << "\n}\n";
    }
    client_.reset();
    return exit_code_;
}

void Chat::on_log(const acp::LogRecord& record) {
    if (record.level == acp::LogLevel::debug) return;
    log_.log(record);
    // Kept for /stderr, bounded: the last lines, each cut short.
    constexpr std::size_t kKeptLines = 500, kLineBytes = 4096;
    const bool from_agent = record.source == acp::log_source::agent_stderr;
    std::string text = from_agent ? std::string(record.message)
                                  : std::string(acp::log_level_name(record.level)) + " [" + std::string(record.source) +
                                        "] " + std::string(record.message);
    if (text.size() > kLineBytes) text = text.substr(0, kLineBytes) + "...";
    stderr_lines_.push_back(std::move(text));
    if (stderr_lines_.size() > kKeptLines) stderr_lines_.pop_front();
    // libacp's errors (a message over the line limit, malformed JSON) concern what is on
    // screen, a turn cut short: said right away, not only in /stderr.
    if (!from_agent && record.level == acp::LogLevel::error && !quitting_) {
        error("libacp: " + sanitize(record.message.substr(0, 300)));
    }
}

void Chat::show_stderr() {
    if (stderr_lines_.empty()) {
        line("nothing on the agent's stderr, no libacp warnings");
        return;
    }
    for (const auto& l : stderr_lines_) line(style_.paint(Color::dim, "  | ") + sanitize(l));
}

void Chat::connect() {
    client_->initialize([this](acp::Result<v2::InitializeResponse> r) {
        if (!r) {
            if (r.status().code() == acp::Errc::connection_closed) return;  // on_closed reports it
            error("initialize failed: " + failure(r.status()));
            quit(r.status().code() == acp::Errc::unsupported ? exit_protocol : exit_error);
            return;
        }
        initialized_ = true;
        const v2::Implementation& info = r->info;
        line(style_.paint(Color::bold, "connected to " + sanitize(info.title.has_value() ? *info.title : info.name) +
                                           " " + sanitize(info.version)) +
             " (ACP v" + std::to_string(r->protocolVersion) + "); /help lists the commands");
        // The agent's sessions for Tab after /resume (an agent without session/list: none).
        if (tty_) {
            client_->list_all_sessions(std::nullopt, [this](acp::Result<std::vector<v2::SessionInfo>> listed) {
                if (listed) remember_sessions(*listed);
            });
        }
        // --resume SESSION: that session instead of a new one.
        if (!options_.resume.empty()) {
            resume(options_.resume);
            return;
        }
        new_session();
    });
}

void Chat::new_session() {
    v2::NewSessionRequest request;
    request.cwd = options_.cwd;
    if (!directories_.empty()) request.additionalDirectories = directories_;
    if (!mcp_servers_.empty()) request.mcpServers = mcp_servers_;
    busy_ = true;
    expect_new_ = true;
    Roots roots{request.cwd, directories_};
    client_->new_session(request, [this, roots](acp::Result<v2::NewSessionResponse> r) {
        expect_new_ = false;
        if (!r) {
            if (acp::is_auth_required(r.status())) {
                const auto* agent = client_->agent();
                if (!options_.login.empty()) {
                    const std::string method = options_.login;
                    options_.login.clear();  // one attempt
                    client_->login(method, [this, method](acp::Result<v2::LoginAuthResponse> login) {
                        if (!login) {
                            error("login with " + method + " failed: " + failure(login.status()));
                            quit(exit_auth_required);
                            return;
                        }
                        line("logged in with " + method);
                        new_session();
                    });
                    return;
                }
                std::string methods;
                bool agent_method = false;
                if (agent != nullptr && agent->authMethods.has_value()) {
                    for (const auto& m : *agent->authMethods) {
                        if (const auto* a = m.agent()) {
                            agent_method = true;
                            methods += "\n  " + sanitize(a->methodId) + " (" + sanitize(a->name) +
                                       (a->description.has_value() ? ": " + sanitize(*a->description) : "") + ")";
                        } else if (const auto* t = m.terminal()) {
                            // Only for a client that advertised auth.terminal (AGENT-MUST-04).
                            methods += "\n  " + sanitize(t->methodId) + " (" + sanitize(t->name) +
                                       (t->description.has_value() ? ": " + sanitize(*t->description) : "") + ")";
                            std::string why;
                            const bool asked = tty_ && options_.connect.empty();
                            const std::string command =
                                asked ? terminal_login_line(options_.spawn.argv, *t, why) : std::string();
                            if (!asked) {
                                methods += ": ignored, a terminal login acp-chat did not ask for";
                            } else if (command.empty()) {
                                methods += ": refused, " + why;
                            } else {
                                methods += ": run this in a terminal, then start acp-chat again:\n    " + command;
                                // Quoted, a value cannot break out of its word; but some
                                // variables change what runs, which the line does not say.
                                const std::vector<std::string> risky = env_changing_what_runs(*t);
                                std::string names;
                                for (const auto& name : risky) names += (names.empty() ? "" : ", ") + name;
                                if (!risky.empty()) {
                                    methods += "\n    careful: it sets " + names +
                                               (risky.size() == 1 ? ", which changes" : ", which change") +
                                               " what code runs (programs, libraries, startup files); check " +
                                               (risky.size() == 1 ? "its value" : "their values") +
                                               " before you run it";
                                }
                            }
                        } else {
                            methods += "\n  a method of type " + sanitize(m.tag()) + ", which acp-chat cannot use";
                        }
                    }
                }
                error("the agent requires authentication; it offers:" + (methods.empty() ? " nothing" : methods) +
                      (agent_method ? "\nrun acp-chat with --login METHOD" : ""));
                quit(exit_auth_required);
                return;
            }
            if (r.status().code() == acp::Errc::connection_closed) return;
            error("cannot start a session: " + failure(r.status()));
            if (!mcp_servers_.empty()) {
                mcp_servers_.clear();
                line("the MCP servers added with /mcp were dropped");
            }
            if (session_.empty() && !tty_ && queue_.empty() && input_eof_) quit(exit_error);
            done();
            return;
        }
        if (session_ != r->sessionId) {
            session_ = r->sessionId;
            shown_.clear();
        }
        roots_ = roots;
        line(style_.paint(Color::dim, "session " + sanitize(session_) + " in " + sanitize(options_.cwd)));
        done();
    });
}

// --- the end ---------------------------------------------------------------------------------------

void Chat::quit(int code) {
    if (quitting_) return;
    quitting_ = true;
    exit_code_ = code;
    end_stream();
    if (permission_) permission_->responder.cancel();
    for (const auto& waiting : waiting_permissions_) waiting.responder.cancel();
    permission_.reset();
    waiting_permissions_.clear();
    if (input_ != nullptr) {
        // libuv's saved mode may be the quiet one: the editor restores the one at start.
        if (tty_) uv_tty_reset_mode();
        editor_.close();
        uv_read_stop(input_);
        uv_close(reinterpret_cast<uv_handle_t*>(input_), nullptr);
    }
    // Ctrl-C stays ours until the agent is gone (stop_agent()).
    if (client_->is_closed()) {
        finish_quit();
    } else {
        if (tty_) line(style_.paint(Color::dim, "(closing the agent)"));
        client_->close();
    }
}

void Chat::stop_agent() {
    // libacp's shutdown ladder is under way (stdin closed, then terminate, then the agent's
    // whole tree killed, with a grace period each): each Ctrl-C takes the next step now. A
    // remote agent has no ladder: its connection is closing already.
    if (!options_.connect.empty() || client_->is_closed() || stop_requests_ >= 2) return;
    ++stop_requests_;
    client_->hasten_close();
    line(style_.paint(Color::yellow,
                      stop_requests_ == 1 ? "(asked the agent to stop; Ctrl-C again kills it)" : "(killed the agent)"));
}

void Chat::finish_quit() {
    subscription_.reset();
    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(&sigint_))) {
        uv_close(reinterpret_cast<uv_handle_t*>(&sigint_), nullptr);
        uv_close(reinterpret_cast<uv_handle_t*>(&sigwinch_), nullptr);
        uv_close(reinterpret_cast<uv_handle_t*>(&flush_), [](uv_handle_t*) { std::fflush(stdout); });
    }
}

}  // namespace chat
