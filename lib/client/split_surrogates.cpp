// SPDX-License-Identifier: Apache-2.0
#include "client/split_surrogates.hpp"

#include <cstring>
#include <utility>

#include "support/utf8.hpp"

namespace acp::detail {

namespace {

using Kind = v2::SessionUpdate::Kind;

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::size_t kHalfBytes = 3;            // U+FFFD and a WTF-8 half alike

struct ChunkText {
    Kind kind;
    const std::string* message_id;
    std::string* text;
};

std::optional<ChunkText> message_chunk_text(v2::UpdateSessionNotification& notification) {
    v2::SessionUpdate& update = notification.update;
    v2::ContentChunk* chunk = nullptr;
    switch (update.kind()) {
        case Kind::user_message_chunk: chunk = update.user_message_chunk(); break;
        case Kind::agent_message_chunk: chunk = update.agent_message_chunk(); break;
        case Kind::agent_thought_chunk: chunk = update.agent_thought_chunk(); break;
        default: return std::nullopt;
    }
    if (chunk == nullptr) return std::nullopt;
    v2::TextContent* text = chunk->content.text();
    if (text == nullptr) return std::nullopt;
    return ChunkText{update.kind(), &chunk->messageId, &text->text};
}

// The WTF-8 form of a surrogate: what UTF-8 would be if surrogates were characters.
void write_half(char* at, std::uint16_t half) { utf8_encode(half, at); }

// The surrogate whose WTF-8 form is at `at`, or 0.
std::uint16_t read_half(const char* at, bool want_high) {
    const auto b0 = static_cast<unsigned char>(at[0]);
    const auto b1 = static_cast<unsigned char>(at[1]);
    const auto b2 = static_cast<unsigned char>(at[2]);
    if (b0 != 0xED || (b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) return 0;
    const auto code = static_cast<std::uint16_t>(0xD000 | ((b1 & 0x3F) << 6) | (b2 & 0x3F));
    const bool high = code >= 0xD800 && code <= 0xDBFF;
    const bool low = code >= 0xDC00 && code <= 0xDFFF;
    return (want_high ? high : low) ? code : 0;
}

std::string utf8_of_pair(std::uint16_t high, std::uint16_t low) {
    const std::uint32_t code = 0x10000u + ((static_cast<std::uint32_t>(high) - 0xD800u) << 10) + (low - 0xDC00u);
    std::string out(4, '\0');
    utf8_encode(code, out.data());
    return out;
}

v2::UpdateSessionNotification replacement_chunk(const std::string& session_id, Kind kind, std::string message_id) {
    v2::ContentChunk chunk;
    chunk.messageId = std::move(message_id);
    chunk.content = v2::ContentBlock::make_text(v2::TextContent{kReplacement, {}, {}, {}});
    v2::UpdateSessionNotification notification;
    notification.sessionId = session_id;
    switch (kind) {
        case Kind::user_message_chunk:
            notification.update = v2::SessionUpdate::make_user_message_chunk(std::move(chunk));
            break;
        case Kind::agent_thought_chunk:
            notification.update = v2::SessionUpdate::make_agent_thought_chunk(std::move(chunk));
            break;
        default: notification.update = v2::SessionUpdate::make_agent_message_chunk(std::move(chunk)); break;
    }
    return notification;
}

}  // namespace

const JsonValue* chunk_text_value(const JsonValue* params) {
    const JsonValue* update = params != nullptr ? find_member(*params, "update") : nullptr;
    const JsonValue* content = update != nullptr ? find_member(*update, "content") : nullptr;
    const JsonValue* text = content != nullptr ? find_member(*content, "text") : nullptr;
    return text != nullptr && text->IsString() ? text : nullptr;
}

void mark_chunk_edges(const StringEdgeSurrogates* edges, v2::UpdateSessionNotification& notification) {
    if (edges == nullptr) return;
    std::optional<ChunkText> chunk = message_chunk_text(notification);
    if (!chunk) return;
    std::string& text = *chunk->text;
    const bool leading = edges->leading_low != 0 && text.compare(0, kHalfBytes, kReplacement) == 0;
    if (leading) write_half(&text[0], edges->leading_low);
    const bool room = text.size() >= (leading ? 2 : 1) * kHalfBytes;
    if (edges->trailing_high != 0 && room && text.compare(text.size() - kHalfBytes, kHalfBytes, kReplacement) == 0) {
        write_half(&text[text.size() - kHalfBytes], edges->trailing_high);
    }
}

std::optional<v2::UpdateSessionNotification> SurrogateJoiner::join(v2::UpdateSessionNotification& notification) {
    std::optional<ChunkText> chunk = message_chunk_text(notification);
    std::optional<v2::UpdateSessionNotification> flushed;
    auto found = pending_.find(notification.sessionId);
    if (found != pending_.end()) {
        Pending pending = std::move(found->second);
        pending_.erase(found);
        const bool continues = chunk && chunk->kind == pending.kind && *chunk->message_id == pending.message_id;
        if (!continues) {
            flushed = replacement_chunk(notification.sessionId, pending.kind, std::move(pending.message_id));
        } else if (std::string& text = *chunk->text; text.size() >= kHalfBytes && read_half(text.data(), false) != 0) {
            text.replace(0, kHalfBytes, utf8_of_pair(pending.high, read_half(text.data(), false)));
        } else {
            text.insert(0, kReplacement);
        }
    }
    if (!chunk) return flushed;
    std::string& text = *chunk->text;
    if (text.size() >= kHalfBytes) {
        const std::size_t last = text.size() - kHalfBytes;
        if (const std::uint16_t high = read_half(text.data() + last, true)) {
            pending_[notification.sessionId] = Pending{chunk->kind, *chunk->message_id, high};
            text.resize(last);
        }
    }
    // A low half nothing was waiting for.
    if (text.size() >= kHalfBytes && read_half(text.data(), false) != 0) text.replace(0, kHalfBytes, kReplacement);
    return flushed;
}

}  // namespace acp::detail
