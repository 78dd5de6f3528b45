// SPDX-License-Identifier: Apache-2.0
// Backpressure: stop reading from the agent while it leaves too much of what it asked for
// unread.
//
// An agent that does not read its stdin makes the client's write queue grow with every
// answer the client owes it. The throttle counts only those bytes (WriteCause::agent):
// past the high-water mark it stops reading the agent's output (so no new requests arrive
// to be answered); under the low-water mark it reads again. The host's own messages never
// count, so a large prompt cannot stop an agent that must keep writing to read it. Each
// pause is reported once, with the numbers and the option to change, and to the
// WriteLimits' on_pause (the connection gives up on an agent that stays paused).
// The host can hold reading too (hold()): a host that lags behind what was read (the C
// API's pull queue) stops the agent the same way. Reading resumes when neither holds.
#pragma once

#include <cstddef>

#include "support/logger.hpp"
#include "transport/transport.hpp"

namespace acp::detail {

// What the throttle switches: a pipe, a WebSocket, the HTTP transport's event streams.
class ReadSwitch {
public:
    virtual ~ReadSwitch() = default;
    virtual void pause_reading() = 0;
    virtual void resume_reading() = 0;
};

class ReadThrottle {
public:
    ReadThrottle() = default;

    // high_water 0: never pause. low_water is clamped to high_water.
    void configure(ReadSwitch* reader, WriteLimits limits, Logger logger);
    // Called with the bytes the agent caused that are still queued, whenever the queue
    // changes.
    void update(std::size_t agent_bytes);
    // The consumer of what is read lags (true) or caught up (false).
    void hold(bool held);
    // Reading resumes for good (the connection is closing: what the agent still says is
    // read and nothing more is written, so the queue cannot grow).
    void release();
    bool paused() const { return paused_; }

private:
    void apply();

    ReadSwitch* reader_ = nullptr;
    Logger logger_;
    WriteLimits limits_;
    bool paused_ = false;
    bool output_full_ = false;  // past high water, not yet under low water
    bool held_ = false;
    bool released_ = false;
};

}  // namespace acp::detail
