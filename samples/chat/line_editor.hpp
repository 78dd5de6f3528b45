// SPDX-License-Identifier: Apache-2.0
// The prompt line on a terminal: libedit (emacs keys, history, arrow keys) driven from the
// event loop, bracketed paste, and the prompt kept intact while other output is printed.
//
// libedit reads nothing itself: the bytes acp-chat read from stdin are handed over with
// feed() and served to libedit one character at a time (EL_GETCFN), in unbuffered mode,
// so the loop never blocks in el_gets. The terminal is in libedit's raw mode only while the
// prompt is active; between prompts (a turn running) it is back in the normal mode, so
// Ctrl-C is a signal and type-ahead waits in the kernel or in our buffer.
#pragma once

#include <histedit.h>

#include <cstdio>
#include <string>

namespace chat {

class LineEditor {
public:
    struct Event {
        enum class Type { none, line, end_of_input, interrupt } type = Type::none;
        std::string text;  // of a line: the whole prompt, pasted lines included
    };

    LineEditor() = default;
    ~LineEditor();
    LineEditor(const LineEditor&) = delete;
    LineEditor& operator=(const LineEditor&) = delete;

    // prompt: what the prompt shows; styled: the same with escape sequences (or itself).
    // history_file: where the history is kept ("" = not kept).
    bool open(FILE* in, FILE* out, std::string prompt, std::string styled, std::string history_file);
    bool is_open() const { return el_ != nullptr; }

    // Shows the prompt (with the text a deactivate() kept) and puts the terminal in raw mode.
    void activate();
    // Back to the normal terminal mode; the text typed so far is kept for the next activate().
    void deactivate();
    bool active() const { return active_; }

    void feed(const char* data, std::size_t size);  // bytes typed (kept until processed)
    // Runs libedit over the bytes fed until a line is complete (which deactivates the
    // editor), Ctrl-C or Ctrl-D on an empty line, or the bytes run out.
    Event pump();
    void discard_typeahead() { pending_.clear(); }

    // Other output is about to be printed: the prompt and its text are erased first, and
    // drawn again by show() below that output.
    void hide();
    void show();
    bool hidden() const { return hidden_; }

    // The terminal changed size (SIGWINCH): the prompt is drawn again for the new width.
    void resize();

    // The terminal as it was: normal mode, bracketed paste off, history saved.
    void close();

    // The user's history file: $XDG_STATE_HOME/acp-chat/history, else
    // ~/.local/state/acp-chat/history ("" when neither is known); its directory is created.
    static std::string default_history_file();

private:
    static int read_char(EditLine* el, wchar_t* out);
    static const char* prompt_of(EditLine* el);
    bool take_paste();  // a whole bracketed paste at the head of pending_ is handled
    std::string current_line() const;
    void replace_line(const std::string& text);
    void remember(const std::string& line);

    EditLine* el_ = nullptr;
    History* history_ = nullptr;
    FILE* out_ = nullptr;
    std::string prompt_, styled_prompt_, history_file_;
    std::string pending_;       // bytes typed, not given to libedit yet
    std::string pasted_lines_;  // whole lines of a multi-line paste, before the line edited
    std::string kept_;          // the line's text across a deactivate()
    bool active_ = false;
    bool hidden_ = false;
    bool starved_ = false;  // libedit asked for a character we did not have
};

}  // namespace chat
