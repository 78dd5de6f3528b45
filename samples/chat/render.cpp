// SPDX-License-Identifier: Apache-2.0
// acp-chat: the session model on screen.
#include "chat.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <sstream>

namespace chat {

namespace {

// The file a diff change is about: "PATH", or "OLD -> NEW" for a move or copy.
std::string diff_path(const v2::DiffChangeOperation& operation) {
    if (const auto* one = operation.add()) return one->path;
    if (const auto* one = operation.delete_()) return one->path;
    if (const auto* one = operation.modify()) return one->path;
    if (const auto* two = operation.move()) return two->oldPath + " -> " + two->path;
    if (const auto* two = operation.copy()) return two->oldPath + " -> " + two->path;
    return {};
}

}  // namespace

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
        case acp::SessionEvent::Type::session_reset: shown_.clear(); break;
        case acp::SessionEvent::Type::item_inserted:
        case acp::SessionEvent::Type::item_changed:
            // A resumed session's history is shown from the model when the replay is over,
            // only its last turns (show_history).
            if (hiding_replay_ && state.replaying()) break;
            render(state, state.items()[event.index], event.appended_text);
            break;
        case acp::SessionEvent::Type::notice_added:
            line(style_.paint(Color::yellow, "notice: " + sanitize(state.notices().back().title) +
                                                 (state.notices().back().description.has_value()
                                                      ? " - " + sanitize(*state.notices().back().description)
                                                      : "")));
            break;
        case acp::SessionEvent::Type::usage_changed:
            // Live on a terminal: what the turn costs so far (the status line repeats it at
            // the end; scripted output keeps only that one).
            if (tty_ && turn_running_) {
                if (std::string usage = usage_text(state); !usage.empty() && usage != usage_shown_) {
                    line(style_.paint(Color::dim, "usage: " + usage));
                    usage_shown_ = std::move(usage);
                }
            }
            break;
        case acp::SessionEvent::Type::turn_ended:
            if (turn_running_) {
                turn_running_ = false;
                cancel_permissions(session_, false);  // questions of the ended turn answer nothing now
                status_line(state);
                done();
            }
            break;
        default: break;
    }
}

void Chat::render(const acp::SessionState& state, const acp::SessionItem& item,
                  std::optional<std::string_view> appended) {
    Shown& shown = shown_[std::string(acp::item_kind_name(item.kind())) + ":" + item.id()];
    if (item.message() != nullptr) {
        render_message(state, item, appended, shown);
    } else if (const auto* call = item.tool_call()) {
        render_tool_call(*call, shown);
    } else if (const auto* terminal = item.terminal()) {
        render_terminal(*terminal, shown);
    } else if (const auto* plan = item.plan()) {
        render_plan(*plan, shown);
    } else if (const auto* compaction = item.compaction()) {
        line(style_.paint(Color::dim, "compaction " + sanitize(compaction->status.value)));
    } else if (const auto* unknown = item.unknown()) {
        line(style_.paint(Color::dim, "(" + sanitize(unknown->tag) + ")"));
    }
}

void Chat::render_message(const acp::SessionState& state, const acp::SessionItem& item,
                          std::optional<std::string_view> appended, Shown& shown) {
    // The user's own message is on screen already (typed, or echoed from the script); a
    // replay shows it.
    if (item.kind() == acp::ItemKind::user_message && !state.replaying() && !showing_history_) return;
    const std::string key = std::string(acp::item_kind_name(item.kind())) + ":" + item.id();
    const std::vector<v2::ContentBlock>& content = item.message()->content;
    // Only the new part is cleaned and printed, so a long reply costs its length, not its
    // length squared; the sanitiser remembers a sequence split across chunks.
    std::string delta;
    if (appended.has_value()) {
        // Only appended (the model's appended_text): the last block's text grew, or blocks
        // were added after it (an image chunk appends "" and a block). From the block last
        // shown on, whatever is new: work of the chunk's size, never the message's.
        std::string scratch;
        for (std::size_t i = shown.block; i < content.size(); ++i) {
            const std::string_view text = block_text(content[i], scratch);
            const std::size_t from = i == shown.block ? std::min(shown.part, text.size()) : 0;
            shown.sanitizer.feed(text.substr(from), delta);
            shown.text += text.size() - from;
        }
    } else {
        // Anything else (an upsert): compare the whole text.
        const std::string text = text_of(content);
        if (text.size() < shown.text) {  // replaced: show it again
            shown.text = 0;
            shown.sanitizer.reset();
            shown.markdown.reset();
        }
        if (text.size() > shown.text) shown.sanitizer.feed(std::string_view(text).substr(shown.text), delta);
        shown.text = text.size();
    }
    std::string scratch;
    shown.block = content.empty() ? 0 : content.size() - 1;
    shown.part = content.empty() ? 0 : block_text(content.back(), scratch).size();
    if (delta.empty()) return;
    if (stream_key_ != key) {
        end_stream();
        measure_width();  // a SIGWINCH may still be on its way when the reply starts
        if (item.kind() == acp::ItemKind::user_message) write_wrapped(style_.paint(Color::bold, "you: "));
        if (item.kind() == acp::ItemKind::agent_thought) write_wrapped(style_.paint(Color::dim, "thinking: "));
        stream_key_ = key;
    }
    if (markdown_ && item.kind() == acp::ItemKind::agent_message) {
        // Rendered a completed line at a time; the line still arriving waits (end_markdown).
        if (!shown.markdown) shown.markdown = std::make_unique<MarkdownStream>(style_.enabled());
        std::string rendered;
        shown.markdown->feed(delta, rendered);
        // Outside a turn, under the prompt, nothing may wait: the prompt goes below it now.
        if (editor_.active()) shown.markdown->flush(rendered);
        if (!rendered.empty()) write_wrapped(rendered);
        return;
    }
    write_wrapped(item.kind() == acp::ItemKind::agent_thought ? style_.paint(Color::dim, delta) : delta);
}

void Chat::measure_width() {
    winsize size{};
    // Only where the terminal says its width: never into a pipe or a file.
    width_ = tty_ && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? static_cast<std::size_t>(size.ws_col) : 0;
}

void Chat::write_wrapped(const std::string& text) {
    std::string out;
    wrap_.feed(text, width_, out);
    if (editor_.active()) wrap_.flush(out);  // under the prompt nothing may wait
    if (!out.empty()) write(out);
    open_line_ = wrap_.open();
}

void Chat::gutter_lines(const std::string& text) {
    std::istringstream lines(sanitize_lines(text));
    for (std::string l; std::getline(lines, l);) line(style_.paint(Color::dim, "  | ") + l);
}

void Chat::end_markdown() {
    if (stream_key_.empty()) return;
    const auto shown = shown_.find(stream_key_);
    if (shown == shown_.end() || !shown->second.markdown) return;
    std::string rest;
    shown->second.markdown->flush(rest);
    if (!rest.empty()) write_wrapped(rest);
}

void Chat::render_tool_call(const acp::ToolCallItem& call, Shown& shown) {
    const std::string status = call.status.value;
    if (status != shown.status) {
        shown.status = status;
        Color color = Color::cyan;
        if (status == "completed") color = Color::green;
        if (status == "failed" || status == "cancelled") color = Color::red;
        if (status == "pending") color = Color::yellow;
        // A kind this version does not know is shown as the schema's default, "other".
        const std::string kind = call.kind.is_known() ? call.kind.value : std::string(v2::ToolKind::other);
        line(style_.paint(Color::blue, "tool: ") + sanitize(call.title ? *call.title : call.id) + " (" + kind + ") " +
             style_.paint(color, sanitize(status)));
    }
    if (call.content.size() < shown.content) shown.content = 0;
    for (; shown.content < call.content.size(); ++shown.content) {
        const v2::ToolCallContent& content = call.content[shown.content];
        if (const v2::Diff* diff = content.diff()) {
            for (const auto& change : diff->changes) {
                line("  " + sanitize(change.operation.tag()) + " " + sanitize(diff_path(change.operation)));
            }
            if (diff->patch.has_value()) {
                // Behind the gutter like all of the agent's multi-line text: no line of it
                // can pass for one of acp-chat's own.
                std::istringstream patch(sanitize_lines(diff->patch->text));
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
                    line(style_.paint(Color::dim, "  | ") + style_.paint(color, l));
                }
            }
        } else if (const v2::Content* block = content.content()) {
            gutter_lines(text_of({block->content}));
        }
    }
}

void Chat::render_terminal(const acp::TerminalItem& terminal, Shown& shown) {
    if (!shown.command && terminal.command.has_value()) {
        shown.command = true;
        line(style_.paint(Color::blue, "terminal: ") + "$ " + sanitize(*terminal.command));
    }
    if (terminal.text.size() < shown.output) {
        shown.output = 0;  // a snapshot replaced the output
        shown.sanitizer.reset();
    }
    // Streamed like a message, each line behind the gutter: only the new output is
    // cleaned and looked at, and a line without end is printed as it comes, never held,
    // so output of any length without a newline costs its length.
    std::string delta;
    shown.sanitizer.feed(std::string_view(terminal.text).substr(shown.output), delta);
    shown.output = terminal.text.size();
    if (!delta.empty()) {
        const std::string key = "terminal:" + terminal.id;
        if (stream_key_ != key) {
            end_stream();
            stream_key_ = key;
        }
        const std::string gutter = style_.paint(Color::dim, "  | ");
        std::string out;
        out.reserve(delta.size() + gutter.size());
        for (std::size_t at = 0; at < delta.size();) {
            if (!open_line_) out += gutter;
            const std::size_t nl = delta.find('\n', at);
            const std::size_t end = nl == std::string::npos ? delta.size() : nl + 1;
            out.append(delta, at, end - at);
            open_line_ = nl == std::string::npos;
            at = end;
        }
        write(out);
    }
    if (terminal.exit_status.has_value() && !shown.exited) {
        shown.exited = true;
        std::string how = "exited";
        if (terminal.exit_status->exitCode.has_value())
            how += " with code " + std::to_string(*terminal.exit_status->exitCode);
        if (terminal.exit_status->signal.has_value()) how += " on " + sanitize(*terminal.exit_status->signal);
        line(style_.paint(Color::dim, "  (" + how + ")"));
    }
}

void Chat::render_plan(const acp::PlanItem& plan, Shown& shown) {
    const v2::PlanItems* items = plan.plan.items();
    if (items == nullptr) {
        line(style_.paint(Color::dim, "plan (" + sanitize(plan.plan.tag()) + ")"));
        return;
    }
    std::string text = style_.paint(Color::blue, "plan:") + "\n";
    for (const auto& entry : items->entries) {
        const std::string& s = entry.status.value;
        const char* box = s == "completed" ? "[x]" : s == "in_progress" ? "[>]" : s == "cancelled" ? "[-]" : "[ ]";
        text += "  " + std::string(box) + " " +
                (s == "completed" ? style_.paint(Color::dim, sanitize(entry.content)) : sanitize(entry.content)) + "\n";
    }
    if (text == shown.plan) return;
    shown.plan = text;
    end_stream();
    write(text);
}

void Chat::show_history(const acp::SessionState& state, std::size_t turns, const std::string& title) {
    const std::vector<acp::SessionItem>& items = state.items();
    std::vector<std::size_t> starts;  // where each turn begins: a message of the user's
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].kind() == acp::ItemKind::user_message) starts.push_back(i);
    }
    const auto count = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " turn" : " turns"); };
    std::size_t from = 0;
    std::string head = title;
    if (items.empty()) {
        head += ", no history yet";
    } else if (starts.size() > turns) {
        const std::size_t left_out = starts.size() - turns;
        from = turns == 0 ? items.size() : starts[left_out];
        head += ", its last " + count(turns) + " (" + count(left_out) + " before not shown; /history shows all):";
    } else {
        head += ", its history (" + count(starts.size()) + "):";
    }
    line(style_.paint(Color::dim, head));
    showing_history_ = true;
    for (std::size_t i = from; i < items.size(); ++i) render(state, items[i], std::nullopt);
    end_stream();
    showing_history_ = false;
}

void Chat::status_line(const acp::SessionState& state) {
    const auto& fg = state.foreground();
    std::string text = "-- " + (fg.stop_reason ? sanitize(*fg.stop_reason) : std::string("idle"));
    if (fg.error.has_value()) text += " (" + sanitize(fg.error->message) + ")";
    text += " | " + sanitize(state.session_id());
    if (state.info().title.has_value()) text += " | " + sanitize(*state.info().title);
    if (const std::string usage = usage_text(state); !usage.empty()) text += " | " + usage;
    if (tty_ && turn_started_ms_ != 0) {  // how long the turn took (scripted output stays the same each run)
        uv_update_time(loop_);
        char elapsed[32];
        std::snprintf(elapsed, sizeof elapsed, "%.1f s",
                      static_cast<double>(uv_now(loop_) - turn_started_ms_) / 1000.0);
        text += std::string(" | ") + elapsed;
        turn_started_ms_ = 0;
    }
    line(style_.paint(Color::dim, text + " --"));
}

std::string Chat::usage_text(const acp::SessionState& state) {
    const auto& usage = state.usage();
    if (!usage) return {};
    std::string text = std::to_string(usage->used) + "/" + std::to_string(usage->size) + " tokens";
    if (usage->cost.has_value()) {
        char amount[64];
        std::snprintf(amount, sizeof amount, "%.4f", usage->cost->amount);
        text += " | " + std::string(amount) + " " + sanitize(usage->cost->currency);
    }
    return text;
}

}  // namespace chat
