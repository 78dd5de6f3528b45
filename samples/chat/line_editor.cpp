// SPDX-License-Identifier: Apache-2.0
#include "line_editor.hpp"

#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cwchar>

#include "sanitize.hpp"

namespace chat {

namespace {

constexpr const char* kPasteStart = "\x1b[200~";
constexpr const char* kPasteEnd = "\x1b[201~";
constexpr int kHistoryEntries = 1000;
// A prompt longer than this (a big paste) is sent but not kept: the file stays small.
constexpr std::size_t kHistoryEntryBytes = 64 * 1024;

int terminal_columns(FILE* out) {
    winsize size{};
    if (ioctl(fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 80;
}

// Columns the text takes on screen (UTF-8; a character we cannot size counts one).
std::size_t columns_of(const char* text, std::size_t size) {
    std::mbstate_t state{};
    std::size_t columns = 0;
    for (std::size_t i = 0; i < size;) {
        wchar_t c;
        const std::size_t n = std::mbrtowc(&c, text + i, size - i, &state);
        if (n == 0 || n == static_cast<std::size_t>(-1) || n == static_cast<std::size_t>(-2)) {
            state = std::mbstate_t{};
            ++i;
            ++columns;
            continue;
        }
        const int w = wcwidth(c);
        columns += w < 0 ? 2 : static_cast<std::size_t>(w);  // a control shows as ^X
        i += n;
    }
    return columns;
}

std::size_t characters_of(const std::string& text) {
    std::mbstate_t state{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < text.size(); ++count) {
        const std::size_t n = std::mbrtowc(nullptr, text.data() + i, text.size() - i, &state);
        i += (n == 0 || n > text.size() - i) ? 1 : n;
    }
    return count;
}

// The canonical keys libedit is bound to (open()); every other sequence is swallowed.
constexpr const char* kUp = "\x1b[A";
constexpr const char* kDown = "\x1b[B";
constexpr const char* kRight = "\x1b[C";
constexpr const char* kLeft = "\x1b[D";
constexpr const char* kHome = "\x1b[H";
constexpr const char* kEnd = "\x1b[F";
constexpr const char* kDelete = "\x1b[3~";
constexpr const char* kWordRight = "\x1b[1;5C";
constexpr const char* kWordLeft = "\x1b[1;5D";
// A sequence longer than this without its final byte is not one a key sends: dropped.
constexpr std::size_t kLongestSequence = 32;

// What an escape sequence at the head of the keys is.
struct Escape {
    enum class Kind { incomplete, meta, key } kind;
    std::size_t length = 0;  // of the sequence typed
    std::string key;         // Kind::key: the canonical key ("" = swallowed)
};

// Arrows and Home/End by their final byte, with xterm's modifier (`1;5` = Ctrl, `1;3` =
// Alt): Ctrl or Alt with Left/Right moves by word, other modified arrows do nothing.
std::string cursor_key(char final, int modifier) {
    const bool word = modifier > 1 && ((modifier - 1) & 6) != 0;  // Alt (2) or Ctrl (4)
    switch (final) {
        case 'A': return modifier > 1 ? "" : kUp;
        case 'B': return modifier > 1 ? "" : kDown;
        case 'C': return word ? kWordRight : kRight;
        case 'D': return word ? kWordLeft : kLeft;
        case 'H': return kHome;
        case 'F': return kEnd;
        default: return "";
    }
}

// ESC [ params intermediates final (CSI), ESC O x (SS3), ESC ESC sequence (Alt in some
// terminals), ESC x (Meta-x for libedit). `keys` starts with ESC.
Escape parse_escape(const std::string& keys, std::size_t from = 0) {
    const std::size_t n = keys.size() - from;
    if (n < 2) return {Escape::Kind::incomplete, 0, {}};
    const char second = keys[from + 1];
    if (second == '[') {
        std::size_t i = from + 2;
        while (i < keys.size() && keys[i] >= 0x30 && keys[i] <= 0x3f) ++i;  // parameters
        while (i < keys.size() && keys[i] >= 0x20 && keys[i] <= 0x2f) ++i;  // intermediates
        if (i == keys.size()) {
            return i - from > kLongestSequence ? Escape{Escape::Kind::key, i - from, ""}
                                               : Escape{Escape::Kind::incomplete, 0, {}};
        }
        const char final = keys[i];
        const std::size_t length = i + 1 - from;
        if (final < 0x40 || final > 0x7e) return {Escape::Kind::key, length - 1, ""};  // broken: dropped up to it
        const std::string params = keys.substr(from + 2, i - from - 2);
        const std::size_t semicolon = params.rfind(';');
        const int modifier = semicolon == std::string::npos ? 1 : std::atoi(params.c_str() + semicolon + 1);
        if (final != '~') return {Escape::Kind::key, length, cursor_key(final, modifier)};
        switch (std::atoi(params.c_str())) {  // VT220 keys: ESC [ n ~
            case 1:
            case 7: return {Escape::Kind::key, length, kHome};
            case 4:
            case 8: return {Escape::Kind::key, length, kEnd};
            case 3: return {Escape::Kind::key, length, kDelete};
            default: return {Escape::Kind::key, length, ""};  // Insert, PageUp/Down, F5-F12, ...
        }
    }
    if (second == 'O') {  // SS3: application-mode arrows, Home/End, F1-F4; rxvt's Ctrl-arrows
        if (n < 3) return {Escape::Kind::incomplete, 0, {}};
        const char final = keys[from + 2];
        if (final == 'c') return {Escape::Kind::key, 3, kWordRight};
        if (final == 'd') return {Escape::Kind::key, 3, kWordLeft};
        return {Escape::Kind::key, 3, cursor_key(final, 1)};
    }
    if (second == '\x1b') {  // ESC followed by a sequence: that key with Alt
        const Escape inner = parse_escape(keys, from + 1);
        if (inner.kind == Escape::Kind::incomplete) return inner;
        if (inner.kind == Escape::Kind::key) {
            const bool horizontal = inner.key == kLeft || inner.key == kRight;
            return {Escape::Kind::key, inner.length + 1,
                    horizontal ? (inner.key == kLeft ? kWordLeft : kWordRight) : inner.key};
        }
        return {Escape::Kind::key, 1, ""};  // Esc Esc: the first one dropped
    }
    return {Escape::Kind::meta, 2, {}};  // Meta-b, Meta-f, ...: libedit's emacs keys
}

bool make_directories(const std::string& path) {
    for (std::size_t at = 1; at <= path.size(); ++at) {
        if (at == path.size() || path[at] == '/') {
            const std::string part = path.substr(0, at);
            if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
        }
    }
    return true;
}

}  // namespace

LineEditor::~LineEditor() { close(); }

bool LineEditor::open(FILE* in, FILE* out, std::string prompt, std::string styled, std::string history_file) {
    have_original_ = tcgetattr(fileno(in), &original_) == 0;
    in_fd_ = fileno(in);
    el_ = el_init("acp-chat", in, out, stderr);
    if (el_ == nullptr) return false;
    out_ = out;
    prompt_ = std::move(prompt);
    // libedit skips what lies between two \1 when it measures the prompt: the escape sequences.
    styled_prompt_ = styled == prompt_ ? prompt_
                                       : "\1" + styled.substr(0, styled.find(prompt_)) + "\1" + prompt_ + "\1" +
                                             styled.substr(styled.find(prompt_) + prompt_.size()) + "\1";
    history_file_ = std::move(history_file);
    el_set(el_, EL_CLIENTDATA, this);
    el_set(el_, EL_EDITOR, "emacs");
    el_set(el_, EL_PROMPT_ESC, &LineEditor::prompt_of, '\1');
    el_set(el_, EL_GETCFN, &LineEditor::read_char);
    // The usual keys whatever the terminal description says.
    el_set(el_, EL_BIND, "\033[A", "ed-prev-history", nullptr);
    el_set(el_, EL_BIND, "\033[B", "ed-next-history", nullptr);
    el_set(el_, EL_BIND, "\033[C", "ed-next-char", nullptr);
    el_set(el_, EL_BIND, "\033[D", "ed-prev-char", nullptr);
    el_set(el_, EL_BIND, "\033[H", "ed-move-to-beg", nullptr);
    el_set(el_, EL_BIND, "\033[F", "ed-move-to-end", nullptr);
    el_set(el_, EL_BIND, "\033[3~", "ed-delete-next-char", nullptr);
    el_set(el_, EL_BIND, kWordRight, "em-next-word", nullptr);
    el_set(el_, EL_BIND, kWordLeft, "ed-prev-word", nullptr);
    // The wide call keeps these (static) strings; the narrow one copies them and libedit
    // never frees the copies.
    el_wset(el_, EL_ADDFN, L"acp-complete", L"complete a command or a path", &LineEditor::complete);
    el_set(el_, EL_BIND, "\t", "acp-complete", nullptr);
    history_ = history_init();
    if (history_ != nullptr) {
        HistEvent event;
        history(history_, &event, H_SETSIZE, kHistoryEntries);
        history(history_, &event, H_SETUNIQUE, 1);
        if (!history_file_.empty()) history(history_, &event, H_LOAD, history_file_.c_str());
        el_set(el_, EL_HIST, history, history_);
    }
    // Bracketed paste: the terminal marks a paste, so its newlines do not send it line by line.
    std::fputs("\x1b[?2004h", out_);
    return true;
}

void LineEditor::close() {
    if (el_ == nullptr) return;
    deactivate();
    std::fputs("\x1b[?2004l", out_);
    std::fflush(out_);
    el_end(el_);
    el_ = nullptr;
    if (have_original_) tcsetattr(in_fd_, TCSADRAIN, &original_);
    if (history_ != nullptr) history_end(history_);
    history_ = nullptr;
}

std::string LineEditor::default_history_file() {
    std::string dir;
    if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/') {
        dir = std::string(state) + "/acp-chat";
    } else if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') {
        dir = std::string(home) + "/.local/state/acp-chat";
    } else {
        return {};
    }
    return make_directories(dir) ? dir + "/history" : std::string();
}

const char* LineEditor::prompt_of(EditLine* el) {
    void* self = nullptr;
    el_get(el, EL_CLIENTDATA, &self);
    return static_cast<LineEditor*>(self)->styled_prompt_.c_str();
}

int LineEditor::read_char(EditLine* el, wchar_t* out) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    auto* self = static_cast<LineEditor*>(data);
    std::string& pending = self->pending_;
    std::mbstate_t state{};
    const std::size_t n =
        self->serve_ == 0 ? static_cast<std::size_t>(-2) : std::mbrtowc(out, pending.data(), self->serve_, &state);
    if (n == static_cast<std::size_t>(-2)) return 0;  // nothing (or half a character) yet: pump() goes on
    if (n == static_cast<std::size_t>(-1)) {          // not UTF-8: one byte, shown as a replacement
        *out = L'\uFFFD';
        pending.erase(0, 1);
        --self->serve_;
        return 1;
    }
    pending.erase(0, n == 0 ? 1 : n);
    self->serve_ -= n == 0 ? 1 : n;
    return 1;
}

void LineEditor::activate() {
    if (el_ == nullptr || active_) return;
    el_set(el_, EL_UNBUFFERED, 1);  // raw mode, a fresh line, the prompt drawn
    active_ = true;
    hidden_ = false;
    if (!kept_.empty()) {
        hide();
        el_insertstr(el_, kept_.c_str());
        kept_.clear();
        show();
    }
    std::fflush(out_);
}

void LineEditor::deactivate() {
    if (!active_) return;
    kept_ = current_line();
    hide();
    el_set(el_, EL_UNBUFFERED, 0);  // libedit's idea of the normal mode, then quiet
    quiet();
    active_ = false;
    hidden_ = false;
}

void LineEditor::quiet() {
    if (!have_original_) return;
    // No echo and no line discipline, so keys typed during a turn are read, not printed
    // into the agent's output; signals stay on, so Ctrl-C still cancels the turn.
    termios mode = original_;
    mode.c_lflag &= ~static_cast<tcflag_t>(ECHO | ICANON | IEXTEN);
    mode.c_cc[VMIN] = 1;
    mode.c_cc[VTIME] = 0;
    tcsetattr(in_fd_, TCSADRAIN, &mode);
}

void LineEditor::feed(const char* data, std::size_t size) { pending_.append(data, size); }

LineEditor::Event LineEditor::pump() {
    while (active_ && !pending_.empty()) {
        const char first = pending_[0];
        if (first == 3) {  // Ctrl-C where the terminal does not make it a signal
            pending_.erase(0, 1);
            return {Event::Type::interrupt, {}};
        }
        if (first == 4 && current_line().empty() && pasted_lines_.empty()) {  // Ctrl-D on an empty line
            pending_.erase(0, 1);
            hide();
            el_set(el_, EL_UNBUFFERED, 0);
            quiet();
            active_ = false;
            return {Event::Type::end_of_input, {}};
        }
        if (first == '\x1b') {
            const std::string start = kPasteStart;
            if (pending_.size() < start.size() && start.compare(0, pending_.size(), pending_) == 0) {
                return {};  // perhaps the start of a paste: wait for the rest
            }
            if (pending_.compare(0, start.size(), start) == 0) {
                if (!take_paste()) return {};
                continue;
            }
        }
        if (!next_key()) break;
        if (serve_ == 0) continue;  // a sequence swallowed
        const std::size_t before = pending_.size();
        int count = 0;
        const char* text = el_gets(el_, &count);
        if (text != nullptr && count > 0 && text[count - 1] == '\n') {
            Event event{Event::Type::line, pasted_lines_ + std::string(text, static_cast<std::size_t>(count) - 1)};
            pasted_lines_.clear();
            serve_ = 0;
            el_set(el_, EL_UNBUFFERED, 0);
            quiet();
            active_ = false;
            remember(event.text);
            return event;
        }
        if (pending_.size() == before) break;  // libedit took nothing: never spin
        // libedit waits for more of a key it knows the start of: it gets the next key.
        serve_ = 0;
    }
    std::fflush(out_);
    return {};
}

bool LineEditor::next_key() {
    serve_ = 0;
    if (pending_[0] == '\x1b') {
        const Escape escape = parse_escape(pending_);
        switch (escape.kind) {
            case Escape::Kind::incomplete: return false;  // the rest of the sequence is on its way
            case Escape::Kind::meta: serve_ = escape.length; return true;
            case Escape::Kind::key:
                pending_.replace(0, escape.length, escape.key);
                serve_ = escape.key.size();
                return true;
        }
    }
    std::mbstate_t state{};
    const std::size_t n = std::mbrtowc(nullptr, pending_.data(), pending_.size(), &state);
    if (n == static_cast<std::size_t>(-2)) return false;  // half a character yet
    serve_ = (n == 0 || n == static_cast<std::size_t>(-1)) ? 1 : n;
    return true;
}

bool LineEditor::take_paste() {
    const std::size_t start = std::string(kPasteStart).size();
    const std::size_t end = pending_.find(kPasteEnd, start);
    if (end == std::string::npos) return false;
    std::string text;
    for (std::size_t i = start; i < end; ++i) {
        const char c = pending_[i];
        if (c == '\r') {
            text += '\n';
            if (i + 1 < end && pending_[i + 1] == '\n') ++i;
        } else if (c == '\n' || c == '\t' || static_cast<unsigned char>(c) >= 0x20) {
            text += c;  // other controls would only confuse the line: dropped
        }
    }
    pending_.erase(0, end + std::string(kPasteEnd).size());
    hide();
    const std::size_t last_newline = text.rfind('\n');
    if (last_newline == std::string::npos) {
        el_insertstr(el_, text.c_str());
    } else {
        // Whole lines stay above the line edited, shown once; Enter sends them all as one prompt.
        const std::string lines = current_line() + text.substr(0, last_newline + 1);
        std::size_t from = 0;
        for (std::size_t nl; (nl = lines.find('\n', from)) != std::string::npos; from = nl + 1) {
            std::fputs((pasted_lines_.empty() && from == 0 ? prompt_ : std::string(prompt_.size(), ' ')).c_str(), out_);
            std::fputs((sanitize(lines.substr(from, nl - from)) + "\r\n").c_str(), out_);
        }
        pasted_lines_ += lines;
        replace_line(text.substr(last_newline + 1));
    }
    show();
    return true;
}

std::string LineEditor::current_line() const {
    const LineInfo* info = el_line(el_);
    return std::string(info->buffer, static_cast<std::size_t>(info->lastchar - info->buffer));
}

void LineEditor::replace_line(const std::string& text) {
    const std::string old = current_line();
    el_cursor(el_, INT_MAX / 2);  // to the end, then everything before it
    el_deletestr(el_, static_cast<int>(characters_of(old)));
    el_insertstr(el_, text.c_str());
}

unsigned char LineEditor::complete(EditLine* el, int) {
    void* data = nullptr;
    el_get(el, EL_CLIENTDATA, &data);
    auto* self = static_cast<LineEditor*>(data);
    if (!self->completer_) return CC_ERROR;
    const LineInfo* info = el_line(el);
    const std::string before(info->buffer, static_cast<std::size_t>(info->cursor - info->buffer));
    const std::size_t space = before.find_last_of(" \t");
    const std::size_t start = space == std::string::npos ? 0 : space + 1;
    const std::string word = before.substr(start);
    const bool first = before.find_first_not_of(" \t") == start || before.empty();
    const std::size_t command_start = before.find_first_not_of(" \t");
    const std::string command =
        first || command_start == std::string::npos
            ? std::string()
            : before.substr(command_start, before.find_first_of(" \t", command_start) - command_start);
    const std::vector<std::string> candidates = self->completer_(word, first && self->pasted_lines_.empty(),
                                                                 self->pasted_lines_.empty() ? command : std::string());
    if (candidates.empty()) return CC_REFRESH_BEEP;
    // The longest prefix the candidates share (whole UTF-8 characters: all come from whole names).
    std::string common = candidates[0];
    for (const auto& c : candidates) {
        std::size_t i = 0;
        while (i < common.size() && i < c.size() && common[i] == c[i]) ++i;
        common.resize(i);
    }
    while (!common.empty() && (static_cast<unsigned char>(common.back()) & 0xc0) == 0x80) common.pop_back();
    if (common.size() > word.size() && common.compare(0, word.size(), word) == 0) {
        std::string insert = common.substr(word.size());
        if (candidates.size() == 1 && insert.back() != '/') insert += ' ';
        el_insertstr(el, insert.c_str());
        return CC_REFRESH;
    }
    if (candidates.size() == 1) {
        if (candidates[0] == word && word.back() != '/') el_insertstr(el, " ");
        return CC_REFRESH;
    }
    self->list_candidates(candidates);
    return CC_REDISPLAY;
}

void LineEditor::list_candidates(const std::vector<std::string>& candidates) {
    // Above the prompt line, which libedit draws again below them (CC_REDISPLAY).
    constexpr std::size_t kShown = 60;
    hide();
    std::string text;
    for (std::size_t i = 0; i < candidates.size() && i < kShown; ++i)
        text += (i == 0 ? "" : "  ") + sanitize(candidates[i]);
    if (candidates.size() > kShown) text += "  ... (" + std::to_string(candidates.size()) + " in all)";
    std::fputs((text + "\r\n").c_str(), out_);
    hidden_ = false;
}

void LineEditor::hide() {
    if (!active_ || hidden_) return;
    const LineInfo* info = el_line(el_);
    const std::size_t columns = columns_of(prompt_.data(), prompt_.size()) +
                                columns_of(info->buffer, static_cast<std::size_t>(info->cursor - info->buffer));
    const std::size_t rows_up = columns / static_cast<std::size_t>(terminal_columns(out_));
    std::string erase = "\r";
    if (rows_up > 0) erase += "\x1b[" + std::to_string(rows_up) + "A";
    erase += "\x1b[J";
    std::fputs(erase.c_str(), out_);
    hidden_ = true;
}

void LineEditor::show() {
    if (!active_ || !hidden_) return;
    hidden_ = false;
    el_set(el_, EL_REFRESH);  // the prompt and the line, from the start of this row
    std::fflush(out_);
}

void LineEditor::resize() {
    if (el_ == nullptr) return;
    const bool shown = active_ && !hidden_;
    if (shown) hide();
    el_resize(el_);
    if (shown) show();
}

void LineEditor::remember(const std::string& line) {
    if (history_ == nullptr || line.size() > kHistoryEntryBytes ||
        line.find_first_not_of(" \t\n") == std::string::npos) {
        return;
    }
    HistEvent event;
    history(history_, &event, H_ENTER, line.c_str());
    if (!history_file_.empty()) history(history_, &event, H_SAVE, history_file_.c_str());
}

}  // namespace chat
