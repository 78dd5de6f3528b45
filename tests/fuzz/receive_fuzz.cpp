// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the receive path, bytes as the agent writes them.
//
// bytes -> LineFramer -> MessageParser -> v2 decode of session/update (and of the answers
// a client decodes) -> v1 decode and lifting -> split surrogate joining ->
// SessionStore::apply -> the session's JSON dump. Besides the sanitizers' findings, it
// traps when any text the model holds is not valid UTF-8 (docs/untrusted-agent.md), and
// when the chunk line shortcut (client/chunk_line.hpp) takes a line the parser does not
// read as exactly that chunk: same session, kind, id and text, byte for byte.
//
// The first input byte picks the size of the reads the framer gets (agents write in any
// pieces); the rest is the stream.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "acp/session.hpp"
#include "client/chunk_line.hpp"
#include "client/split_surrogates.hpp"
#include "client/v1_adapter.hpp"
#include "jsonrpc/message_parser.hpp"
#include "protocol/v1/codec.hpp"
#include "protocol/v2/codec.hpp"
#include "support/utf8_check.hpp"
#include "transport/line_framer.hpp"

namespace {

using namespace acp::detail;

void require_utf8(const std::string& text) {
    if (!acp::test::is_valid_utf8(text)) __builtin_trap();
}

struct ReceivePath : LineSink {
    MessageParser parser;
    acp::SessionStore store;
    V1Lifter lifter;
    SurrogateJoiner joiner;

    std::set<std::string> session_ids;

    void deliver(acp::v2::UpdateSessionNotification& notification) {
        session_ids.insert(notification.sessionId);
        if (auto unpaired = joiner.join(notification)) (void)store.apply(*unpaired);
        (void)store.apply(notification);
    }

    // What the shortcut took must be what the parse reads: nothing it takes may differ
    // from the full path's reading of the line.
    static void check_shortcut(const ChunkLine& chunk, const std::string& text, const JsonValue* message) {
        auto string_at = [](const JsonValue* object, const char* name) -> const JsonValue* {
            const JsonValue* value = object != nullptr ? find_member(*object, name) : nullptr;
            return value != nullptr && value->IsString() ? value : nullptr;
        };
        auto equals = [](const JsonValue* value, std::string_view expected) {
            return value != nullptr && string_view_of(*value) == expected;
        };
        if (message == nullptr || !message->IsObject() || message->MemberCount() != 3 ||
            !equals(string_at(message, "jsonrpc"), "2.0") || !equals(string_at(message, "method"), "session/update")) {
            __builtin_trap();
        }
        const JsonValue* params = find_member(*message, "params");
        const JsonValue* update = params != nullptr ? find_member(*params, "update") : nullptr;
        if (update == nullptr || !equals(string_at(params, "sessionId"), chunk.session_id)) __builtin_trap();
        if (chunk.terminal) {
            if (!equals(string_at(update, "terminalId"), chunk.item_id) || !equals(string_at(update, "data"), text)) {
                __builtin_trap();
            }
            return;
        }
        const JsonValue* content = find_member(*update, "content");
        if (!equals(string_at(update, "messageId"), chunk.item_id) || !equals(string_at(content, "type"), "text") ||
            !equals(string_at(content, "text"), text) ||
            !equals(string_at(update, "sessionUpdate"), std::string(acp::item_kind_name(chunk.kind)) + "_chunk")) {
            __builtin_trap();
        }
    }

    void on_line(char* line, std::size_t size) override {
        std::vector<char> copy(line, line + size + 1);
        const std::vector<char> before = copy;
        std::optional<ChunkLine> chunk = scan_chunk_line(copy.data(), size);
        if (!chunk && copy != before) __builtin_trap();  // declined, yet the line changed
        std::string taken_ids[2];
        std::string taken_text;
        if (chunk) {
            taken_ids[0].assign(chunk->session_id);
            taken_ids[1].assign(chunk->item_id);
            taken_text.assign(chunk->terminal ? chunk->data() : decode_text(*chunk));
            chunk->session_id = taken_ids[0];
            chunk->item_id = taken_ids[1];
        }
        const JsonValue* message = parser.parse(line, size);
        if (chunk) check_shortcut(*chunk, taken_text, message);
        if (message == nullptr || !message->IsObject()) return;
        const JsonValue* params = find_member(*message, "params");
        const JsonValue* result = find_member(*message, "result");
        if (params != nullptr) {
            const JsonValue* text = chunk_text_value(params);
            const StringEdgeSurrogates* edges = text != nullptr ? parser.edge_surrogates(*text) : nullptr;

            acp::v2::UpdateSessionNotification update;
            if (acp::v2::codec::decode(*params, update)) {
                mark_chunk_edges(edges, update);
                deliver(update);
            }
            acp::v1::SessionNotification v1_update;
            if (acp::v1::codec::decode(*params, v1_update)) {
                std::vector<acp::v2::UpdateSessionNotification> lifted;
                if (lifter.lift_update(*params, lifted)) {
                    for (auto& one : lifted) {
                        mark_chunk_edges(edges, one);
                        deliver(one);
                    }
                }
            }
            acp::v2::RequestPermissionRequest permission;
            if (acp::v2::codec::decode(*params, permission) && permission.subject.has_value()) {
                if (const auto* subject = permission.subject->tool_call()) {
                    session_ids.insert(permission.sessionId);
                    (void)store.apply_permission_subject(permission.sessionId, subject->toolCall);
                }
            }
        }
        if (result != nullptr) {
            acp::v2::InitializeResponse initialized;
            (void)acp::v2::codec::decode(*result, initialized);
            acp::v1::InitializeResponse v1_initialized;
            if (acp::v1::codec::decode(*result, v1_initialized)) {
                acp::v2::InitializeResponse lifted;
                (void)lift_initialize(v1_initialized, lifted);
            }
            acp::v2::NewSessionResponse created;
            (void)acp::v2::codec::decode(*result, created);
        }
    }
    void on_oversized_line(std::string_view, std::size_t) override {}

    void check_model() const {
        for (const auto& id : session_ids) {
            require_utf8(id);
            if (const acp::SessionState* session = store.find(id)) require_utf8(acp::to_json(*session));
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::size_t read_size = 1 + data[0] % 97;
    std::vector<char> stream(reinterpret_cast<const char*>(data) + 1, reinterpret_cast<const char*>(data) + size);
    // A small line limit so oversized lines are exercised too.
    LineFramer framer(4096);
    ReceivePath path;
    for (std::size_t at = 0; at < stream.size(); at += read_size) {
        framer.feed(stream.data() + at, std::min(read_size, stream.size() - at), path);
    }
    framer.finish(path);
    path.check_model();
    return 0;
}
