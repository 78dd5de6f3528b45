// SPDX-License-Identifier: Apache-2.0
// acp/session.hpp — the session model: every session's conversation, assembled exactly
// from the session/update stream (live or replayed), ready for a UI to render.
//
// A SessionStore keeps one SessionState per session id. Feed it every update in receive
// order and every permission request's tool-call subject; read the state or subscribe to
// fine-grained change events. The rules it follows are in docs/session-model.md.
//
//   acp::SessionStore store;
//   auto subscription = store.subscribe([](const acp::SessionEvent& e) {
//       if (e.type == acp::SessionEvent::Type::item_changed) redraw(e.session_id, e.index);
//   });
//   client->on_session_update([&](const acp::v2::UpdateSessionNotification& n) { store.apply(n); });
//   // on_permission_request: store.apply_permission_subject(request.sessionId, subject.toolCall);
//   // before session/resume with replayFrom start: store.begin_replay(id); after it: store.end_replay(id);
//   std::string dump = acp::to_json(*store.find("sess-1"));
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "acp/export.hpp"
#include "acp/json.hpp"
#include "acp/status.hpp"
#include "acp/v2/types.hpp"
#include "acp/v2/unstable.hpp"

namespace acp {

namespace detail {
struct SessionObservers;
}  // namespace detail

// Stored `_meta` of an upsert-style entity: top-level key -> value (CLIENT-GUIDE 1.5).
// Sorted by key so a dump is deterministic; empty = no metadata.
using MetaMap = std::map<std::string, RawJson, std::less<>>;

// subagent and session_message come from the unstable schema (CLIENT-GUIDE 6.7); they
// follow `unknown` so the values of the others (and the C API's ACP_ITEM_*) stay.
enum class ItemKind {
    user_message,
    agent_message,
    agent_thought,
    tool_call,
    plan,
    terminal,
    compaction,
    unknown,
    subagent,
    session_message
};

// Wire name of an item kind ("agent_message", "tool_call", ...).
ACP_EXPORT std::string_view item_kind_name(ItemKind kind);

// A user, agent or thought message. Adjacent plain text blocks (no annotations, _meta or
// unknown members) are kept as one block: they render as concatenated text anyway, and a
// streamed message then costs its text, not a block per chunk.
struct MessageItem {
    std::string id;
    std::vector<v2::ContentBlock> content;
    MetaMap meta;
};

struct ToolCallItem {
    std::string id;
    std::optional<std::string> name;
    std::optional<std::string> title;
    v2::ToolKind kind{v2::ToolKind::other};                  // unknown kinds kept as-is (display as other)
    v2::ToolCallStatus status{v2::ToolCallStatus::pending};  // unknown statuses kept (= running)
    std::vector<v2::ToolCallContent> content;
    std::vector<v2::ToolCallLocation> locations;
    std::optional<RawJson> raw_input;
    std::optional<RawJson> raw_output;
    std::optional<v2::ToolCallCapabilities> capabilities;
    MetaMap meta;

    // completed, failed or cancelled.
    bool is_final() const;
};

struct PlanItem {
    std::string id;
    // items, or a type the stable schema does not know kept raw: the unstable `markdown` and
    // `file` types read typed through `unstable()`.
    v2::PlanUpdateContent plan;
    // plan_removed (unstable): the plan is gone; the item keeps its place (items never move)
    // and a later plan_update with the id brings it back.
    bool removed = false;

    // The unstable plan types (markdown, file); nullopt for items and for other types.
    std::optional<v2::unstable::PlanUpdateContentAdditions> unstable() const;
};

// A display-only terminal. `bytes` are the raw output bytes; `text` is their UTF-8
// decoding (invalid bytes become U+FFFD) up to a sequence still incomplete at the end,
// whose bytes wait for the next chunk.
struct TerminalItem {
    std::string id;
    std::optional<std::string> command;
    std::optional<std::string> cwd;
    std::string bytes;
    std::string text;
    std::string pending_utf8;                           // the start of a sequence the next chunk may complete
    std::optional<v2::TerminalExitStatus> exit_status;  // present = the process exited
    std::optional<v2::TerminalSize> size;
    std::optional<v2::TerminalCapabilities> capabilities;
    MetaMap meta;
};

struct CompactionItem {
    std::string id;
    v2::CompactionStatus status{v2::CompactionStatus::in_progress};
    std::vector<v2::ContentBlock> summary;
    std::optional<std::string> error;
    MetaMap meta;
};

// A child session this one owns (unstable subagent_update, CLIENT-GUIDE 6.7); the id is the
// child's sessionId. Fields patch like any upsert.
struct SubagentItem {
    std::string id;
    std::optional<std::string> title;
    std::optional<std::string> description;
    std::optional<v2::unstable::SubagentSessionCapabilities> capabilities;
    std::optional<v2::StateUpdate> state;  // mirrored; nullopt = unconfirmed
    std::optional<std::string> cwd;
    std::optional<std::vector<std::string>> additional_directories;
    MetaMap meta;
};

// An inter-session message (unstable session_message and session_message_chunk); content
// follows the message rules (CLIENT-MUST-51).
struct SessionMessageItem {
    std::string id;
    std::optional<std::string> sender_session_id;
    std::optional<std::string> recipient_session_id;
    std::optional<std::string> sender_message_id;
    std::optional<std::string> recipient_message_id;
    std::vector<v2::ContentBlock> content;
    MetaMap meta;
};

// An update variant this version does not know, kept verbatim (CLIENT-MUST-17).
struct UnknownItem {
    std::string tag;  // its sessionUpdate value
    RawJson raw;      // the whole update object
};

class ACP_EXPORT SessionItem {
public:
    using Value = std::variant<MessageItem, ToolCallItem, PlanItem, TerminalItem, CompactionItem, UnknownItem,
                               SubagentItem, SessionMessageItem>;

    SessionItem(ItemKind kind, Value value);

    ItemKind kind() const { return kind_; }
    // The entity id (messageId, toolCallId, ...); the tag for an unknown item.
    const std::string& id() const;

    // For user_message, agent_message and agent_thought.
    const MessageItem* message() const;
    const ToolCallItem* tool_call() const;
    const PlanItem* plan() const;
    const TerminalItem* terminal() const;
    const CompactionItem* compaction() const;
    const UnknownItem* unknown() const;
    const SubagentItem* subagent() const;
    const SessionMessageItem* session_message() const;

    MessageItem* message();
    ToolCallItem* tool_call();
    PlanItem* plan();
    TerminalItem* terminal();
    CompactionItem* compaction();

private:
    friend struct SessionReducer;
    ItemKind kind_;
    Value value_;
};

// The foreground state from the last state_update (a full snapshot each time).
struct ForegroundState {
    // running, idle, requires_action, or an unrecognised value kept as-is.
    std::string state{"idle"};
    // Idle only: the reported stop reason (custom values kept); nullopt = not reported.
    std::optional<std::string> stop_reason;
    // Idle with stopReason "error": the failure, when the agent sent one.
    std::optional<v2::Error> error;
    // The whole state_update object of an unrecognised state (the unstable `unknown`, the
    // agent cannot observe its activity, is one: busy, never idle).
    std::optional<RawJson> raw;
    // Idle (unstable): the token counts of the work that just finished, when reported.
    std::optional<v2::unstable::Usage> usage;
    // nullopt = not reported (unknown, not "nothing", CLIENT-MUST-62); empty = nothing runs.
    std::optional<std::vector<v2::BackgroundWork>> background;

    bool is_idle() const { return state == "idle"; }
    // Anything but idle: an unrecognised state is busy, never idle (CLIENT-MUST-57).
    bool is_busy() const { return !is_idle(); }
    bool is_known() const { return state == "idle" || state == "running" || state == "requires_action"; }
};

struct SessionInfoState {
    std::optional<std::string> title;
    std::optional<std::string> updated_at;
    // From session/list or the host (set_session_info); never changed by updates.
    std::optional<std::string> cwd;
    std::optional<std::vector<std::string>> additional_directories;
    MetaMap meta;
};

struct UsageState {
    uint64_t used = 0;
    uint64_t size = 0;
    std::optional<v2::Cost> cost;
};

class ACP_EXPORT SessionState {
public:
    explicit SessionState(std::string session_id);

    const std::string& session_id() const { return session_id_; }
    // The history in first-sighting order; an item never moves once inserted.
    const std::vector<SessionItem>& items() const { return items_; }
    // Index into items() of the entity, or nullopt. Messages are keyed by kind and id.
    std::optional<std::size_t> find(ItemKind kind, std::string_view id) const;
    const SessionItem* item(ItemKind kind, std::string_view id) const;

    const ForegroundState& foreground() const { return foreground_; }
    // nullopt until the agent (or the host, from a response) reported them.
    const std::optional<std::vector<v2::SessionConfigOption>>& config_options() const { return config_options_; }
    const std::optional<std::vector<v2::AvailableCommand>>& available_commands() const { return available_commands_; }
    const SessionInfoState& info() const { return info_; }
    const std::optional<UsageState>& usage() const { return usage_; }
    // Live hints in arrival order; not history, not replayed.
    const std::vector<v2::Notice>& notices() const { return notices_; }
    // Between begin_replay() and end_replay().
    bool replaying() const { return replaying_; }

private:
    friend class SessionStore;
    friend struct SessionReducer;

    std::string session_id_;
    std::vector<SessionItem> items_;
    // One id space per entity kind (CLIENT-MUST-52); values index items_.
    std::unordered_map<std::string, std::size_t> index_[10];
    // The item the last upsert found: a stream appends to one item many times in a row,
    // so the next chunk usually skips the hash lookup. Checked against items_ before use.
    std::size_t last_item_ = static_cast<std::size_t>(-1);
    ForegroundState foreground_;
    std::optional<std::vector<v2::SessionConfigOption>> config_options_;
    std::optional<std::vector<v2::AvailableCommand>> available_commands_;
    SessionInfoState info_;
    std::optional<UsageState> usage_;
    std::vector<v2::Notice> notices_;
    bool replaying_ = false;
    bool reset_pending_ = false;              // begin_replay() on a held session, until the replay's first change
    bool info_listed_while_pending_ = false;  // set_session_info() since then: the reset keeps it
};

// One change, delivered synchronously in the order the changes happened. References are
// valid only during the callback.
struct SessionEvent {
    enum class Type {
        session_added,    // first update for an unseen session id
        session_reset,    // a full replay began (its first change): the session is empty again
        session_removed,  // remove(); `session` is null
        item_inserted,    // items()[index] is new
        item_changed,     // items()[index] changed in place
        state_changed,    // foreground() differs from before
        turn_ended,       // foreground work became idle (a real completion, CLIENT-MUST-58)
        config_options_changed,
        commands_changed,
        info_changed,
        usage_changed,
        notice_added,  // notices().back() is new
        replay_ended,  // end_replay()
    };
    Type type;
    std::string_view session_id;
    const SessionState* session = nullptr;
    // Item events only.
    std::size_t index = 0;
    ItemKind item_kind = ItemKind::unknown;
    std::string_view item_id;
    // Item events caused by a chunk that only appended to the item's text (a message
    // chunk, a terminal output chunk): the text it appended ("" for a block without text,
    // or bytes still waiting to complete a UTF-8 sequence). Unset for every other change
    // (an upsert may have replaced the text): read the item again then. A host following
    // a streamed reply does work of the chunk's size, not the message's.
    std::optional<std::string_view> appended_text;
};

using SessionObserver = std::function<void(const SessionEvent&)>;

// Keeps an observer subscribed while alive; movable. Outliving the store is harmless.
class ACP_EXPORT SessionSubscription {
public:
    SessionSubscription() = default;
    SessionSubscription(SessionSubscription&& other) noexcept;
    SessionSubscription& operator=(SessionSubscription&& other) noexcept;
    SessionSubscription(const SessionSubscription&) = delete;
    SessionSubscription& operator=(const SessionSubscription&) = delete;
    ~SessionSubscription();

    void reset();

private:
    friend class SessionStore;
    SessionSubscription(std::weak_ptr<detail::SessionObservers> observers, std::uint64_t id)
        : observers_(std::move(observers)), id_(id) {}

    std::weak_ptr<detail::SessionObservers> observers_;
    std::uint64_t id_ = 0;
};

class ACP_EXPORT SessionStore {
public:
    SessionStore();
    ~SessionStore();
    SessionStore(const SessionStore&) = delete;
    SessionStore& operator=(const SessionStore&) = delete;

    // Applies one update to its session (created on first sight). Everything applicable is
    // applied; a non-ok status names what was not (undecodable base64, a non-object _meta).
    Status apply(const v2::UpdateSessionNotification& notification);
    Status apply(const std::string& session_id, const v2::SessionUpdate& update);
    // A user_message_chunk / agent_message_chunk / agent_thought_chunk (kind: user_message,
    // agent_message or agent_thought) whose content is a text block with nothing but text:
    // the same change as apply() of that update, without building it. The Client's
    // receive path feeds streamed text this way straight from the parsed line.
    Status apply_text_chunk(const std::string& session_id, ItemKind kind, const std::string& message_id,
                            std::string_view text);
    // A terminal_output_chunk (data: its base64 text): the same change as apply() of it.
    Status apply_terminal_chunk(const std::string& session_id, const std::string& terminal_id, std::string_view data);
    // A permission request's tool_call subject, applied like a tool_call_update (CLIENT-MUST-70).
    Status apply_permission_subject(const std::string& session_id, const v2::ToolCallUpdate& tool_call);

    // Before a full replay (session/resume with replayFrom start): the session becomes empty,
    // so the replay rebuilds exactly what a fresh client would hold. The reset (and its
    // session_reset event) happens at the replay's first change, so a resume the agent
    // refuses leaves the session untouched (abort_replay). Idle snapshots until
    // end_replay() are state, not completions (CLIENT-MUST-58).
    void begin_replay(const std::string& session_id);
    // Before a session/resume without replay: nothing is reset, but the state snapshot the
    // agent sends is not a completion either. Ended by end_replay().
    void begin_resume(const std::string& session_id);
    // After the session/resume response.
    void end_replay(const std::string& session_id);
    // After a failed session/resume: a session nothing was replayed into yet keeps what
    // it held; whatever the agent did replay before failing stays.
    void abort_replay(const std::string& session_id);

    // Right after sending session/cancel: unfinished tool calls of the foreground work (not
    // listed as background work) become cancelled locally; later agent updates still win.
    void mark_cancelled(const std::string& session_id);

    // From responses (session/new, session/resume, session/set_config_option): replace wholesale.
    void set_config_options(const std::string& session_id, std::vector<v2::SessionConfigOption> options);
    void set_available_commands(const std::string& session_id, std::vector<v2::AvailableCommand> commands);
    // From session/list: replaces title, updatedAt, cwd, additionalDirectories and _meta.
    void set_session_info(const v2::SessionInfo& info);

    // After session/close: drops the session.
    void remove(const std::string& session_id);

    const SessionState* find(std::string_view session_id) const;
    std::size_t size() const { return sessions_.size(); }

    // Observers run synchronously inside the call that caused the change.
    [[nodiscard]] SessionSubscription subscribe(SessionObserver observer);

private:
    friend struct SessionReducer;
    SessionState& session(const std::string& session_id);
    // session(), after the reset a pending full replay owes it.
    SessionState& session_for_change(const std::string& session_id);
    void reset(SessionState& state);

    std::unordered_map<std::string, std::unique_ptr<SessionState>> sessions_;
    std::shared_ptr<detail::SessionObservers> observers_;
    // The session of the last apply(): streams rarely switch sessions.
    SessionState* last_ = nullptr;
};

// The whole model of a session as canonical JSON (format: docs/session-model.md).
ACP_EXPORT std::string to_json(const SessionState& session);
// One item as it appears in that dump.
ACP_EXPORT std::string to_json(const SessionItem& item);

}  // namespace acp
