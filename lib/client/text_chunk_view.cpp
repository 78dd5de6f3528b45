// SPDX-License-Identifier: Apache-2.0
#include "client/text_chunk_view.hpp"

#include <cstring>

namespace acp::detail {

namespace {

// A member name against a literal: the length first, then a compare of a length the
// compiler knows (inlined, no call per key: this runs for every member of every update).
template <std::size_t N>
bool is_key(const JsonValue& name, const char (&key)[N]) {
    return name.GetStringLength() == N - 1 && std::memcmp(name.GetString(), key, N - 1) == 0;
}

template <std::size_t N>
bool is_string(const JsonValue& value, const char (&text)[N]) {
    return value.IsString() && is_key(value, text);
}

ItemKind chunk_kind(const JsonValue& tag) {
    if (!tag.IsString()) return ItemKind::unknown;
    if (is_key(tag, "agent_message_chunk")) return ItemKind::agent_message;
    if (is_key(tag, "agent_thought_chunk")) return ItemKind::agent_thought;
    if (is_key(tag, "user_message_chunk")) return ItemKind::user_message;
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
    if (type == nullptr || text == nullptr || !text->IsString() || !is_string(*type, "text")) return nullptr;
    return text;
}

// {sessionId, update} with nothing else and a 3-member update object: the two values, or
// false. With all members matched by distinct names, nothing else (no `_meta`, no
// duplicate) can be there.
bool read_params(const JsonValue& params, const JsonValue*& session_id, const JsonValue*& update) {
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
           update->MemberCount() == 3;
}

// The update's three members by name, in one pass: both streamed shapes have three, the
// tag and two of {messageId, content} / {terminalId, data}.
struct UpdateMembers {
    const JsonValue* tag = nullptr;
    const JsonValue* message_id = nullptr;
    const JsonValue* content = nullptr;
    const JsonValue* terminal_id = nullptr;
    const JsonValue* data = nullptr;
};

UpdateMembers members_of(const JsonValue& update) {
    UpdateMembers found;
    for (auto member = update.MemberBegin(); member != update.MemberEnd(); ++member) {
        const JsonValue& name = member->name;
        if (is_key(name, "sessionUpdate")) {
            found.tag = &member->value;
        } else if (is_key(name, "messageId")) {
            found.message_id = &member->value;
        } else if (is_key(name, "content")) {
            found.content = &member->value;
        } else if (is_key(name, "terminalId")) {
            found.terminal_id = &member->value;
        } else if (is_key(name, "data")) {
            found.data = &member->value;
        }
    }
    return found;
}

std::optional<TextChunkView> text_chunk_of(std::string_view session_id, const UpdateMembers& update) {
    if (update.tag == nullptr || update.message_id == nullptr || update.content == nullptr ||
        !update.message_id->IsString()) {
        return std::nullopt;
    }
    const ItemKind kind = chunk_kind(*update.tag);
    if (kind == ItemKind::unknown) return std::nullopt;
    const JsonValue* text = plain_text(*update.content);
    if (text == nullptr) return std::nullopt;
    return TextChunkView{session_id, kind, string_view_of(*update.message_id), text};
}

std::optional<TerminalChunkView> terminal_chunk_of(std::string_view session_id, const UpdateMembers& update) {
    if (update.tag == nullptr || update.terminal_id == nullptr || update.data == nullptr ||
        !update.terminal_id->IsString() || !update.data->IsString() ||
        !is_string(*update.tag, "terminal_output_chunk")) {
        return std::nullopt;
    }
    return TerminalChunkView{session_id, string_view_of(*update.terminal_id), string_view_of(*update.data)};
}

}  // namespace

StreamedChunk read_streamed_chunk(const JsonValue& params) {
    StreamedChunk chunk;
    const JsonValue* session_id = nullptr;
    const JsonValue* update = nullptr;
    if (!read_params(params, session_id, update)) return chunk;
    const UpdateMembers members = members_of(*update);
    const std::string_view session = string_view_of(*session_id);
    if (members.message_id != nullptr) {
        chunk.text = text_chunk_of(session, members);
    } else if (members.terminal_id != nullptr) {
        chunk.terminal = terminal_chunk_of(session, members);
    }
    return chunk;
}

std::optional<TextChunkView> read_text_chunk(const JsonValue& params) { return read_streamed_chunk(params).text; }

std::optional<TerminalChunkView> read_terminal_chunk(const JsonValue& params) {
    return read_streamed_chunk(params).terminal;
}

}  // namespace acp::detail
