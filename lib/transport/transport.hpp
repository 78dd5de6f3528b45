// SPDX-License-Identifier: Apache-2.0
// The byte-stream interface between an agent and the JSON-RPC connection.
//
// A Transport moves raw bytes: it knows nothing about lines or JSON. Implementations:
// ProcessTransport (spawns and supervises the agent), FdTransport (pipes the host
// opened), and the in-memory pair used by tests.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "acp/status.hpp"

namespace acp::detail {

// Why the client writes (Transport::write). The agent's requests make the client owe it
// answers (the host's, and the errors the connection sends by itself): those are what an
// agent that never reads its stdin could pile up, so only they count against the write
// limits. The host's own requests and notifications are the host's to bound; counting
// them would stop reading from an agent that is busy reading them (a large prompt while
// another session streams).
enum class WriteCause { host, agent };

// Backpressure (transport/read_throttle.hpp): stop reading from the agent while more than
// high_water bytes the agent caused wait to be written, read again at low_water.
struct WriteLimits {
    std::size_t high_water = 0;  // 0: no limit
    std::size_t low_water = 0;
    // Told when reading pauses for them (true, with the bytes queued) and when it resumes.
    std::function<void(bool paused, std::size_t agent_bytes)> on_pause;
};

class TransportEvents {
public:
    virtual ~TransportEvents() = default;
    // Bytes read from the agent. The buffer is the transport's and is writable, so the
    // framer can terminate lines in place; it is valid only during the call.
    virtual void on_transport_data(char* data, std::size_t size) = 0;
    // The stream ended; called exactly once, after the last on_transport_data. The status
    // is connection_closed and carries the agent's exit when there was a process.
    virtual void on_transport_closed(const Status& why) = 0;
};

class Transport {
public:
    virtual ~Transport() = default;

    // Starts delivering events. Called once, before any write.
    virtual void start(TransportEvents* events) = 0;
    // Queues bytes for the agent; writes are coalesced and keep their order. Bytes
    // written after close() or after the stream ended are dropped (the close event
    // reports why).
    virtual void write(std::string_view bytes, WriteCause cause) = 0;
    // Begins an orderly shutdown; on_transport_closed follows on a later loop turn.
    // Idempotent.
    virtual void close() = 0;
    // Once closing: takes the shutdown's next step now instead of waiting out its grace
    // (a process: terminate, then kill the tree). Transports without steps ignore it.
    virtual void hasten_close() {}
    // Stops all event delivery and logging: the events object is about to go away.
    virtual void detach() = 0;

    // Backpressure on the bytes the agent caused (WriteLimits). Transports without a
    // write queue ignore it.
    virtual void set_write_limits(WriteLimits /*limits*/) {}
    // The host lags behind what was read (the C API's pull queue past its bound): stop
    // reading from the agent while held, as the write limits do. Transports without a
    // read throttle ignore it.
    virtual void hold_reading(bool /*held*/) {}
    // Bytes written but not yet taken by the agent, whatever caused them.
    virtual std::size_t queued_bytes() const { return 0; }
};

}  // namespace acp::detail
