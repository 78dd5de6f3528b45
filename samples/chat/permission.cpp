// SPDX-License-Identifier: Apache-2.0
// acp-chat: permission prompts. One is on screen at a time, the others wait their turn in
// arrival order. On a terminal the prompt takes one key; what was typed before it appeared
// is discarded, so it can never answer a question the user has not seen.
#include <termios.h>
#include <unistd.h>

#include <algorithm>

#include "chat.hpp"

namespace chat {

namespace {

// "session S, tool: TITLE (KIND)" or "session S, command: CMD in DIR": who asks for what.
std::string asker(const v2::RequestPermissionRequest& request) {
    std::string text = "session " + sanitize(request.sessionId);
    if (!request.subject.has_value()) return text;
    if (const auto* tool = request.subject->tool_call()) {
        const v2::ToolCallUpdate& call = tool->toolCall;
        text += ", tool: " + sanitize(call.title.has_value() ? *call.title : call.toolCallId);
        if (call.kind.has_value()) text += " (" + sanitize(call.kind->value) + ")";
    } else if (const auto* command = request.subject->command()) {
        text += ", command: " + sanitize(command->command) + " in " + sanitize(command->cwd);
    }
    return text;
}

// "(allow_once)": an option's kind as the protocol names it, which is what y and n go by; a
// kind this version does not know is not the agent's word to print.
std::string kind_of(const v2::PermissionOption& option) {
    return "(" + (option.kind.is_known() ? option.kind.value : std::string("unknown kind")) + ")";
}

// The one option of this kind, or nullptr when there is none or more than one.
const v2::PermissionOption* only_option(const std::vector<v2::PermissionOption>& options, std::string_view kind) {
    const v2::PermissionOption* found = nullptr;
    for (const auto& o : options) {
        if (o.kind != kind) continue;
        if (found != nullptr) return nullptr;
        found = &o;
    }
    return found;
}

// The options, one a line: "  [1] (allow_once) Allow once". The kind comes before the
// agent's name, where the name cannot reach, and each name is one line of its own, so a
// name can neither pass for another option nor hide what its own kind is.
std::string choices_of(const v2::RequestPermissionRequest& request) {
    std::string choices;
    for (std::size_t i = 0; i < request.options.size(); ++i) {
        const v2::PermissionOption& option = request.options[i];
        choices += "  [" + std::to_string(i + 1) + "] " + kind_of(option) + " " + sanitize(option.name) + "\n";
    }
    return choices;
}

// The keys that answer: "1-3, y = allow_once, n = reject_once"; y and n only when the kind
// is there exactly once. (Ctrl-C, or the end of the input, cancels any question.)
std::string keys_of(const v2::RequestPermissionRequest& request) {
    if (request.options.empty()) return "Ctrl-C: the agent offers no options";
    std::string keys = request.options.size() == 1 ? "1" : "1-" + std::to_string(request.options.size());
    if (only_option(request.options, v2::PermissionOptionKind::allow_once) != nullptr) keys += ", y = allow_once";
    if (only_option(request.options, v2::PermissionOptionKind::reject_once) != nullptr) keys += ", n = reject_once";
    return keys;
}

std::string press_a_key(const v2::RequestPermissionRequest& request) {
    return "  (press " + keys_of(request) + "; Ctrl-C cancels) ";
}

}  // namespace

void Chat::on_permission(const v2::RequestPermissionRequest& request, acp::PermissionResponder responder) {
    // After session/cancel, what the agent still asks for the cancelled turn is answered
    // "cancelled" at once (CLIENT-GUIDE 7.4), never put in front of the user.
    if (cancel_sent_ && request.sessionId == session_ && of_foreground(request)) {
        responder.cancel();
        return;
    }
    const unsigned serial = ++permissions_received_;
    responder.on_withdrawn([this, serial] { withdraw_permission(serial); });
    PendingPermission pending{std::move(responder), request, serial};
    // Bounded: an agent that floods questions gets the excess answered "cancelled" at once.
    constexpr std::size_t kMaxWaiting = 32;
    if (permission_ && waiting_permissions_.size() >= kMaxWaiting) {
        pending.responder.cancel();
        if (++permissions_refused_ == 1) {
            error("too many permission requests waiting: the agent's further ones are answered cancelled");
        }
        return;
    }
    if (permission_) {
        line(style_.paint(Color::dim, "(another permission request waits its turn: " + sanitize(request.title) + ")"));
        waiting_permissions_.push_back(std::move(pending));
        if (tty_) {
            // The question on screen is still the one a key answers: ask it again.
            write(choices_of(permission_->request) + press_a_key(permission_->request));
            open_line_ = true;
        }
        return;
    }
    show_permission(std::move(pending));
}

void Chat::show_permission(PendingPermission pending) {
    const v2::RequestPermissionRequest& request = pending.request;
    end_stream();
    line(style_.paint(Color::magenta, "permission: " + sanitize(request.title)));
    line("  " + asker(request));
    if (request.description.has_value()) line("  " + sanitize(*request.description));
    if (tty_ && input_ != nullptr) {
        editor_.deactivate();  // a line being typed comes back with the prompt
        editor_.discard_typeahead();
        pasting_to_permission_ = false;
        // Raw mode before the question is visible, so the key that answers it is never
        // stuck in a line buffer; then whatever was typed before is thrown away.
        uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_RAW);
        tcflush(STDIN_FILENO, TCIFLUSH);
    }
    write(choices_of(request) + (tty_ ? press_a_key(request) : ""));
    open_line_ = tty_;
    permission_ = std::move(pending);
    process_next();
}

void Chat::next_permission() {
    permission_.reset();
    if (!waiting_permissions_.empty()) {
        PendingPermission next = std::move(waiting_permissions_.front());
        waiting_permissions_.pop_front();
        show_permission(std::move(next));
        return;
    }
    if (tty_ && input_ != nullptr && !quitting_) {
        uv_tty_set_mode(&tty_handle_, UV_TTY_MODE_NORMAL);
        editor_.quiet();  // keys typed until the turn ends wait for the prompt, unechoed
    }
    process_next();
}

void Chat::withdraw_permission(unsigned serial) {
    const auto waiting = std::find_if(waiting_permissions_.begin(), waiting_permissions_.end(),
                                      [serial](const PendingPermission& p) { return p.serial == serial; });
    if (waiting != waiting_permissions_.end()) {
        waiting_permissions_.erase(waiting);
        return;
    }
    if (!permission_ || permission_->serial != serial) return;
    line(style_.paint(Color::dim, "(the agent withdrew the permission request)"));
    next_permission();
}

// CLIENT-MUST-68: whether a request is known to be the foreground work's. An agent that
// never reported background work has none (the guide's repo model), nor has one that
// reports an empty list: then every request is. Otherwise a request about a tool call
// (or a command a tool call or terminal runs) is the foreground's unless that work is
// listed; one about nothing listed cannot be told apart and stays open (the agent
// withdraws the foreground's own requests itself, $/cancel_request).
bool Chat::of_foreground(const v2::RequestPermissionRequest& request) const {
    const acp::SessionState* state = client_->sessions().find(request.sessionId);
    if (state == nullptr || !state->foreground().background || state->foreground().background->empty()) return true;
    std::string tool_call;
    std::string terminal;
    if (request.subject.has_value()) {
        if (const auto* tool = request.subject->tool_call()) tool_call = tool->toolCall.toolCallId;
        if (const auto* command = request.subject->command()) {
            if (command->toolCallId.has_value()) tool_call = *command->toolCallId;
            if (command->terminalId.has_value()) terminal = *command->terminalId;
        }
    }
    if (tool_call.empty() && terminal.empty()) return false;
    for (const auto& work : *state->foreground().background) {
        if (work.kind() == v2::BackgroundWork::Kind::unknown) return false;  // cannot tell
        if (const auto* call = work.tool_call(); call && !tool_call.empty() && call->toolCallId == tool_call)
            return false;
        if (const auto* shell = work.terminal(); shell && !terminal.empty() && shell->terminalId == terminal)
            return false;
    }
    return true;
}

void Chat::cancel_permissions(const std::string& session, bool dismissed_on_screen) {
    // Answered in arrival order: the one on screen came first.
    const bool on_screen = permission_ && permission_->request.sessionId == session &&
                           (dismissed_on_screen || of_foreground(permission_->request));
    if (on_screen) permission_->responder.cancel();
    std::deque<PendingPermission> keep;
    for (auto& p : waiting_permissions_) {
        if (p.request.sessionId == session && of_foreground(p.request)) {
            p.responder.cancel();
        } else {
            keep.push_back(std::move(p));
        }
    }
    waiting_permissions_.swap(keep);
    if (on_screen) {
        end_stream();  // the question's line
        next_permission();
    }
}

bool Chat::answer_permission(const std::string& raw) {
    std::string answer = raw;
    while (!answer.empty() && answer.back() == ' ') answer.pop_back();
    const auto& options = permission_->request.options;
    const v2::PermissionOption* chosen = nullptr;
    if (answer.size() == 1 && answer[0] >= '1' && answer[0] <= '9') {
        const std::size_t index = static_cast<std::size_t>(answer[0] - '1');
        if (index < options.size()) chosen = &options[index];
    } else if (answer == "y" || answer == "n") {
        // Exactly allow_once or reject_once, whatever the options are called or their order:
        // an allow_always named "Allow once" is never what y picks.
        chosen = only_option(
            options, answer == "y" ? v2::PermissionOptionKind::allow_once : v2::PermissionOptionKind::reject_once);
    } else {
        for (const auto& o : options) {
            if (o.optionId == answer) chosen = &o;
        }
    }
    if (chosen == nullptr) return false;
    open_line_ = false;
    write(tty_ ? answer + "\n" : "");
    const bool allow =
        chosen->kind == v2::PermissionOptionKind::allow_once || chosen->kind == v2::PermissionOptionKind::allow_always;
    line(style_.paint(allow ? Color::green : Color::red, "-> " + kind_of(*chosen) + " " + sanitize(chosen->name)));
    const std::string option_id = chosen->optionId;
    const acp::PermissionResponder responder = permission_->responder;
    responder.select(option_id);
    next_permission();
    return true;
}

std::string Chat::permission_keys() const { return keys_of(permission_->request); }

}  // namespace chat
