// SPDX-License-Identifier: Apache-2.0
// The Chat class: acp-chat's one object, on the loop thread. Its member functions live in
// files by concern: chat.cpp (startup, the connection, the end), input.cpp, commands.cpp,
// permission.cpp, render.cpp.
#pragma once

#include <uv.h>
#include <acp/catalogue.hpp>
#include <acp/client.hpp>
#include <acp/session.hpp>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "attachments.hpp"
#include "line_editor.hpp"
#include "markdown.hpp"
#include "options.hpp"
#include "sanitize.hpp"
#include "terminal.hpp"
#include "traffic_log.hpp"
#include "words.hpp"
#include "wrap.hpp"

namespace chat {

namespace v2 = acp::v2;

// Shown between sending a prompt and the agent's first output (on a terminal).
constexpr const char* kWaiting = "waiting for the agent...";

class Chat {
public:
    // markdown: the agent's messages rendered from Markdown (else shown as sent).
    // catalogue: the agents known by name, for /agents.
    Chat(uv_loop_t* loop, Options options, acp::Catalogue catalogue, bool tty, bool color, bool markdown)
        : loop_(loop),
          options_(std::move(options)),
          catalogue_(std::move(catalogue)),
          tty_(tty),
          style_(color),
          markdown_(markdown) {}

    int run();

private:
    acp::RemoteOptions remote_options() const;
    struct PendingPermission {
        acp::PermissionResponder responder;
        v2::RequestPermissionRequest request;
        unsigned serial = 0;  // tells a withdrawn request apart
    };
    // --- output --------------------------------------------------------------------------
    void write(const std::string& text) {
        // Flushed once per loop iteration (flush_), not per write: a streamed reply arrives
        // as many small chunks per read, and a write(2) each would cost more than the rest.
        // The prompt line being edited is erased first and drawn again below (flush_).
        if (editor_.active()) editor_.hide();
        if (waiting_shown_) {  // the first output of a turn replaces the sign of work
            // Blanked with spaces, not an erase sequence: the screen holds only colours.
            const std::string blank = "\r" + std::string(std::string_view(kWaiting).size(), ' ') + "\r";
            std::fwrite(blank.data(), 1, blank.size(), stdout);
            waiting_shown_ = false;
        }
        std::fwrite(text.data(), 1, text.size(), stdout);
        prompt_shown_ = false;
    }
    void end_stream() {
        end_markdown();
        std::string held;
        wrap_.flush(held);
        if (!held.empty()) write(held);
        if (open_line_) write("\n");
        open_line_ = false;
        wrap_.reset();
        stream_key_.clear();
    }
    // The agent's message text (sanitised, maybe styled), wrapped at word boundaries to
    // the terminal's width.
    void write_wrapped(const std::string& text);
    // The terminal's width (0: not a terminal, nothing wraps), asked at the start, on
    // SIGWINCH and as each message begins, not per streamed chunk.
    void measure_width();
    // A whole line, after whatever was streaming.
    void line(const std::string& text) {
        end_stream();
        write(text + "\n");
    }
    void error(const std::string& text) { line(style_.paint(Color::red, text)); }
    // A failed request as the user needs it: the message and the agent's data, sanitised.
    static std::string failure(const acp::Status& status) {
        std::string text = sanitize(status.message());
        if (!status.rpc_data_json().empty()) text += " (" + sanitize(status.rpc_data_json()) + ")";
        return text;
    }

    // --- the model on screen ---------------------------------------------------------------
    struct Shown {
        // A message: text_of() bytes shown (before sanitising); of its blocks, those
        // before `block` are shown whole and of content[block] the first `part` bytes.
        std::size_t text = 0;
        std::size_t block = 0;
        std::size_t part = 0;
        Sanitizer sanitizer{Lines::keep};  // the message's or the terminal output's stream
        std::string status;
        std::size_t content = 0;
        std::size_t output = 0;  // bytes of the terminal's text shown
        bool exited = false;
        bool command = false;
        std::string plan;
        std::unique_ptr<MarkdownStream> markdown;  // an agent message's rendering
    };
    void end_markdown();  // the streaming message's held tail, printed as it is
    void on_event(const acp::SessionEvent& event);
    // appended: the event's appended_text (see acp::SessionEvent), when it only appended.
    void render(const acp::SessionState& state, const acp::SessionItem& item, std::optional<std::string_view> appended);
    void render_message(const acp::SessionState& state, const acp::SessionItem& item,
                        std::optional<std::string_view> appended, Shown& shown);
    void render_tool_call(const acp::ToolCallItem& call, Shown& shown);
    // The agent's multi-line text (tool output, stderr), each line behind a gutter ("  | "),
    // so none of its lines can pass for one of acp-chat's own.
    void gutter_lines(const std::string& text);
    void render_terminal(const acp::TerminalItem& terminal, Shown& shown);
    void render_plan(const acp::PlanItem& plan, Shown& shown);
    // The session's history as the model holds it: its last `turns` turns (a turn starts
    // at a message of the user's; kAllTurns: all of them) under a line that begins with
    // title and says how many earlier turns are left out.
    void show_history(const acp::SessionState& state, std::size_t turns, const std::string& title);
    static constexpr std::size_t kAllTurns = static_cast<std::size_t>(-1);
    void status_line(const acp::SessionState& state);
    // "1044/200000 tokens | 0.0010 USD" as the agent last reported it ("" before it did).
    static std::string usage_text(const acp::SessionState& state);

    // --- input -------------------------------------------------------------------------------
    void start_input();
    void on_input(const char* data, std::size_t size);
    void pump_editor();    // what the line editor made of the keys: lines, Ctrl-D, Ctrl-C
    void redraw_prompt();  // below output printed while the prompt was up
    void on_interrupt();
    void process_next();
    void handle(const std::string& text);
    void show_prompt();
    // Tab: the commands (acp-chat's and the agent's), @paths, or after /resume and /delete
    // (command) the session ids that could complete word.
    std::vector<std::string> complete(const std::string& word, bool first, const std::string& command) const;
    // The agent's session ids for completion (session/list on a terminal, in the background).
    void remember_sessions(const std::vector<v2::SessionInfo>& sessions);

    // --- commands -----------------------------------------------------------------------------
    void connect();
    void new_session();
    void list_sessions();
    void resume(const std::string& id);
    void history(const std::vector<std::string>& words);  // /history [N]
    void close_session();
    void delete_session(const std::string& id);
    void config(const std::vector<std::string>& words);
    void add_dir(const std::string& path);
    bool agent_supports_directories() const;
    void add_mcp(const std::vector<std::string>& words);
    // The unstable surface (unstable_commands.cpp): the commands the agent offers, and
    // handling one of them (false: not one of them).
    std::vector<std::string> unstable_commands() const;
    bool unstable_command(const std::vector<std::string>& words, const std::string& arg);
    void fork_session();
    void providers(const std::vector<std::string>& words);
    // image: a block sent after the text and its attachments (/image).
    void send_prompt(const std::string& text, std::optional<v2::ContentBlock> image = std::nullopt);
    void send_image(const std::vector<std::string>& words, const std::string& arg);
    void done() {
        busy_ = false;
        process_next();
    }

    // --- permission ----------------------------------------------------------------------------
    void on_permission(const v2::RequestPermissionRequest& request, acp::PermissionResponder responder);
    void show_permission(PendingPermission pending);
    void next_permission();  // the one on screen is done: show the next, or back to lines
    void withdraw_permission(unsigned serial);
    // Answers "cancelled" those of the session's foreground work (CLIENT-MUST-68), and
    // the one on screen when the user dismissed it.
    void cancel_permissions(const std::string& session, bool dismissed_on_screen);
    bool of_foreground(const v2::RequestPermissionRequest& request) const;
    bool answer_permission(const std::string& answer);
    std::string permission_keys() const;  // "1-3, y = allow_once, n = reject_once"
    void cancel_turn();

    void on_log(const acp::LogRecord& record);
    void show_stderr();

    void quit(int code);
    void stop_agent();  // Ctrl-C while quitting
    void finish_quit();

    uv_loop_t* loop_;
    Options options_;
    acp::Catalogue catalogue_;
    bool tty_;
    chat::Style style_;
    bool markdown_;
    LineEditor editor_;  // the prompt on a terminal
    std::unique_ptr<acp::Client> client_;
    acp::SessionSubscription subscription_;
    TrafficLog log_;                        // --log
    std::deque<std::string> stderr_lines_;  // the agent's stderr and libacp's warnings, for /stderr

    std::string session_;                 // the current session ("" = none)
    std::set<std::string> seen_;          // every session id the model held, for --dump-state
    std::set<std::string> listed_;        // session ids from session/list, for completion
    std::map<std::string, Shown> shown_;  // per item of the current session: what is on screen
    std::string stream_key_;              // the item whose text is streaming on the open line
    Wrapper wrap_;                        // its words, for the terminal's width
    std::size_t width_ = 0;               // that width (measure_width)
    bool open_line_ = false;

    std::deque<std::string> queue_;  // input lines not processed yet
    std::string partial_;            // an input line without its newline yet
    bool input_eof_ = false;
    bool busy_ = false;  // a command or turn is in progress
    bool turn_running_ = false;
    unsigned turns_sent_ = 0;   // numbers each prompt, so a late answer knows its turn
    bool cancel_sent_ = false;  // session/cancel went out for the running turn
    bool expect_new_ = false;
    bool hiding_replay_ = false;    // a resume's replay goes into the model, not on screen
    bool showing_history_ = false;  // show_history: the user's messages are shown too
    bool prompt_shown_ = false;
    bool waiting_shown_ = false;  // "waiting for the agent..." is on screen, no newline
    bool interrupt_armed_ = false;
    bool pasting_to_permission_ = false;  // inside a paste while a question waits for a key
    bool quitting_ = false;
    std::string usage_shown_;            // the last live usage line, not repeated
    std::uint64_t turn_started_ms_ = 0;  // uv_now() when the prompt went out, for the elapsed time
    bool initialized_ = false;           // initialize was answered: the agent is there
    int stop_requests_ = 0;              // Ctrl-C presses while quitting
    int exit_code_ = exit_ok;

    std::optional<PendingPermission> permission_;        // the one on screen
    std::deque<PendingPermission> waiting_permissions_;  // the next ones, in arrival order
    unsigned permissions_received_ = 0;
    unsigned permissions_refused_ = 0;  // over the bound of waiting ones

    std::vector<std::string> directories_;  // for the next /new
    Roots roots_;                           // the current session's directories: @paths come from them
    std::vector<v2::McpServer> mcp_servers_;

    uv_tty_t tty_handle_{};
    uv_pipe_t pipe_handle_{};
    uv_stream_t* input_ = nullptr;
    uv_signal_t sigint_{};
    uv_signal_t sigwinch_{};  // the terminal's new size, for the prompt line and wrapping
    uv_prepare_t flush_{};    // flushes stdout before the loop waits
};

}  // namespace chat
