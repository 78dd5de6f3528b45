// SPDX-License-Identifier: Apache-2.0
// acp-chat: reading the user's lines and keys, the prompt, and Ctrl-C.
#include "chat.hpp"

#include <unistd.h>

namespace chat {

// --- input ------------------------------------------------------------------------------------

void Chat::start_input() {
    const uv_handle_type type = uv_guess_handle(STDIN_FILENO);
    if (type == UV_TTY) {
        uv_tty_init(loop_, &tty_handle_, STDIN_FILENO, 1);
        input_ = reinterpret_cast<uv_stream_t*>(&tty_handle_);
        if (!editor_.open(stdin, stdout, "> ", style_.paint(Color::bold, "> "), LineEditor::default_history_file())) {
            error("cannot start the line editor: lines are read as typed");
        }
        editor_.set_completer([this](const std::string& word, bool first, const std::string& command) {
            return complete(word, first, command);
        });
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
        // Raw mode: one key answers; nothing pasted does (bracketed paste marks it).
        const std::string_view keys(data, size);
        for (std::size_t i = 0; i < size && permission_; ++i) {
            const char key = data[i];
            if (pasting_to_permission_ || keys.compare(i, 6, "\x1b[200~") == 0) {
                const std::size_t end = keys.find("\x1b[201~", i);
                pasting_to_permission_ = end == std::string_view::npos;
                if (pasting_to_permission_) break;
                i = end + 5;
            } else if (key == 27 && i + 1 < size) {
                // An arrow or function key (ESC [ A, ESC O P, ...): skip it, it answers nothing.
                for (++i; i + 1 < size && !(data[i + 1] >= '@' && data[i + 1] <= '~' && data[i] != 27);) ++i;
                ++i;
            } else if (key == 3 || key == 27) {  // Ctrl-C, or Esc on its own
                cancel_turn();
            } else if (!answer_permission(std::string(1, key))) {
                write(style_.paint(Color::yellow, "(press " + permission_keys() + ")\n"));
            }
        }
        return;
    }
    if (editor_.is_open()) {
        editor_.feed(data, size);
        pump_editor();
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
    if (!tty_ || quitting_) return;
    if (editor_.is_open()) {
        if (editor_.active()) return;
        end_stream();
        std::fflush(stdout);
        editor_.activate();
        pump_editor();  // keys typed ahead
        return;
    }
    if (prompt_shown_) return;
    end_stream();
    write(style_.paint(Color::bold, "> "));
    prompt_shown_ = true;
}

void Chat::pump_editor() {
    for (;;) {
        LineEditor::Event event = editor_.pump();
        switch (event.type) {
            case LineEditor::Event::Type::none: return;
            case LineEditor::Event::Type::line:
                queue_.push_back(std::move(event.text));
                process_next();
                return;
            case LineEditor::Event::Type::end_of_input:
                input_eof_ = true;
                process_next();
                return;
            case LineEditor::Event::Type::interrupt:
                on_interrupt();
                if (quitting_) return;
                break;
        }
    }
}

void Chat::redraw_prompt() {
    if (!editor_.active() || !editor_.hidden()) return;
    // Text still streaming (a Markdown line still arriving included) has its line ended:
    // the prompt goes below it.
    end_stream();
    editor_.show();
}

void Chat::process_next() {
    if (quitting_) return;
    if (permission_) {
        if (tty_) return;  // keys answer it (on_input)
        // Scripted: the next line answers the permission prompt; one that does not is
        // reported and the next one read. Without more lines the turn is cancelled.
        while (permission_ && !queue_.empty()) {
            const std::string answer = queue_.front();
            queue_.pop_front();
            line(answer);
            if (permission_ && !answer_permission(answer)) {
                line("(not an answer: " + sanitize(answer) + "; answer with " + permission_keys() +
                     " or an option id)");
            }
        }
        if (permission_ && input_eof_) cancel_turn();
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
    if (quitting_) {
        stop_agent();
        return;
    }
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
    // session/cancel first, then the pending permission requests are answered "cancelled",
    // so the agent records its tool calls as cancelled, not rejected (CLIENT-GUIDE 7.4).
    if (!session_.empty() && turn_running_ && !cancel_sent_) {
        end_stream();
        line(style_.paint(Color::yellow, "^C cancelling the turn (Ctrl-C again quits)"));
        client_->cancel(session_);
        cancel_sent_ = true;
    }
    // Run from a key or the end of input: the question on screen, if any, was dismissed.
    cancel_permissions(session_, true);
}

}  // namespace chat
