// SPDX-License-Identifier: Apache-2.0
#include "capi/session_copy.hpp"

#include <memory>

#include "capi/json_text.hpp"

namespace acp::capi {

namespace {

// Optional arrays of the dump, as JSON text (nullopt when not reported).
template <class T>
std::optional<std::string> optional_array_json(const std::optional<std::vector<T>>& values) {
    if (!values) return std::nullopt;
    std::string json = "[";
    for (const auto& value : *values) {
        if (json.size() > 1) json += ",";
        json += encode_json(value);
    }
    return json + "]";
}

}  // namespace

ItemBasics copy_basics(const SessionItem& item, std::size_t index) {
    ItemBasics basics;
    basics.index = static_cast<int>(index);
    basics.kind = static_cast<int>(item.kind());
    basics.id = item.id();
    basics.json = to_json(item);
    if (const MessageItem* message = item.message()) {
        std::string text;
        for (const auto& block : message->content) {
            if (const v2::TextContent* t = block.text()) text += t->text;
        }
        basics.text = std::move(text);
    } else if (const TerminalItem* terminal = item.terminal()) {
        basics.text = terminal->text;
    } else if (const ToolCallItem* call = item.tool_call()) {
        basics.title = call->title;
        basics.status = call->status.value;
    } else if (const CompactionItem* compaction = item.compaction()) {
        basics.status = compaction->status.value;
    }
    return basics;
}

acp_item* copy_item(const SessionItem& item, std::size_t index) {
    auto copy = std::make_unique<acp_item>();
    static_cast<ItemBasics&>(*copy) = copy_basics(item, index);
    if (const ToolCallItem* call = item.tool_call()) copy->tool_kind = call->kind.value;
    rapidjson::Document document;
    document.Parse(copy->json.c_str(), copy->json.size());
    if (!document.HasParseError() && document.IsObject()) {
        for (const auto& member : document.GetObject()) {
            copy->fields.emplace_back(std::string(member.name.GetString(), member.name.GetStringLength()),
                                      detail::to_json_text(member.value));
        }
        const char* blocks = item.compaction() != nullptr ? "summary" : "content";
        if (const auto* array = detail::find_member(document, blocks); array != nullptr && array->IsArray()) {
            for (const auto& block : array->GetArray()) copy->content.push_back(detail::to_json_text(block));
        }
    }
    return copy.release();
}

acp_session* copy_session(const SessionState& state) {
    auto s = std::make_unique<acp_session>();
    s->id = state.session_id();
    s->json = to_json(state);
    s->state = state.foreground().state;
    s->stop_reason = state.foreground().stop_reason;
    s->title = state.info().title;
    s->config_options = optional_array_json(state.config_options());
    s->commands = optional_array_json(state.available_commands());
    if (const auto& usage = state.usage()) {
        s->has_usage = true;
        s->used = static_cast<double>(usage->used);
        s->size = static_cast<double>(usage->size);
    }
    s->items.reserve(state.items().size());
    for (std::size_t i = 0; i < state.items().size(); ++i) s->items.push_back(copy_basics(state.items()[i], i));
    return s.release();
}

}  // namespace acp::capi
