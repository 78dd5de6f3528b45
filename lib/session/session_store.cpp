// SPDX-License-Identifier: Apache-2.0
// The session reducer: applies session/update with the patch semantics of CLIENT-GUIDE
// sections 6 and 7, and tells observers what changed.
#include <rapidjson/document.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "acp/session.hpp"
#include "jsonrpc/json.hpp"
#include "protocol/codec_support.hpp"
#include "protocol/unstable_additions.hpp"
#include "session/content_merge.hpp"
#include "session/session_observers.hpp"
#include "session/terminal_bytes.hpp"

namespace acp {

namespace un = acp::v2::unstable;

namespace {

constexpr std::size_t max_notices = 100;

std::size_t kind_slot(ItemKind kind) { return static_cast<std::size_t>(kind); }

bool same_foreground(const ForegroundState& a, const ForegroundState& b) {
    return a.state == b.state && a.stop_reason == b.stop_reason && a.error == b.error && a.raw == b.raw &&
           a.background == b.background && a.usage == b.usage;
}

template <class T>
void patch_optional(std::optional<T>& field, const Nullable<T>& patch) {
    if (patch.is_null()) {
        field.reset();
    } else if (patch.has_value()) {
        field = *patch;
    }
}

template <class T>
void patch_vector(std::vector<T>& field, const Nullable<std::vector<T>>& patch) {
    if (patch.is_null()) {
        field.clear();
    } else if (patch.has_value()) {
        field = *patch;
    }
}

// Keeps the first problem of an update; the rest of the update is applied regardless.
void note(Status& first, Status status) {
    if (first.ok() && !status.ok()) first = std::move(status);
}

// The planId of a plan type this version does not know (the codec made sure it is there).
std::string unknown_plan_id(const RawJson& raw) {
    rapidjson::Document document;
    document.Parse(raw.text.data(), raw.text.size());
    if (document.HasParseError()) return {};
    const detail::JsonValue* id = detail::find_member(document, "planId");
    return id != nullptr && id->IsString() ? std::string(detail::string_view_of(*id)) : std::string{};
}

}  // namespace

// Everything that mutates a SessionState lives here, so the state's invariants (items
// never move, index_ mirrors items_) are kept in one place.
struct SessionReducer {
    SessionStore& store;
    SessionState& s;
    Status problem;

    void emit(SessionEvent::Type type) {
        if (store.observers_->empty()) return;
        SessionEvent event{type, s.session_id_, &s, 0, ItemKind::unknown, {}, {}};
        store.observers_->dispatch(event);
    }

    void emit_item(SessionEvent::Type type, std::size_t index, std::optional<std::string_view> appended = {}) {
        if (store.observers_->empty()) return;
        const SessionItem& item = s.items_[index];
        SessionEvent event{type, s.session_id_, &s, index, item.kind(), item.id(), appended};
        store.observers_->dispatch(event);
    }

    // The item of kind and id, created with protocol defaults on first sight (CLIENT-MUST-50);
    // `inserted` says which. Position = first sighting.
    template <class T>
    std::pair<std::size_t, T*> upsert(ItemKind kind, const std::string& id, bool& inserted) {
        inserted = false;
        if (s.last_item_ < s.items_.size() && s.items_[s.last_item_].kind() == kind) {
            T* last = std::get_if<T>(&item_value(s.last_item_));
            if (last != nullptr && last->id == id) return {s.last_item_, last};
        }
        auto& index = s.index_[kind_slot(kind)];
        auto found = index.find(id);
        if (found != index.end()) {
            s.last_item_ = found->second;
            return {found->second, std::get_if<T>(&item_value(found->second))};
        }
        inserted = true;
        T fresh;
        fresh.id = id;
        s.items_.emplace_back(kind, std::move(fresh));
        const std::size_t position = s.items_.size() - 1;
        index.emplace(id, position);
        s.last_item_ = position;
        return {position, std::get_if<T>(&item_value(position))};
    }

    SessionItem::Value& item_value(std::size_t index);

    void changed(bool inserted, std::size_t index, std::optional<std::string_view> appended = {}) {
        emit_item(inserted ? SessionEvent::Type::item_inserted : SessionEvent::Type::item_changed, index, appended);
    }

    static ItemKind message_kind(v2::SessionUpdate::Kind kind) {
        switch (kind) {
            case v2::SessionUpdate::Kind::user_message_chunk:
            case v2::SessionUpdate::Kind::user_message: return ItemKind::user_message;
            case v2::SessionUpdate::Kind::agent_message_chunk:
            case v2::SessionUpdate::Kind::agent_message: return ItemKind::agent_message;
            default: return ItemKind::agent_thought;
        }
    }

    void message_chunk(ItemKind kind, const v2::ContentChunk& chunk) {
        bool inserted = false;
        auto [index, message] = upsert<MessageItem>(kind, chunk.messageId, inserted);
        // Chunk `_meta` is scoped to the chunk: it never patches the message.
        detail::append_block(message->content, chunk.content);
        const v2::TextContent* text = chunk.content.text();
        changed(inserted, index, text != nullptr ? std::string_view(text->text) : std::string_view());
    }

    // message_chunk() of a plain text block, from its parts.
    void text_chunk(ItemKind kind, const std::string& message_id, std::string_view text) {
        bool inserted = false;
        auto [index, message] = upsert<MessageItem>(kind, message_id, inserted);
        detail::append_text(message->content, text);
        changed(inserted, index, text);
    }

    template <class Upsert>
    void message(ItemKind kind, const Upsert& update) {
        bool inserted = false;
        auto [index, message] = upsert<MessageItem>(kind, update.messageId, inserted);
        // CLIENT-MUST-51: content replaces (chunks so far included), null/[] clear, absent keeps.
        if (update.content.is_null()) {
            message->content.clear();
        } else if (update.content.has_value()) {
            detail::assign_blocks(message->content, *update.content);
        }
        note(problem, detail::patch_meta(message->meta, update._meta));
        changed(inserted, index);
    }

    void tool_call(const v2::ToolCallUpdate& update) {
        bool inserted = false;
        auto [index, call] = upsert<ToolCallItem>(ItemKind::tool_call, update.toolCallId, inserted);
        patch_optional(call->name, update.name);
        patch_optional(call->title, update.title);
        // null resets a field with a default to it (CLIENT-GUIDE 6.1).
        if (update.kind.is_null()) {
            call->kind = v2::ToolKind{v2::ToolKind::other};
        } else if (update.kind.has_value()) {
            call->kind = *update.kind;
        }
        if (update.status.is_null()) {
            call->status = v2::ToolCallStatus{v2::ToolCallStatus::pending};
        } else if (update.status.has_value()) {
            call->status = *update.status;
        }
        patch_vector(call->content, update.content);  // CLIENT-MUST-53
        patch_vector(call->locations, update.locations);
        patch_optional(call->raw_input, update.rawInput);
        patch_optional(call->raw_output, update.rawOutput);
        patch_optional(call->capabilities, update.capabilities);
        note(problem, detail::patch_meta(call->meta, update._meta));
        changed(inserted, index);
    }

    void tool_call_content(const v2::ToolCallContentChunk& chunk) {
        bool inserted = false;
        auto [index, call] = upsert<ToolCallItem>(ItemKind::tool_call, chunk.toolCallId, inserted);
        call->content.push_back(chunk.content);
        changed(inserted, index);
    }

    void terminal(const v2::TerminalUpdate& update) {
        bool inserted = false;
        auto [index, terminal] = upsert<TerminalItem>(ItemKind::terminal, update.terminalId, inserted);
        patch_optional(terminal->command, update.command);
        patch_optional(terminal->cwd, update.cwd);
        if (update.output.is_null()) {
            clear_output(*terminal);
        } else if (update.output.has_value()) {
            // An authoritative snapshot: never spliced with the old bytes (CLIENT-MUST-54).
            std::string bytes;
            if (detail::base64_decode_append(update.output->data, bytes)) {
                clear_output(*terminal);
                append_output(*terminal, std::move(bytes));
            } else {
                note(problem, Status(Errc::protocol_error,
                                     "terminal " + update.terminalId + ": output is not base64, left unchanged"));
            }
        }
        patch_optional(terminal->exit_status, update.exitStatus);
        patch_optional(terminal->size, update.size);
        patch_optional(terminal->capabilities, update.capabilities);
        note(problem, detail::patch_meta(terminal->meta, update._meta));
        changed(inserted, index);
    }

    void terminal_chunk(const v2::TerminalOutputChunk& chunk) { terminal_chunk(chunk.terminalId, chunk.data); }

    void terminal_chunk(const std::string& terminal_id, std::string_view data) {
        bool inserted = false;
        auto [index, terminal] = upsert<TerminalItem>(ItemKind::terminal, terminal_id, inserted);
        // Each chunk is its own base64 text: decoded alone, never joined (CLIENT-MUST-54).
        std::string bytes;
        const std::size_t text_before = terminal->text.size();
        if (detail::base64_decode_append(data, bytes)) {
            append_output(*terminal, std::move(bytes));
        } else {
            note(problem, Status(Errc::protocol_error, "terminal " + terminal_id + ": chunk is not base64, dropped"));
        }
        changed(inserted, index, std::string_view(terminal->text).substr(text_before));
    }

    static void clear_output(TerminalItem& terminal) {
        terminal.bytes.clear();
        terminal.text.clear();
        terminal.pending_utf8.clear();
    }

    static void append_output(TerminalItem& terminal, std::string bytes) {
        detail::utf8_decode_append(bytes, terminal.pending_utf8, terminal.text);
        if (terminal.bytes.empty()) {
            terminal.bytes = std::move(bytes);
        } else {
            terminal.bytes += bytes;
        }
    }

    void plan(const v2::PlanUpdate& update) {
        // Replaces the plan with that planId whatever its type (CLIENT-MUST-55, -64); the
        // update's own _meta is not an entity patch.
        std::string id;
        if (const v2::PlanItems* items = update.plan.items()) {
            id = items->planId;
        } else if (const RawJson* raw = update.plan.unknown()) {
            id = unknown_plan_id(*raw);
        }
        bool inserted = false;
        auto [index, plan] = upsert<PlanItem>(ItemKind::plan, id, inserted);
        plan->plan = update.plan;
        plan->removed = false;
        changed(inserted, index);
    }

    // --- the unstable schema's updates (CLIENT-GUIDE 6.5, 6.7) -----------------------------

    void plan_removed(const un::PlanRemoved& removed) {
        const auto found = s.find(ItemKind::plan, removed.planId);
        if (!found) return;  // nothing to remove
        PlanItem* plan = std::get_if<PlanItem>(&item_value(*found));
        if (plan == nullptr || plan->removed) return;
        plan->removed = true;
        changed(false, *found);
    }

    void subagent(const un::SubagentUpdate& update) {
        bool inserted = false;
        auto [index, child] = upsert<SubagentItem>(ItemKind::subagent, update.sessionId, inserted);
        patch_optional(child->title, update.title);
        patch_optional(child->description, update.description);
        patch_optional(child->capabilities, update.capabilities);
        patch_optional(child->state, update.state);
        patch_optional(child->cwd, update.cwd);
        patch_optional(child->additional_directories, update.additionalDirectories);
        note(problem, detail::patch_meta(child->meta, update._meta));
        changed(inserted, index);
    }

    void session_message(const un::SessionMessage& update) {
        bool inserted = false;
        auto [index, message] = upsert<SessionMessageItem>(ItemKind::session_message, update.messageId, inserted);
        patch_optional(message->sender_session_id, update.senderSessionId);
        patch_optional(message->recipient_session_id, update.recipientSessionId);
        patch_optional(message->sender_message_id, update.senderMessageId);
        patch_optional(message->recipient_message_id, update.recipientMessageId);
        // CLIENT-MUST-51, as for messages: content replaces, null/[] clear, absent keeps.
        if (update.content.is_null()) {
            message->content.clear();
        } else if (update.content.has_value()) {
            detail::assign_blocks(message->content, *update.content);
        }
        note(problem, detail::patch_meta(message->meta, update._meta));
        changed(inserted, index);
    }

    void session_message_chunk(const un::SessionMessageChunk& chunk) {
        bool inserted = false;
        auto [index, message] = upsert<SessionMessageItem>(ItemKind::session_message, chunk.messageId, inserted);
        detail::append_block(message->content, chunk.content);
        const v2::TextContent* text = chunk.content.text();
        changed(inserted, index, text != nullptr ? std::string_view(text->text) : std::string_view());
    }

    // An update the stable schema does not know: one the unstable schema adds, or kept raw.
    bool unstable_update(const std::string& tag, const RawJson& raw) {
        un::SessionUpdateAdditions added;
        if (!detail::decode_variant(tag, raw, added)) return false;
        using Kind = un::SessionUpdateAdditions::Kind;
        switch (added.kind()) {
            case Kind::plan_removed: plan_removed(detail::must(added.plan_removed())); return true;
            case Kind::subagent_update: subagent(detail::must(added.subagent_update())); return true;
            case Kind::session_message: session_message(detail::must(added.session_message())); return true;
            case Kind::session_message_chunk:
                session_message_chunk(detail::must(added.session_message_chunk()));
                return true;
            case Kind::unknown: break;
        }
        return false;
    }

    void compaction(const v2::CompactionUpdate& update) {
        bool inserted = false;
        auto [index, compaction] = upsert<CompactionItem>(ItemKind::compaction, update.compactionId, inserted);
        compaction->status = update.status;
        if (update.summary.is_null()) {
            compaction->summary.clear();
        } else if (update.summary.has_value()) {
            detail::assign_blocks(compaction->summary, *update.summary);
        }
        patch_optional(compaction->error, update.error);
        note(problem, detail::patch_meta(compaction->meta, update._meta));
        changed(inserted, index);
    }

    void compaction_chunk(const v2::CompactionSummaryChunk& chunk) {
        bool inserted = false;
        // An unseen id creates an in_progress compaction (the item's default).
        auto [index, compaction] = upsert<CompactionItem>(ItemKind::compaction, chunk.compactionId, inserted);
        detail::append_block(compaction->summary, chunk.content);
        changed(inserted, index);
    }

    void state(const v2::StateUpdate& update) {
        ForegroundState next;
        next.state = update.tag();
        const Nullable<std::vector<v2::BackgroundWork>>* background = nullptr;
        if (const auto* running = update.running()) {
            background = &running->background;
        } else if (const auto* blocked = update.requires_action()) {
            background = &blocked->background;
        } else if (const auto* idle = update.idle()) {
            background = &idle->background;
            un::IdleStateUpdateAdditions added;
            if (!idle->extra_fields.empty() && detail::decode_additions(idle->extra_fields, added) &&
                added.usage.has_value()) {
                next.usage = *added.usage;
            }
            if (idle->stopReason.has_value()) {
                next.stop_reason = idle->stopReason->tag();
                if (const v2::ErrorStopReason* failure = idle->stopReason->error()) {
                    if (failure->error.has_value()) next.error = *failure->error;
                }
            }
        } else if (const RawJson* raw = update.unknown()) {
            // Kept as-is and busy, never idle (CLIENT-MUST-57).
            next.raw = *raw;
        }
        // Absent, null (and malformed, which the codec drops) = not reported (CLIENT-MUST-62).
        if (background != nullptr && background->has_value()) next.background = **background;

        if (same_foreground(next, s.foreground_)) return;  // repeats are idempotent
        const bool ends_work = s.foreground_.is_busy() && next.is_idle();
        s.foreground_ = std::move(next);
        emit(SessionEvent::Type::state_changed);
        // A replayed or resumed snapshot is state, not a completion (CLIENT-MUST-58).
        if (ends_work && !s.replaying_) emit(SessionEvent::Type::turn_ended);
    }

    void info(const v2::SessionInfoUpdate& update) {
        patch_optional(s.info_.title, update.title);
        patch_optional(s.info_.updated_at, update.updatedAt);
        note(problem, detail::patch_meta(s.info_.meta, update._meta));
        emit(SessionEvent::Type::info_changed);
    }

    void usage(const v2::UsageUpdate& update) {
        UsageState& usage = s.usage_ ? *s.usage_ : s.usage_.emplace();
        usage.used = update.used;
        usage.size = update.size;
        patch_optional(usage.cost, update.cost);  // absent = keep the last cost
        emit(SessionEvent::Type::usage_changed);
    }

    void notice(const v2::Notice& notice) {
        if (s.notices_.size() == max_notices) s.notices_.erase(s.notices_.begin());
        s.notices_.push_back(notice);
        emit(SessionEvent::Type::notice_added);
    }

    void unknown(const std::string& tag, const RawJson& raw) {
        if (unstable_update(tag, raw)) return;
        s.items_.emplace_back(ItemKind::unknown, UnknownItem{tag, raw});
        emit_item(SessionEvent::Type::item_inserted, s.items_.size() - 1);
    }

    void apply(const v2::SessionUpdate& update) {
        using Kind = v2::SessionUpdate::Kind;
        switch (update.kind()) {
            case Kind::user_message_chunk:
                message_chunk(ItemKind::user_message, detail::must(update.user_message_chunk()));
                break;
            case Kind::agent_message_chunk:
                message_chunk(ItemKind::agent_message, detail::must(update.agent_message_chunk()));
                break;
            case Kind::agent_thought_chunk:
                message_chunk(ItemKind::agent_thought, detail::must(update.agent_thought_chunk()));
                break;
            case Kind::user_message: message(ItemKind::user_message, detail::must(update.user_message())); break;
            case Kind::agent_message: message(ItemKind::agent_message, detail::must(update.agent_message())); break;
            case Kind::agent_thought: message(ItemKind::agent_thought, detail::must(update.agent_thought())); break;
            case Kind::state_update: state(detail::must(update.state_update())); break;
            case Kind::tool_call_content_chunk:
                tool_call_content(detail::must(update.tool_call_content_chunk()));
                break;
            case Kind::tool_call_update: tool_call(detail::must(update.tool_call_update())); break;
            case Kind::terminal_update: terminal(detail::must(update.terminal_update())); break;
            case Kind::terminal_output_chunk: terminal_chunk(detail::must(update.terminal_output_chunk())); break;
            case Kind::plan_update: plan(detail::must(update.plan_update())); break;
            case Kind::available_commands_update:
                // Whole-list replacement (CLIENT-MUST-56).
                s.available_commands_ = detail::must(update.available_commands_update()).availableCommands;
                emit(SessionEvent::Type::commands_changed);
                break;
            case Kind::config_option_update:
                s.config_options_ = detail::must(update.config_option_update()).configOptions;
                emit(SessionEvent::Type::config_options_changed);
                break;
            case Kind::session_info_update: info(detail::must(update.session_info_update())); break;
            case Kind::usage_update: usage(detail::must(update.usage_update())); break;
            case Kind::notice: notice(detail::must(update.notice())); break;
            case Kind::compaction_update: compaction(detail::must(update.compaction_update())); break;
            case Kind::compaction_summary_chunk:
                compaction_chunk(detail::must(update.compaction_summary_chunk()));
                break;
            case Kind::unknown: unknown(update.tag(), detail::must(update.unknown())); break;
        }
    }
};

SessionItem::Value& SessionReducer::item_value(std::size_t index) { return s.items_[index].value_; }

std::optional<std::size_t> SessionState::find(ItemKind kind, std::string_view id) const {
    if (kind == ItemKind::unknown) return std::nullopt;
    const auto& index = index_[kind_slot(kind)];
    auto found = index.find(std::string(id));
    if (found == index.end()) return std::nullopt;
    return found->second;
}

const SessionItem* SessionState::item(ItemKind kind, std::string_view id) const {
    const auto index = find(kind, id);
    return index ? &items_[*index] : nullptr;
}

SessionSubscription::SessionSubscription(SessionSubscription&& other) noexcept
    : observers_(std::move(other.observers_)), id_(other.id_) {
    other.id_ = 0;
}

SessionSubscription& SessionSubscription::operator=(SessionSubscription&& other) noexcept {
    if (this != &other) {
        reset();
        observers_ = std::move(other.observers_);
        id_ = other.id_;
        other.id_ = 0;
    }
    return *this;
}

SessionSubscription::~SessionSubscription() { reset(); }

void SessionSubscription::reset() {
    if (auto observers = observers_.lock()) observers->remove(id_);
    observers_.reset();
    id_ = 0;
}

SessionStore::SessionStore() : observers_(std::make_shared<detail::SessionObservers>()) {}
SessionStore::~SessionStore() = default;

SessionState& SessionStore::session(const std::string& session_id) {
    if (last_ != nullptr && last_->session_id_ == session_id) return *last_;
    auto found = sessions_.find(session_id);
    if (found == sessions_.end()) {
        found = sessions_.emplace(session_id, std::make_unique<SessionState>(session_id)).first;
        last_ = found->second.get();
        SessionReducer{*this, *last_, {}}.emit(SessionEvent::Type::session_added);
        return *last_;
    }
    last_ = found->second.get();
    return *last_;
}

Status SessionStore::apply(const v2::UpdateSessionNotification& notification) {
    return apply(notification.sessionId, notification.update);
}

SessionState& SessionStore::session_for_change(const std::string& session_id) {
    SessionState& state = session(session_id);
    if (state.reset_pending_) reset(state);
    return state;
}

void SessionStore::reset(SessionState& state) {
    state.reset_pending_ = false;
    state.items_.clear();
    for (auto& index : state.index_) index.clear();
    state.foreground_ = ForegroundState{};
    state.config_options_.reset();
    state.available_commands_.reset();
    // What a session/list answer said after begin_replay is as current as the replay.
    if (!state.info_listed_while_pending_) state.info_ = SessionInfoState{};
    state.info_listed_while_pending_ = false;
    state.usage_.reset();
    state.notices_.clear();
    SessionReducer{*this, state, {}}.emit(SessionEvent::Type::session_reset);
}

Status SessionStore::apply(const std::string& session_id, const v2::SessionUpdate& update) {
    SessionReducer reducer{*this, session_for_change(session_id), {}};
    reducer.apply(update);
    return reducer.problem;
}

Status SessionStore::apply_text_chunk(const std::string& session_id, ItemKind kind, const std::string& message_id,
                                      std::string_view text) {
    if (kind != ItemKind::user_message && kind != ItemKind::agent_message && kind != ItemKind::agent_thought) {
        return Status(Errc::invalid_argument, "apply_text_chunk: not a message kind");
    }
    SessionReducer reducer{*this, session_for_change(session_id), {}};
    reducer.text_chunk(kind, message_id, text);
    return reducer.problem;
}

Status SessionStore::apply_terminal_chunk(const std::string& session_id, const std::string& terminal_id,
                                          std::string_view data) {
    SessionReducer reducer{*this, session_for_change(session_id), {}};
    reducer.terminal_chunk(terminal_id, data);
    return reducer.problem;
}

Status SessionStore::apply_permission_subject(const std::string& session_id, const v2::ToolCallUpdate& tool_call) {
    SessionReducer reducer{*this, session_for_change(session_id), {}};
    reducer.tool_call(tool_call);
    return reducer.problem;
}

void SessionStore::begin_replay(const std::string& session_id) {
    const bool held = sessions_.count(session_id) != 0;
    SessionState& state = session(session_id);
    // Chunks replayed onto the old transcript would duplicate it (CLIENT-GUIDE 7.6): the
    // replay starts from what a fresh client holds. The reset waits for the first change
    // the replay brings, so a refused resume leaves the session as it was.
    state.reset_pending_ = held;
    state.replaying_ = true;
}

void SessionStore::begin_resume(const std::string& session_id) { session(session_id).replaying_ = true; }

void SessionStore::end_replay(const std::string& session_id) {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end() || !found->second->replaying_) return;
    // The agent replayed nothing at all: the session it resumed is empty.
    if (found->second->reset_pending_) reset(*found->second);
    found->second->replaying_ = false;
    SessionReducer{*this, *found->second, {}}.emit(SessionEvent::Type::replay_ended);
}

void SessionStore::abort_replay(const std::string& session_id) {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end() || !found->second->replaying_) return;
    found->second->reset_pending_ = false;
    found->second->replaying_ = false;
    SessionReducer{*this, *found->second, {}}.emit(SessionEvent::Type::replay_ended);
}

void SessionStore::mark_cancelled(const std::string& session_id) {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end()) return;
    SessionState& state = *found->second;
    // Nothing foreground to cancel while idle.
    if (state.foreground_.is_idle()) return;
    std::unordered_set<std::string> background;
    if (state.foreground_.background) {
        for (const auto& work : *state.foreground_.background) {
            if (const auto* call = work.tool_call()) background.insert(call->toolCallId);
        }
    }
    SessionReducer reducer{*this, state, {}};
    for (std::size_t i = 0; i < state.items_.size(); ++i) {
        ToolCallItem* call = state.items_[i].tool_call();
        if (call == nullptr || call->is_final() || background.count(call->id) != 0) continue;
        call->status = v2::ToolCallStatus{v2::ToolCallStatus::cancelled};
        reducer.emit_item(SessionEvent::Type::item_changed, i);
    }
}

void SessionStore::set_config_options(const std::string& session_id, std::vector<v2::SessionConfigOption> options) {
    SessionState& state = session_for_change(session_id);
    state.config_options_ = std::move(options);
    SessionReducer{*this, state, {}}.emit(SessionEvent::Type::config_options_changed);
}

void SessionStore::set_available_commands(const std::string& session_id, std::vector<v2::AvailableCommand> commands) {
    SessionState& state = session_for_change(session_id);
    state.available_commands_ = std::move(commands);
    SessionReducer{*this, state, {}}.emit(SessionEvent::Type::commands_changed);
}

void SessionStore::set_session_info(const v2::SessionInfo& info) {
    SessionState& state = session(info.sessionId);
    SessionInfoState next;
    if (info.title.has_value()) next.title = *info.title;
    if (info.updatedAt.has_value()) next.updated_at = *info.updatedAt;
    next.cwd = info.cwd;
    // Taken as reported, never merged with earlier values (CLIENT-MUST-44).
    next.additional_directories = info.additionalDirectories;
    SessionReducer reducer{*this, state, {}};
    (void)detail::patch_meta(next.meta, info._meta);
    state.info_ = std::move(next);
    state.info_listed_while_pending_ = state.reset_pending_;
    reducer.emit(SessionEvent::Type::info_changed);
}

void SessionStore::remove(const std::string& session_id) {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end()) return;
    if (last_ == found->second.get()) last_ = nullptr;
    std::unique_ptr<SessionState> gone = std::move(found->second);
    sessions_.erase(found);
    if (!observers_->empty()) {
        observers_->dispatch(SessionEvent{
            SessionEvent::Type::session_removed, gone->session_id_, nullptr, 0, ItemKind::unknown, {}, {}});
    }
}

const SessionState* SessionStore::find(std::string_view session_id) const {
    auto found = sessions_.find(std::string(session_id));
    return found == sessions_.end() ? nullptr : found->second.get();
}

SessionSubscription SessionStore::subscribe(SessionObserver observer) {
    const std::uint64_t id = observers_->next_id++;
    auto& list = observers_->dispatching > 0 ? observers_->added : observers_->entries;
    list.push_back({id, std::move(observer), true});
    return SessionSubscription(observers_, id);
}

}  // namespace acp
