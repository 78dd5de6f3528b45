// SPDX-License-Identifier: Apache-2.0
#include "client/text_chunk_view.hpp"

namespace acp::detail {

namespace {

bool is_key(const JsonValue& name, std::string_view key) { return string_view_of(name) == key; }

ItemKind chunk_kind(const JsonValue& tag) {
    if (!tag.IsString()) return ItemKind::unknown;
    const std::string_view name = string_view_of(tag);
    if (name == "agent_message_chunk") return ItemKind::agent_message;
    if (name == "agent_thought_chunk") return ItemKind::agent_thought;
    if (name == "user_message_chunk") return ItemKind::user_message;
    return ItemKind::unknown;
}

// {"type":"text","text":"..."} with no other member: the text's value, or nullptr.
const JsonValue* plain_text(const JsonValue& content) {
    if (!content.IsObject() || content.MemberCount() != 2) return nullptr;
    const JsonValue* type = nullptr;
    const JsonValue* text = nullptr;
    for (auto member = content.MemberBegin(); member != content.MemberEnd(); ++member) {
        if (is_key(member->name, "type")) {
            type = &member->value;
        } else if (is_key(member->name, "text")) {
            text = &member->value;
        }
    }
    if (type == nullptr || text == nullptr || !type->IsString() || !text->IsString()) return nullptr;
    return string_view_of(*type) == "text" ? text : nullptr;
}

// {sessionId, update} with nothing else: the update object (of `members` members) and the
// session id, or false. With all members matched by distinct names, nothing else (no
// `_meta`, no duplicate) can be there.
bool read_params(const JsonValue& params, unsigned members, const JsonValue*& session_id, const JsonValue*& update) {
    if (!params.IsObject() || params.MemberCount() != 2) return false;
    session_id = nullptr;
    update = nullptr;
    for (auto member = params.MemberBegin(); member != params.MemberEnd(); ++member) {
        if (is_key(member->name, "sessionId")) {
            session_id = &member->value;
        } else if (is_key(member->name, "update")) {
            update = &member->value;
        }
    }
    return session_id != nullptr && update != nullptr && session_id->IsString() && update->IsObject() &&
           update->MemberCount() == members;
}

}  // namespace

std::optional<TerminalChunkView> read_terminal_chunk(const JsonValue& params) {
    const JsonValue* session_id = nullptr;
    const JsonValue* update = nullptr;
    if (!read_params(params, 3, session_id, update)) return std::nullopt;
    const JsonValue* tag = nullptr;
    const JsonValue* terminal_id = nullptr;
    const JsonValue* data = nullptr;
    for (auto member = update->MemberBegin(); member != update->MemberEnd(); ++member) {
        if (is_key(member->name, "sessionUpdate")) {
            tag = &member->value;
        } else if (is_key(member->name, "terminalId")) {
            terminal_id = &member->value;
        } else if (is_key(member->name, "data")) {
            data = &member->value;
        }
    }
    if (tag == nullptr || terminal_id == nullptr || data == nullptr || !tag->IsString() || !terminal_id->IsString() ||
        !data->IsString() || string_view_of(*tag) != "terminal_output_chunk") {
        return std::nullopt;
    }
    return TerminalChunkView{string_view_of(*session_id), string_view_of(*terminal_id), string_view_of(*data)};
}

std::optional<TextChunkView> read_text_chunk(const JsonValue& params) {
    const JsonValue* session_id = nullptr;
    const JsonValue* update = nullptr;
    if (!read_params(params, 3, session_id, update)) return std::nullopt;
    const JsonValue* tag = nullptr;
    const JsonValue* message_id = nullptr;
    const JsonValue* content = nullptr;
    for (auto member = update->MemberBegin(); member != update->MemberEnd(); ++member) {
        if (is_key(member->name, "sessionUpdate")) {
            tag = &member->value;
        } else if (is_key(member->name, "messageId")) {
            message_id = &member->value;
        } else if (is_key(member->name, "content")) {
            content = &member->value;
        }
    }
    if (tag == nullptr || message_id == nullptr || content == nullptr || !message_id->IsString()) return std::nullopt;
    const ItemKind kind = chunk_kind(*tag);
    if (kind == ItemKind::unknown) return std::nullopt;
    const JsonValue* text = plain_text(*content);
    if (text == nullptr) return std::nullopt;
    return TextChunkView{string_view_of(*session_id), kind, string_view_of(*message_id), text};
}

}  // namespace acp::detail
