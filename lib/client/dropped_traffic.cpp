// SPDX-License-Identifier: Apache-2.0
#include "client/dropped_traffic.hpp"

#include <algorithm>

#include "client/client_core.hpp"
#include "support/utf8.hpp"

namespace acp::detail {

std::string DroppedTraffic::shown(std::string_view session_id) {
    const bool cut = session_id.size() > kShownIdBytes;
    // Never cut a UTF-8 sequence in two.
    const std::string_view head = utf8_truncate(session_id, kShownIdBytes);
    // JSON-quoted: control characters and quotes are escaped.
    std::string quoted = to_json_text(JsonValue(rapidjson::StringRef(head.data(), head.size())));
    return cut ? quoted + "..." : quoted;
}

void DroppedTraffic::dropped(std::string_view session_id, std::string_view what) {
    ++count_;
    const std::string id(session_id.substr(0, kShownIdBytes));
    if (named_.count(id) != 0) return;  // said once already
    if (named_.size() < kNamedIds) {
        named_.insert(id);
        core_.log_session(LogLevel::warning, "dropped " + std::string(what) + " for session " + shown(session_id) +
                                                 ", " + why_ + " (further traffic for it is dropped without a word)");
        return;
    }
    // Past the named ids: a summary whenever the count reaches a power of two.
    if ((count_ & (count_ - 1)) != 0) return;
    core_.log_session(LogLevel::warning, "dropped " + std::to_string(count_) + " messages so far for sessions " + why_ +
                                             ", from more than " + std::to_string(kNamedIds) +
                                             " session ids (only the first are named)");
}

}  // namespace acp::detail
