// SPDX-License-Identifier: Apache-2.0
// A transport over descriptors the host opened (it spawned the agent itself, or the
// agent is at the other end of a socket). libacp owns and closes the descriptors but
// does not supervise any process: the close event carries no exit report.
#pragma once

#include <uv.h>

#include <memory>

#include "acp/status.hpp"
#include "acp/transport_options.hpp"
#include "support/deferred_queue.hpp"
#include "support/logger.hpp"
#include "transport/read_throttle.hpp"
#include "transport/transport.hpp"

namespace acp::detail {

class PipeStream;
class StderrCollector;

class FdTransport final : public Transport {
public:
    static Result<std::unique_ptr<FdTransport>> adopt(uv_loop_t* loop, const AdoptedFds& fds, Logger logger);
    ~FdTransport() override;

    void start(TransportEvents* events) override;
    void write(std::string_view bytes, WriteCause cause) override;
    void close() override;
    void detach() override;
    void set_write_limits(WriteLimits limits) override;
    std::size_t queued_bytes() const override;
    void hold_reading(bool held) override;

private:
    FdTransport(uv_loop_t* loop, Logger logger);
    void report_closed(Status why);

    Logger logger_;
    DeferredQueue deferred_;
    std::unique_ptr<PipeStream> reader_;
    std::unique_ptr<PipeStream> writer_;  // null when the reader's descriptor also writes
    std::unique_ptr<PipeStream> stderr_;
    std::unique_ptr<StderrCollector> stderr_collector_;
    ReadThrottle throttle_;
    TransportEvents* events_ = nullptr;
    bool closed_ = false;
    bool close_requested_ = false;
};

}  // namespace acp::detail
