// SPDX-License-Identifier: Apache-2.0
// acp-chat: a line-oriented terminal client for any ACP agent, on libacp's public C++ API.
//
//   acp-chat [options] [-- AGENT COMMAND...]
//
// Without an agent command it starts the demo agent (acp-demo-agent next to this binary,
// else the one it was built with). Everything shown comes from the session model the
// Client keeps (acp::SessionStore events): streamed replies, dimmed thoughts, tool calls
// with status and kind, coloured diffs, plans as checklists, terminal output, a status
// line after each turn. On a terminal a permission prompt takes one key and Ctrl-C
// cancels the running turn (twice at the prompt quits); with stdin not a terminal it
// reads one prompt or command per line, each after the previous one finished. Exit codes
// and commands: see kUsage and docs/samples.md. ACP v1 agents work too: libacp lifts
// their traffic into the same v2 model.
#include <acp/client.hpp>
#include <acp/session.hpp>
#include <acp/version.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "terminal.hpp"

namespace {

namespace v2 = acp::v2;
using chat::Color;

// Exit codes (documented in docs/samples.md).
enum ExitCode {
    exit_ok = 0,
    exit_error = 1,            // a command or the session failed otherwise
    exit_usage = 2,            // bad command line
    exit_agent_start = 3,      // the agent could not be started
    exit_agent_exited = 4,     // the agent exited or closed the connection on its own
    exit_protocol = 5,         // the agent speaks no ACP version libacp speaks (1 or 2)
    exit_auth_required = 6,    // the agent requires authentication (see --login)
};

constexpr const char* kUsage =
    "usage: acp-chat [options] [-- AGENT COMMAND...]\n"
    "Chat with an ACP agent. Without an agent command, the bundled demo agent is started.\n"
    "\n"
    "options:\n"
    "  --cwd DIR          working directory of new sessions (default: the current directory)\n"
    "  --login METHOD     log in with this auth method if the agent asks for authentication\n"
    "  --log FILE         write the protocol traffic to FILE (one JSON record per line)\n"
    "  --dump-state FILE  at exit, write every session's model as canonical JSON to FILE\n"
    "  --no-color         no colours (also when NO_COLOR is set or stdout is not a terminal)\n"
    "  --help             this text\n"
    "\n"
    "exit codes: 0 ok, 1 error, 2 usage, 3 agent could not start, 4 agent exited,\n"
    "            5 protocol version unsupported, 6 authentication required\n";

constexpr const char* kHelp =
    "commands:\n"
    "  /new              start a new session (with the /cwd, /add-dir and /mcp settings)\n"
    "  /sessions         list the agent's sessions\n"
    "  /resume ID        resume a session and replay its history\n"
    "  /close            close the current session\n"
    "  /delete ID        delete a session\n"
    "  /config [ID VALUE]  list the session's options, or set one\n"
    "  /cwd [DIR]        show or set the working directory for /new\n"
    "  /add-dir PATH     add a directory to the next /new (if the agent supports it)\n"
    "  /mcp NAME COMMAND [ARGS...] | /mcp NAME URL   add an MCP server to the next /new\n"
    "  /help, /quit\n"
    "  /NAME [INPUT]     one of the agent's commands (sent as a prompt)\n"
    "anything else is sent to the agent as a prompt. Ctrl-C cancels a running turn.\n";

struct Options {
    std::vector<std::string> agent;
    std::string cwd;
    std::string login;
    std::string log_file;
    std::string dump_file;
    bool color = true;
};

std::string self_dir() {
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return {};
    std::string p(path, static_cast<std::size_t>(n));
    return p.substr(0, p.rfind('/'));
}

std::string absolute(const std::string& base, const std::string& path) {
    if (!path.empty() && path[0] == '/') return path;
    return base + (base.size() > 1 ? "/" : "") + path;
}

// A command as a shell would run it: a bare name is looked up on PATH (an MCP server's
// command must be absolute, CLIENT-MUST-38), anything with a slash is relative to base.
std::string resolve_command(const std::string& base, const std::string& command) {
    if (command.find('/') != std::string::npos) return absolute(base, command);
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path != nullptr ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = absolute(dir.empty() ? base : absolute(base, dir), command);
        struct stat info {};
        if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return {};
}

// A word as a POSIX shell reads it back.
std::string shell_quote(const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                "-_./:,+@%") == std::string::npos) {
        return word;
    }
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string join_words(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& w : words) text += (text.empty() ? "" : " ") + shell_quote(w);
    return text;
}

std::vector<std::string> split_words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

std::string text_of(const std::vector<v2::ContentBlock>& blocks) {
    std::string text;
    for (const auto& block : blocks) {
        if (block.text() != nullptr) {
            text += block.text()->text;
        } else if (block.resource_link() != nullptr) {
            text += "[" + block.resource_link()->uri + "]";
        } else {
            text += "[" + block.tag() + "]";
        }
    }
    return text;
}

class Chat {
public:
    Chat(uv_loop_t* loop, Options options, bool tty, bool color)
        : loop_(loop), options_(std::move(options)), tty_(tty), style_(color) {}

    int run();

private:
    // --- output --------------------------------------------------------------------------
    void write(const std::string& text) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        prompt_shown_ = false;
    }
    void end_stream() {
        if (open_line_) write("\n");
        open_line_ = false;
        stream_key_.clear();
    }
    // A whole line, after whatever was streaming.
    void line(const std::string& text) {
        end_stream();
        write(text + "\n");
    }
    void error(const std::string& text) { line(style_.paint(Color::red, text)); }

    // --- the model on screen ---------------------------------------------------------------
    struct Shown {
        std::size_t text = 0;
        std::string status;
        std::size_t content = 0;
        std::size_t output = 0;
        std::string pending_line;
        bool exited = false;
        bool command = false;
        std::string plan;
    };
    void on_event(const acp::SessionEvent& event);
    void render(const acp::SessionState& state, const acp::SessionItem& item);
    void render_message(const acp::SessionState& state, const acp::SessionItem& item, Shown& shown);
    void render_tool_call(const acp::ToolCallItem& call, Shown& shown);
    void render_terminal(const acp::TerminalItem& terminal, Shown& shown);
    void render_plan(const acp::PlanItem& plan, Shown& shown);
    void status_line(const acp::SessionState& state);

    // --- input -------------------------------------------------------------------------------
    void start_input();
    void on_input(const char* data, std::size_t size);
    void on_interrupt();
    void process_next();
    void handle(const std::string& text);
    void show_prompt();

    // --- commands -----------------------------------------------------------------------------
    void connect();
    void new_session();
    void list_sessions();
    void resume(const std::string& id);
    void close_session();
    void delete_session(const std::string& id);
    void config(const std::vector<std::string>& words);
    void add_dir(const std::string& path);
    void add_mcp(const std::vector<std::string>& words);
    void send_prompt(const std::string& text);
    void done() {
        busy_ = false;
        process_next();
    }

    // --- permission ----------------------------------------------------------------------------
    void on_permission(const v2::RequestPermissionRequest& request, acp::PermissionResponder responder);
    bool answer_permission(const std::string& answer);
    void cancel_turn();

    void quit(int code);
    void finish_quit();
    // The agent's command line with a terminal auth method's args and env, for the user to run.
    std::string terminal_login_command(const v2::AuthMethodTerminal& method) const {
        std::string command;
        if (method.env.has_value()) {
            for (const auto& var : *method.env) command += var.name + "=" + shell_quote(var.value) + " ";
        }
        std::vector<std::string> argv = options_.agent;
        if (method.args.has_value()) argv.insert(argv.end(), method.args->begin(), method.args->end());
        return command + join_words(argv);
    }

    uv_loop_t* loop_;
    Options options_;
    bool tty_;
    chat::Style style_;
    std::unique_ptr<acp::Client> client_;
    acp::SessionSubscription subscription_;
    std::ofstream log_;

    std::string session_;                 // the current session ("" = none)
    std::set<std::string> seen_;          // every session id the model held, for --dump-state
    std::map<std::string, Shown> shown_;  // per item of the current session: what is on screen
    std::string stream_key_;              // the item whose text is streaming on the open line
    bool open_line_ = false;

    std::deque<std::string> queue_;  // input lines not processed yet
    std::string partial_;            // an input line without its newline yet
    bool input_eof_ = false;
    bool busy_ = false;              // a command or turn is in progress
    bool turn_running_ = false;
    unsigned turns_sent_ = 0;        // numbers each prompt, so a late answer knows its turn
    bool cancel_sent_ = false;       // session/cancel went out for the running turn
    bool expect_new_ = false;
    bool prompt_shown_ = false;
    bool interrupt_armed_ = false;
    bool quitting_ = false;
    int exit_code_ = exit_ok;

    struct PendingPermission {
        acp::PermissionResponder responder;
        std::vector<v2::PermissionOption> options;
    };
    std::optional<PendingPermission> permission_;

    std::vector<std::string> directories_;  // for the next /new
    std::vector<v2::McpServer> mcp_servers_;

    uv_tty_t tty_handle_{};
    uv_pipe_t pipe_handle_{};
    uv_stream_t* input_ = nullptr;
    uv_signal_t sigint_{};
};

// --- startup ---------------------------------------------------------------------------------

int Chat::run() {
    if (options_.cwd.empty()) {
        char buffer[PATH_MAX];
        options_.cwd = getcwd(buffer, sizeof buffer) != nullptr ? buffer : "/";
    }
    acp::SpawnOptions agent;
    agent.argv = options_.agent;
    acp::ClientOptions client_options;
    client_options.info.name = "acp-chat";
    client_options.info.title = "acp-chat";
    client_options.info.version = acp::version_string();
    auto created = acp::Client::spawn(loop_, agent, client_options);
    if (!created) {
        error("could not start the agent `" + agent.argv[0] + "`: " + created.status().message());
        return exit_agent_start;
    }
    client_ = std::move(created.value());
    if (!options_.log_file.empty()) {
        log_.open(options_.log_file, std::ios::trunc);
        if (!log_) {
            error("cannot write " + options_.log_file);
            return exit_usage;
        }
        // The tagged format of tests/peers/ts-agent/validate.mjs: "in" = to the agent.
        client_->set_traffic_observer([this](acp::Direction d, std::string_view text, auto) {
            log_ << "{\"dir\":\"" << (d == acp::Direction::outgoing ? "in" : "out") << "\",\"msg\":" << text << "}\n";
            log_.flush();
        });
    }
    subscription_ = client_->sessions().subscribe([this](const acp::SessionEvent& e) { on_event(e); });
    client_->on_permission_request(
        [this](const v2::RequestPermissionRequest& request, acp::PermissionResponder responder) {
            on_permission(request, std::move(responder));
        });
    client_->on_closed([this](const acp::Status& why) {
        if (quitting_) {
            finish_quit();
            return;
        }
        std::string text = "the agent exited";
        if (const acp::AgentExit* exit = why.agent_exit(); exit != nullptr && exit->exited) {
            text += exit->term_signal != 0 ? " on signal " + std::to_string(exit->term_signal)
                                           : " with code " + std::to_string(exit->exit_code);
            if (!exit->stderr_tail.empty()) text += "; its last output on stderr:\n" + exit->stderr_tail;
        } else {
            text += ": " + why.message();
        }
        error(text);
        quit(exit_agent_exited);
    });
    uv_signal_init(loop_, &sigint_);
    sigint_.data = this;
    uv_signal_start(&sigint_, [](uv_signal_t* s, int) { static_cast<Chat*>(s->data)->on_interrupt(); }, SIGINT);
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

void Chat::connect() {
    client_->initialize([this](acp::Result<v2::InitializeResponse> r) {
        if (!r) {
            if (r.status().code() == acp::Errc::connection_closed) return;  // on_closed reports it
            error("initialize failed: " + r.status().message());
            quit(r.status().code() == acp::Errc::unsupported ? exit_protocol : exit_error);
            return;
        }
        const v2::Implementation& info = r->info;
        line(style_.paint(Color::bold, "connected to " + (info.title.has_value() ? *info.title : info.name) + " " +
                                           info.version) +
             " (ACP v" + std::to_string(r->protocolVersion) + "); /help lists the commands");
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
    client_->new_session(request, [this](acp::Result<v2::NewSessionResponse> r) {
        expect_new_ = false;
        if (!r) {
            if (acp::is_auth_required(r.status())) {
                const auto* agent = client_->agent();
                if (!options_.login.empty()) {
                    const std::string method = options_.login;
                    options_.login.clear();  // one attempt
                    client_->login(method, [this, method](acp::Result<v2::LoginAuthResponse> login) {
                        if (!login) {
                            error("login with " + method + " failed: " + login.status().message());
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
                            methods += "\n  " + a->methodId + " (" + a->name +
                                       (a->description.has_value() ? ": " + *a->description : "") + ")";
                        } else if (const auto* t = m.terminal()) {
                            // The user runs the agent's own login in a terminal (CLIENT-GUIDE 2.3).
                            methods += "\n  " + t->methodId + " (" + t->name + "), in a terminal run:\n    " +
                                       terminal_login_command(*t);
                        } else {
                            methods += "\n  a method of type " + m.tag() + ", which acp-chat cannot use";
                        }
                    }
                }
                error("the agent requires authentication; it offers:" + (methods.empty() ? " nothing" : methods) +
                      (agent_method ? "\nrun acp-chat with --login METHOD" : ""));
                quit(exit_auth_required);
                return;
            }
            if (r.status().code() == acp::Errc::connection_closed) return;
            error("cannot start a session: " + r.status().message());
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
        line(style_.paint(Color::dim, "session " + session_ + " in " + options_.cwd));
        done();
    });
}

// --- input ------------------------------------------------------------------------------------

void Chat::start_input() {
    const uv_handle_type type = uv_guess_handle(STDIN_FILENO);
    if (type == UV_TTY) {
        uv_tty_init(loop_, &tty_handle_, STDIN_FILENO, 1);
        input_ = reinterpret_cast<uv_stream_t*>(&tty_handle_);
    } else if (type == UV_NAMED_PIPE) {
        uv_pipe_init(loop_, &pipe_handle_, 0);
        uv_pipe_open(&pipe_handle_, STDIN_FILENO);
        input_ = reinterpret_cast<uv_stream_t*>(&pipe_handle_);
    } else {
        // A file (or /dev/null): read it whole now, run its lines one by one.
        std::string all;
        char buffer[4096];
        ssize_t n;
        while ((n = read(STDIN_FILENO, buffer, sizeof buffer)) > 0) all.append(buffer, static_cast<std::size_t>(n));
        on_input(all.data(), all.size());
        input_eof_ = true;
        return;
    }
    input_->data = this;
    uv_read_start(
        input_,
        [](uv_handle_t*, std::size_t suggested, uv_buf_t* buf) {
            buf->base = new char[suggested];
            buf->len = suggested;
        },
        [](uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
            auto* self = static_cast<Chat*>(stream->data);
            if (n > 0) self->on_input(buf->base, static_cast<std::size_t>(n));
            delete[] buf->base;
            if (n < 0) {
                uv_read_stop(stream);
                self->input_eof_ = true;
                self->process_next();
            }
        });
}

void Chat::on_input(const char* data, std::size_t size) {
    if (permission_ && tty_) {
        // Raw mode: one key answers.
        for (std::size_t i = 0; i < size && permission_; ++i) {
            const char key = data[i];
            if (key == 27 && i + 1 < size) {
                // An arrow or function key (ESC [ A, ESC O P, ...): skip it, it answers nothing.
                for (++i; i + 1 < size && !(data[i + 1] >= '@' && data[i + 1] <= '~' && data[i] != 27);) ++i;
                ++i;
            } else if (key == 3 || key == 27) {  // Ctrl-C, or Esc on its own
                cancel_turn();
            } else if (!answer_permission(std::string(1, key))) {
                write(style_.paint(Color::yellow, "(press 1-" + std::to_string(permission_->options.size()) +
                                                      ", y or n)\n"));
            }
        }
        return;
    }
    partial_.append(data, size);
    std::size_t nl;
    while ((nl = partial_.find('\n')) != std::string::npos) {
        std::string text = partial_.substr(0, nl);
        if (!text.empty() && text.back() == '\r') text.pop_back();
        queue_.push_back(text);
        partial_.erase(0, nl + 1);
    }
    process_next();
}

void Chat::show_prompt() {
    if (!tty_ || prompt_shown_ || quitting_) return;
    end_stream();
    write(style_.paint(Color::bold, "> "));
    prompt_shown_ = true;
}

void Chat::process_next() {
    if (quitting_) return;
    if (permission_) {
        // Scripted: the next line answers the permission prompt.
        if (!tty_ && !queue_.empty()) {
            std::string answer = queue_.front();
            queue_.pop_front();
            line(answer);
            if (!answer_permission(answer)) line("(answer with 1-" + std::to_string(permission_->options.size()) + ", y or n)");
        } else if (!tty_ && input_eof_) {
            cancel_turn();
        }
        return;
    }
    while (!busy_ && !quitting_) {
        if (queue_.empty()) {
            if (input_eof_) {
                if (!partial_.empty()) {
                    queue_.push_back(partial_);
                    partial_.clear();
                    continue;
                }
                quit(exit_code_);
            } else {
                show_prompt();
            }
            return;
        }
        std::string text = queue_.front();
        queue_.pop_front();
        interrupt_armed_ = false;
        if (!tty_) line(style_.paint(Color::bold, "> ") + text);
        prompt_shown_ = false;
        handle(text);
    }
}

void Chat::on_interrupt() {
    if (permission_ || turn_running_) {
        // The first Ctrl-C cancels the turn; another one before the agent has wound it
        // down quits, so an agent that ignores session/cancel cannot hold the terminal.
        if (cancel_sent_ && !permission_) {
            line("");
            quit(exit_code_);
            return;
        }
        cancel_turn();
        return;
    }
    if (interrupt_armed_ || !tty_) {
        line("");
        quit(exit_code_);
        return;
    }
    interrupt_armed_ = true;
    line("");
    line(style_.paint(Color::dim, "(press Ctrl-C again to quit)"));
    show_prompt();
}

void Chat::cancel_turn() {
    if (permission_) {
        permission_->responder.cancel();
        permission_.reset();
        if (tty_ && input_ != nullptr) uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_NORMAL);
    }
    if (!session_.empty() && turn_running_) {
        line(style_.paint(Color::yellow, "^C cancelling the turn (Ctrl-C again quits)"));
        client_->cancel(session_);
        cancel_sent_ = true;
    }
}

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
        line(kHelp);
        if (const acp::SessionState* s = session_.empty() ? nullptr : client_->sessions().find(session_);
            s != nullptr && s->available_commands().has_value()) {
            line("the agent's commands:");
            for (const auto& c : *s->available_commands()) {
                if (const auto* cmd = c.command()) line("  /" + cmd->name + "  " + cmd->description);
            }
        }
    } else if (command == "/quit" || command == "/exit") {
        quit(exit_code_);
    } else if (command == "/new") {
        new_session();
    } else if (command == "/sessions") {
        list_sessions();
    } else if (command == "/resume" && words.size() == 2) {
        resume(words[1]);
    } else if (command == "/close") {
        close_session();
    } else if (command == "/delete" && words.size() == 2) {
        delete_session(words[1]);
    } else if (command == "/config") {
        config(words);
    } else if (command == "/cwd") {
        if (!arg.empty()) options_.cwd = absolute(options_.cwd, arg);
        line("working directory for /new: " + options_.cwd);
    } else if (command == "/add-dir" && !arg.empty()) {
        add_dir(arg);
    } else if (command == "/mcp" && words.size() >= 3) {
        add_mcp(words);
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
        error("unknown command or missing argument: " + text + " (/help lists the commands)");
    }
}

// --- commands -----------------------------------------------------------------------------------

void Chat::send_prompt(const std::string& text) {
    if (session_.empty()) {
        error("no session: /new or /resume ID first");
        return;
    }
    v2::PromptRequest request;
    request.sessionId = session_;
    v2::TextContent content;
    content.text = text;
    request.prompt.push_back(v2::ContentBlock::make_text(std::move(content)));
    busy_ = true;
    turn_running_ = true;
    const unsigned turn = ++turns_sent_;
    cancel_sent_ = false;
    client_->prompt(request, [this, turn](acp::Result<v2::PromptResponse> r) {
        if (!r) {
            if (r.status().code() == acp::Errc::connection_closed) return;
            // A v1 agent's failed turn has already ended (idle with the error on the
            // status line) and the next line may be running: nothing more to say.
            if (turn != turns_sent_ || !turn_running_) return;
            // A v2 agent refused the prompt: the turn never started.
            error(r.status().code() == acp::Errc::cancelled ? "prompt withdrawn" : "prompt failed: " + r.status().message());
            turn_running_ = false;
            done();
        }
        // Otherwise the turn goes on until the session reports idle (turn_ended).
    });
}

void Chat::list_sessions() {
    busy_ = true;
    client_->list_all_sessions(std::nullopt, [this](acp::Result<std::vector<v2::SessionInfo>> r) {
        if (!r) {
            error("cannot list sessions: " + r.status().message());
        } else if (r->empty()) {
            line("no sessions");
        } else {
            for (const auto& info : *r) {
                line(std::string(info.sessionId == session_ ? "* " : "  ") + info.sessionId + "  " +
                     (info.title.has_value() ? "\"" + *info.title + "\"" : "(untitled)") + "  " + info.cwd +
                     (info.updatedAt.has_value() ? "  " + *info.updatedAt : ""));
            }
        }
        done();
    });
}

void Chat::resume(const std::string& id) {
    busy_ = true;
    // session/resume needs the session's own cwd: ask the agent for it first.
    client_->list_all_sessions(std::nullopt, [this, id](acp::Result<std::vector<v2::SessionInfo>> listed) {
        std::string cwd = options_.cwd;
        if (listed) {
            for (const auto& info : *listed) {
                if (info.sessionId == id) cwd = info.cwd;
            }
        }
        v2::ResumeSessionRequest request;
        request.sessionId = id;
        request.cwd = cwd;
        request.replayFrom = v2::ReplayFrom::make_start({});
        const std::string previous = session_;
        session_ = id;  // the replay renders as it arrives
        shown_.clear();
        line(style_.paint(Color::dim, "resuming " + id + ", its history:"));
        client_->resume_session(request, [this, id, previous](acp::Result<v2::ResumeSessionResponse> r) {
            if (!r) {
                error("cannot resume " + id + ": " + r.status().message());
                session_ = previous;
            } else {
                line(style_.paint(Color::dim, "resumed " + id));
            }
            done();
        });
    });
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
            error("cannot close " + id + ": " + r.status().message());
        } else {
            line("closed " + id);
            if (session_ == id) session_.clear();
        }
        done();
    });
}

void Chat::delete_session(const std::string& id) {
    busy_ = true;
    client_->delete_session(id, [this, id](acp::Result<v2::DeleteSessionResponse> r) {
        if (!r) {
            error("cannot delete " + id + ": " + r.status().message());
        } else {
            line("deleted " + id);
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
            line(text + "  " + option.name);
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
            error("cannot set " + words[1] + ": " + r.status().message());
        } else {
            line(words[1] + " = " + words[2]);
        }
        done();
    });
}

void Chat::add_dir(const std::string& path) {
    const auto* agent = client_->agent();
    const bool supported = agent != nullptr && agent->capabilities.has_value() &&
                           agent->capabilities->session.has_value() &&
                           agent->capabilities->session->additionalDirectories.has_value();
    if (!supported) {
        error("refused: the agent does not support additional directories (it did not advertise "
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

// --- permission ---------------------------------------------------------------------------------

void Chat::on_permission(const v2::RequestPermissionRequest& request, acp::PermissionResponder responder) {
    end_stream();
    line(style_.paint(Color::magenta, "permission: " + request.title));
    if (request.description.has_value()) line("  " + *request.description);
    std::string choices;
    for (std::size_t i = 0; i < request.options.size(); ++i) {
        choices += "  [" + std::to_string(i + 1) + "] " + request.options[i].name;
    }
    // Raw mode before the question is visible, so the key that answers it is never
    // stuck in a line buffer.
    if (tty_ && input_ != nullptr) uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_RAW);
    write(choices + (tty_ ? "  (press a key; Ctrl-C cancels) " : "\n"));
    open_line_ = tty_;
    responder.on_withdrawn([this] {
        if (!permission_) return;
        permission_.reset();
        if (tty_ && input_ != nullptr) uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_NORMAL);
        line(style_.paint(Color::dim, "(the agent withdrew the permission request)"));
    });
    permission_ = PendingPermission{std::move(responder), request.options};
    process_next();
}

bool Chat::answer_permission(const std::string& raw) {
    std::string answer = raw;
    while (!answer.empty() && answer.back() == ' ') answer.pop_back();
    const auto& options = permission_->options;
    const v2::PermissionOption* chosen = nullptr;
    if (answer.size() == 1 && answer[0] >= '1' && answer[0] <= '9') {
        const std::size_t index = static_cast<std::size_t>(answer[0] - '1');
        if (index < options.size()) chosen = &options[index];
    } else if (answer == "y" || answer == "n") {
        const std::string prefix = answer == "y" ? "allow" : "reject";
        for (const auto& o : options) {
            if (chosen == nullptr && o.kind.value.rfind(prefix, 0) == 0) chosen = &o;
        }
    } else {
        for (const auto& o : options) {
            if (o.optionId == answer) chosen = &o;
        }
    }
    if (chosen == nullptr) return false;
    if (tty_ && input_ != nullptr) uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_NORMAL);
    open_line_ = false;
    write(tty_ ? answer + "\n" : "");
    line(style_.paint(chosen->kind.value.rfind("allow", 0) == 0 ? Color::green : Color::red, "-> " + chosen->name));
    const std::string option_id = chosen->optionId;
    acp::PermissionResponder responder = permission_->responder;
    permission_.reset();
    responder.select(option_id);
    return true;
}

// --- rendering ----------------------------------------------------------------------------------

void Chat::on_event(const acp::SessionEvent& event) {
    if (event.type == acp::SessionEvent::Type::session_added) {
        seen_.insert(std::string(event.session_id));
        // Updates of a new session may come before the session/new answer (held for it).
        if (expect_new_) {
            session_ = std::string(event.session_id);
            shown_.clear();
        }
    }
    if (event.session_id != session_ || event.session == nullptr) return;
    const acp::SessionState& state = *event.session;
    switch (event.type) {
        case acp::SessionEvent::Type::session_reset:
            shown_.clear();
            break;
        case acp::SessionEvent::Type::item_inserted:
        case acp::SessionEvent::Type::item_changed:
            render(state, state.items()[event.index]);
            break;
        case acp::SessionEvent::Type::notice_added:
            line(style_.paint(Color::yellow, "notice: " + state.notices().back().title +
                                                 (state.notices().back().description.has_value()
                                                      ? " - " + *state.notices().back().description
                                                      : "")));
            break;
        case acp::SessionEvent::Type::turn_ended:
            if (turn_running_) {
                turn_running_ = false;
                if (permission_) {
                    permission_.reset();
                    if (tty_ && input_ != nullptr) uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_NORMAL);
                }
                status_line(state);
                done();
            }
            break;
        default:
            break;
    }
}

void Chat::render(const acp::SessionState& state, const acp::SessionItem& item) {
    Shown& shown = shown_[std::string(acp::item_kind_name(item.kind())) + ":" + item.id()];
    if (item.message() != nullptr) {
        render_message(state, item, shown);
    } else if (const auto* call = item.tool_call()) {
        render_tool_call(*call, shown);
    } else if (const auto* terminal = item.terminal()) {
        render_terminal(*terminal, shown);
    } else if (const auto* plan = item.plan()) {
        render_plan(*plan, shown);
    } else if (const auto* compaction = item.compaction()) {
        line(style_.paint(Color::dim, "compaction " + compaction->status.value));
    } else if (const auto* unknown = item.unknown()) {
        line(style_.paint(Color::dim, "(" + unknown->tag + ")"));
    }
}

void Chat::render_message(const acp::SessionState& state, const acp::SessionItem& item, Shown& shown) {
    // The user's own message is on screen already (typed, or echoed from the script); a
    // replay shows it.
    if (item.kind() == acp::ItemKind::user_message && !state.replaying()) return;
    const std::string text = chat::sanitize(text_of(item.message()->content));
    const std::string key = std::string(acp::item_kind_name(item.kind())) + ":" + item.id();
    if (text.size() < shown.text) shown.text = 0;  // replaced: show it again
    if (text.size() == shown.text) return;
    std::string delta = text.substr(shown.text);
    shown.text = text.size();
    if (stream_key_ != key) {
        end_stream();
        if (item.kind() == acp::ItemKind::user_message) write(style_.paint(Color::bold, "you: "));
        if (item.kind() == acp::ItemKind::agent_thought) write(style_.paint(Color::dim, "thinking: "));
        stream_key_ = key;
    }
    write(item.kind() == acp::ItemKind::agent_thought ? style_.paint(Color::dim, delta) : delta);
    open_line_ = delta.back() != '\n';
}

void Chat::render_tool_call(const acp::ToolCallItem& call, Shown& shown) {
    const std::string status = call.status.value;
    if (status != shown.status) {
        shown.status = status;
        Color color = Color::cyan;
        if (status == "completed") color = Color::green;
        if (status == "failed" || status == "cancelled") color = Color::red;
        if (status == "pending") color = Color::yellow;
        line(style_.paint(Color::blue, "tool: ") + (call.title ? *call.title : call.id) + " (" + call.kind.value +
             ") " + style_.paint(color, status));
    }
    if (call.content.size() < shown.content) shown.content = 0;
    for (; shown.content < call.content.size(); ++shown.content) {
        const v2::ToolCallContent& content = call.content[shown.content];
        if (const v2::Diff* diff = content.diff()) {
            for (const auto& change : diff->changes) {
                line("  " + change.operation.tag() + " " +
                     (change.operation.modify() != nullptr ? change.operation.modify()->path : std::string()));
            }
            if (diff->patch.has_value()) {
                std::istringstream patch(chat::sanitize(diff->patch->text));
                for (std::string l; std::getline(patch, l);) {
                    Color color = Color::none;
                    if (l.rfind("+++", 0) == 0 || l.rfind("---", 0) == 0 || l.rfind("diff ", 0) == 0) {
                        color = Color::bold;
                    } else if (!l.empty() && l[0] == '+') {
                        color = Color::green;
                    } else if (!l.empty() && l[0] == '-') {
                        color = Color::red;
                    } else if (l.rfind("@@", 0) == 0) {
                        color = Color::cyan;
                    }
                    line("  " + style_.paint(color, l));
                }
            }
        } else if (const v2::Content* block = content.content()) {
            line("  " + chat::sanitize(text_of({block->content})));
        }
    }
}

void Chat::render_terminal(const acp::TerminalItem& terminal, Shown& shown) {
    if (!shown.command && terminal.command.has_value()) {
        shown.command = true;
        line(style_.paint(Color::blue, "terminal: ") + "$ " + chat::sanitize(*terminal.command));
    }
    if (terminal.text.size() < shown.output) {
        shown.output = 0;  // a snapshot replaced the output
        shown.pending_line.clear();
    }
    shown.pending_line += chat::sanitize(terminal.text.substr(shown.output));
    shown.output = terminal.text.size();
    std::size_t nl;
    while ((nl = shown.pending_line.find('\n')) != std::string::npos) {
        line(style_.paint(Color::dim, "  | ") + shown.pending_line.substr(0, nl));
        shown.pending_line.erase(0, nl + 1);
    }
    if (terminal.exit_status.has_value() && !shown.exited) {
        shown.exited = true;
        if (!shown.pending_line.empty()) line(style_.paint(Color::dim, "  | ") + shown.pending_line);
        shown.pending_line.clear();
        std::string how = "exited";
        if (terminal.exit_status->exitCode.has_value()) how += " with code " + std::to_string(*terminal.exit_status->exitCode);
        if (terminal.exit_status->signal.has_value()) how += " on " + *terminal.exit_status->signal;
        line(style_.paint(Color::dim, "  (" + how + ")"));
    }
}

void Chat::render_plan(const acp::PlanItem& plan, Shown& shown) {
    const v2::PlanItems* items = plan.plan.items();
    if (items == nullptr) {
        line(style_.paint(Color::dim, "plan (" + plan.plan.tag() + ")"));
        return;
    }
    std::string text = style_.paint(Color::blue, "plan:") + "\n";
    for (const auto& entry : items->entries) {
        const std::string& s = entry.status.value;
        const char* box = s == "completed" ? "[x]" : s == "in_progress" ? "[>]" : s == "cancelled" ? "[-]" : "[ ]";
        text += "  " + std::string(box) + " " +
                (s == "completed" ? style_.paint(Color::dim, entry.content) : chat::sanitize(entry.content)) + "\n";
    }
    if (text == shown.plan) return;
    shown.plan = text;
    end_stream();
    write(text);
}

void Chat::status_line(const acp::SessionState& state) {
    const auto& fg = state.foreground();
    std::string text = "-- " + (fg.stop_reason ? *fg.stop_reason : std::string("idle"));
    if (fg.error.has_value()) text += " (" + fg.error->message + ")";
    text += " | " + state.session_id();
    if (state.info().title.has_value()) text += " | " + chat::sanitize(*state.info().title);
    if (const auto& usage = state.usage()) {
        text += " | " + std::to_string(usage->used) + "/" + std::to_string(usage->size) + " tokens";
        if (usage->cost.has_value()) {
            char amount[64];
            std::snprintf(amount, sizeof amount, "%.4f", usage->cost->amount);
            text += " | " + std::string(amount) + " " + usage->cost->currency;
        }
    }
    line(style_.paint(Color::dim, text + " --"));
}

// --- the end ---------------------------------------------------------------------------------------

void Chat::quit(int code) {
    if (quitting_) return;
    quitting_ = true;
    exit_code_ = code;
    end_stream();
    if (permission_) {
        permission_->responder.cancel();
        permission_.reset();
    }
    if (input_ != nullptr) {
        if (tty_) uv_tty_reset_mode();
        uv_read_stop(input_);
        uv_close(reinterpret_cast<uv_handle_t*>(input_), nullptr);
    }
    uv_close(reinterpret_cast<uv_handle_t*>(&sigint_), nullptr);
    if (client_->is_closed()) {
        finish_quit();
    } else {
        client_->close();
    }
}

void Chat::finish_quit() { subscription_.reset(); }

bool parse(int argc, char** argv, Options& options) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "acp-chat: %s needs a value\n", arg.c_str());
                return false;
            }
            out = argv[++i];
            return true;
        };
        if (arg == "--") {
            for (++i; i < argc; ++i) options.agent.emplace_back(argv[i]);
        } else if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(exit_ok);
        } else if (arg == "--cwd") {
            if (!value(options.cwd)) return false;
        } else if (arg == "--login") {
            if (!value(options.login)) return false;
        } else if (arg == "--log") {
            if (!value(options.log_file)) return false;
        } else if (arg == "--dump-state") {
            if (!value(options.dump_file)) return false;
        } else if (arg == "--no-color") {
            options.color = false;
        } else {
            std::fprintf(stderr, "acp-chat: unknown argument %s\n%s", arg.c_str(), kUsage);
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, options)) return exit_usage;
    if (!options.cwd.empty() && options.cwd[0] != '/') {
        char buffer[PATH_MAX];
        options.cwd = absolute(getcwd(buffer, sizeof buffer) != nullptr ? buffer : "/", options.cwd);
    }
    if (options.agent.empty()) {
        // The demo agent: next to this binary (installed or copied together), else the build's.
        const std::string beside = self_dir() + "/acp-demo-agent";
        options.agent = {access(beside.c_str(), X_OK) == 0 ? beside : std::string(ACP_DEMO_AGENT_PATH)};
    }
    const bool tty = isatty(STDIN_FILENO) != 0;
    const char* no_color = std::getenv("NO_COLOR");
    const bool color = options.color && isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0');
    uv_loop_t* loop = uv_default_loop();
    int code;
    {
        Chat chat(loop, std::move(options), tty, color);
        code = chat.run();
    }
    uv_run(loop, UV_RUN_DEFAULT);
    uv_loop_close(loop);
    return code;
}
