// SPDX-License-Identifier: Apache-2.0
// Helpers of the session model tests: updates from JSON text, and parts of a dump by path.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "acp/session.hpp"
#include "jsonrpc/json.hpp"
#include "protocol/v2/codec.hpp"
#include "unit/protocol/codec_test_util.hpp"

namespace session_test {

// A session/update notification for session s1 (or session) carrying update_json.
inline acp::v2::UpdateSessionNotification notification(std::string_view update_json, std::string_view session = "s1") {
    const std::string text =
        R"({"sessionId":")" + std::string(session) + R"(","update":)" + std::string(update_json) + "}";
    return codec_test::decode_ok<acp::v2::UpdateSessionNotification>(text);
}

inline void apply_all(acp::SessionStore& store, std::initializer_list<std::string_view> updates) {
    for (std::string_view update : updates) {
        const acp::Status status = store.apply(notification(update));
        CHECK_MESSAGE(status.ok(), status.to_string() << " applying " << update);
    }
}

inline std::string dump(const acp::SessionStore& store, std::string_view session = "s1") {
    const acp::SessionState* state = store.find(session);
    REQUIRE(state != nullptr);
    return acp::to_json(*state);
}

// The JSON at path ("items[0].content", "foreground.state") of a JSON text, or "<missing>".
inline std::string select(const std::string& json, std::string_view path) {
    rapidjson::Document document = codec_test::parse(json);
    const rapidjson::Value* node = &document;
    while (!path.empty()) {
        const std::size_t end = path.find_first_of(".[");
        std::string_view key = path.substr(0, end);
        path = end == std::string_view::npos ? std::string_view{} : path.substr(end);
        if (!key.empty()) {
            // A NUL-terminated key: detail::find_member() would read past key's end.
            const std::string name(key);
            if (!node->IsObject()) return "<missing>";
            const auto member = node->FindMember(name.c_str());
            if (member == node->MemberEnd()) return "<missing>";
            node = &member->value;
        }
        if (!path.empty() && path[0] == '[') {
            const std::size_t close = path.find(']');
            const auto index = static_cast<rapidjson::SizeType>(std::stoul(std::string(path.substr(1, close - 1))));
            if (!node->IsArray() || index >= node->Size()) return "<missing>";
            node = &(*node)[index];
            path = path.substr(close + 1);
        }
        if (!path.empty() && path[0] == '.') path.remove_prefix(1);
    }
    return acp::detail::to_json_text(*node);
}

}  // namespace session_test
