// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the receive path, bytes as the agent writes them.
//
// bytes -> LineFramer -> MessageParser -> v2 decode of session/update (and of the answers
// a client decodes) -> v1 decode and lifting -> split surrogate joining ->
// SessionStore::apply -> the session's JSON dump. Besides the sanitizers' findings, it
// traps when any text the model holds is not valid UTF-8 (docs/untrusted-agent.md).
//
// The first input byte picks the size of the reads the framer gets (agents write in any
// pieces); the rest is the stream.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "acp/session.hpp"
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

    void on_line(char* line, std::size_t size) override {
        const JsonValue* message = parser.parse(line, size);
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
