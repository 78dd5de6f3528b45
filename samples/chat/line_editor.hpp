// SPDX-License-Identifier: Apache-2.0
// The prompt line on a terminal: libedit (emacs keys, history, arrow keys) driven from the
// event loop, bracketed paste, and the prompt kept intact while other output is printed.
//
// libedit reads nothing itself: the bytes acp-chat read from stdin are handed over with
// feed() and served to libedit one character at a time (EL_GETCFN), in unbuffered mode,
// so the loop never blocks in el_gets. The terminal is in libedit's raw mode while the
// prompt is active; between prompts (a turn running) it is in a quiet mode: no echo, no
// line discipline, but Ctrl-C still a signal, so type-ahead is read (not printed into the
// agent's output) and kept for the next prompt.
//
// Escape sequences never reach libedit as typed: each one is recognised whole (CSI with
// modifiers, SS3) and either becomes one of a few canonical keys bound below (arrows,
// Home/End, Delete, Ctrl/Alt-Left/Right by word) or is swallowed, so no TERM setting can
// make a key insert "5D" or "~".
#pragma once

#include <histedit.h>
#include <termios.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace chat {

class LineEditor {
public:
    struct Event {
        enum class Type { none, line, end_of_input, interrupt } type = Type::none;
        std::string text;  // of a line: the whole prompt, pasted lines included
    };
    // Tab: the words that could complete `word` (the text before the cursor back to a
    // space), each whole; `first` = the word starts the line; `command` = the line's first
    // word when it does not ("" in a multi-line paste).
    using Completer =
        std::function<std::vector<std::string>(const std::string& word, bool first, const std::string& command)>;

    LineEditor() = default;
    ~LineEditor();
    LineEditor(const LineEditor&) = delete;
    LineEditor& operator=(const LineEditor&) = delete;

    // prompt: what the prompt shows; styled: the same with escape sequences (or itself).
    // history_file: where the history is kept ("" = not kept).
    bool open(FILE* in, FILE* out, std::string prompt, std::string styled, std::string history_file);
    bool is_open() const { return el_ != nullptr; }
    void set_completer(Completer completer) { completer_ = std::move(completer); }

    // Shows the prompt (with the text a deactivate() kept) and puts the terminal in raw mode.
    void activate();
    // To the quiet mode (no echo); the text typed so far is kept for the next activate().
    void deactivate();
    // The quiet mode again, after someone else (a permission question) changed the mode.
    void quiet();
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

    // The terminal as it was at open(): its mode, bracketed paste off, history saved.
    void close();

    // The user's history file: $XDG_STATE_HOME/acp-chat/history, else
    // ~/.local/state/acp-chat/history ("" when neither is known); its directory is created.
    static std::string default_history_file();

private:
    static int read_char(EditLine* el, wchar_t* out);
    static unsigned char complete(EditLine* el, int key);
    void list_candidates(const std::vector<std::string>& candidates);
    bool next_key();  // the key at the head of pending_ made ready for libedit (serve_)
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
    std::size_t serve_ = 0;     // bytes of pending_ libedit may read now: one key
    Completer completer_;
    termios original_{};  // the terminal's mode at open()
    bool have_original_ = false;
    bool active_ = false;
    bool hidden_ = false;
    int in_fd_ = -1;
};

}  // namespace chat
