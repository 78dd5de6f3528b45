// SPDX-License-Identifier: Apache-2.0
// Reports traffic the client drops for one reason (a session it never opened, a session
// it closed), without letting an agent fill memory or the log (internal): each of the
// first kNamedIds session ids gets one line of its own; after that, one summary line each
// time the count of dropped messages reaches a power of two. Ids are shown JSON-quoted and cut to
// kShownIdBytes, so nothing raw from the agent reaches the log.
//
//   DroppedTraffic unknown(core, "which this client did not open");
//   unknown.dropped(session_id, "a session/update (agent_message_chunk)");
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

namespace acp::detail {

struct ClientCore;

class DroppedTraffic {
public:
    static constexpr std::size_t kNamedIds = 32;
    static constexpr std::size_t kShownIdBytes = 96;

    // why: how the session is described in the report ("which this client did not open").
    DroppedTraffic(ClientCore& core, std::string why) : core_(core), why_(std::move(why)) {}

    // what: "a session/update (agent_message_chunk)", "session/request_permission", ...
    void dropped(std::string_view session_id, std::string_view what);
    uint64_t count() const { return count_; }

    // The session id as it may appear in a log line.
    static std::string shown(std::string_view session_id);

private:
    ClientCore& core_;
    std::string why_;
    std::unordered_set<std::string> named_;  // at most kNamedIds, each at most kShownIdBytes
    uint64_t count_ = 0;
};

}  // namespace acp::detail
