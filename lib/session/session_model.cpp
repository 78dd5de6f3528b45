// SPDX-License-Identifier: Apache-2.0
// Members of the model types of acp/session.hpp, out of line so that the header does not
// instantiate std::variant's and std::vector's machinery in every file that includes it.
#include <type_traits>
#include <utility>

#include "acp/session.hpp"
#include "protocol/unstable_additions.hpp"

namespace acp {

SessionState::SessionState(std::string session_id) : session_id_(std::move(session_id)) {}

SessionItem::SessionItem(ItemKind kind, Value value) : kind_(kind), value_(std::move(value)) {}

const MessageItem* SessionItem::message() const { return std::get_if<MessageItem>(&value_); }
const ToolCallItem* SessionItem::tool_call() const { return std::get_if<ToolCallItem>(&value_); }
const PlanItem* SessionItem::plan() const { return std::get_if<PlanItem>(&value_); }
const TerminalItem* SessionItem::terminal() const { return std::get_if<TerminalItem>(&value_); }
const CompactionItem* SessionItem::compaction() const { return std::get_if<CompactionItem>(&value_); }
const UnknownItem* SessionItem::unknown() const { return std::get_if<UnknownItem>(&value_); }
const SubagentItem* SessionItem::subagent() const { return std::get_if<SubagentItem>(&value_); }
const SessionMessageItem* SessionItem::session_message() const { return std::get_if<SessionMessageItem>(&value_); }

MessageItem* SessionItem::message() { return std::get_if<MessageItem>(&value_); }
ToolCallItem* SessionItem::tool_call() { return std::get_if<ToolCallItem>(&value_); }
PlanItem* SessionItem::plan() { return std::get_if<PlanItem>(&value_); }
TerminalItem* SessionItem::terminal() { return std::get_if<TerminalItem>(&value_); }
CompactionItem* SessionItem::compaction() { return std::get_if<CompactionItem>(&value_); }

const std::string& SessionItem::id() const {
    return std::visit(
        [](const auto& item) -> const std::string& {
            if constexpr (std::is_same_v<std::decay_t<decltype(item)>, UnknownItem>) {
                return item.tag;
            } else {
                return item.id;
            }
        },
        value_);
}

std::string_view item_kind_name(ItemKind kind) {
    switch (kind) {
        case ItemKind::user_message: return "user_message";
        case ItemKind::agent_message: return "agent_message";
        case ItemKind::agent_thought: return "agent_thought";
        case ItemKind::tool_call: return "tool_call";
        case ItemKind::plan: return "plan";
        case ItemKind::terminal: return "terminal";
        case ItemKind::compaction: return "compaction";
        case ItemKind::subagent: return "subagent";
        case ItemKind::session_message: return "session_message";
        case ItemKind::unknown: break;
    }
    return "unknown";
}

std::optional<v2::unstable::PlanUpdateContentAdditions> PlanItem::unstable() const {
    const RawJson* raw = plan.unknown();
    if (raw == nullptr) return std::nullopt;
    v2::unstable::PlanUpdateContentAdditions added;
    if (!detail::decode_variant(plan.tag(), *raw, added) ||
        added.kind() == v2::unstable::PlanUpdateContentAdditions::Kind::unknown) {
        return std::nullopt;
    }
    return added;
}

bool ToolCallItem::is_final() const {
    return status == v2::ToolCallStatus::completed || status == v2::ToolCallStatus::failed ||
           status == v2::ToolCallStatus::cancelled;
}

}  // namespace acp
