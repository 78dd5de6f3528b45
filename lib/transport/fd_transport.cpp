// SPDX-License-Identifier: Apache-2.0
#include "transport/fd_transport.hpp"

#include <string>
#include <utility>

#include "transport/pipe_stream.hpp"
#include "transport/stderr_collector.hpp"

namespace acp::detail {

FdTransport::FdTransport(uv_loop_t* loop, Logger logger)
    : logger_(std::move(logger)), deferred_(loop), reader_(new PipeStream(loop)) {}

Result<std::unique_ptr<FdTransport>> FdTransport::adopt(uv_loop_t* loop, const AdoptedFds& fds, Logger logger) {
    if (fds.read_fd < 0 || fds.write_fd < 0) {
        return Status(Errc::invalid_argument, "adopted transport needs a read and a write descriptor");
    }
    std::unique_ptr<FdTransport> transport(new FdTransport(loop, logger));
    auto fail = [](int fd, int rc) {
        return Status(Errc::io_error, "cannot adopt descriptor " + std::to_string(fd) + ": " + uv_strerror(rc));
    };
    if (int rc = transport->reader_->open(fds.read_fd); rc != 0) return fail(fds.read_fd, rc);
    if (fds.write_fd != fds.read_fd) {
        transport->writer_.reset(new PipeStream(loop));
        if (int rc = transport->writer_->open(fds.write_fd); rc != 0) return fail(fds.write_fd, rc);
    }
    if (fds.stderr_fd >= 0) {
        transport->stderr_.reset(new PipeStream(loop));
        if (int rc = transport->stderr_->open(fds.stderr_fd); rc != 0) return fail(fds.stderr_fd, rc);
        transport->stderr_collector_.reset(new StderrCollector(logger, 64 * 1024));
        auto* collector = transport->stderr_collector_.get();
        transport->stderr_->start_reading([collector](char* data, std::size_t size) { collector->add(data, size); },
                                          [collector](int) { collector->finish(); });
    }
    PipeStream& out = transport->writer_ ? *transport->writer_ : *transport->reader_;
    Logger write_logger = logger;
    out.on_write_error([write_logger](int status) {
        write_logger(LogLevel::warning, log_source::transport,
                     std::string("writing to the agent failed: ") + uv_strerror(status));
    });
    return transport;
}

FdTransport::~FdTransport() { events_ = nullptr; }

void FdTransport::set_write_limits(WriteLimits limits) {
    PipeStream& out = writer_ ? *writer_ : *reader_;
    throttle_.configure(reader_.get(), std::move(limits), logger_);
    out.on_queue_change([this](std::size_t queued) { throttle_.update(queued); });
}

std::size_t FdTransport::queued_bytes() const { return (writer_ ? *writer_ : *reader_).queued_bytes(); }
void FdTransport::hold_reading(bool held) { throttle_.hold(held); }

void FdTransport::start(TransportEvents* events) {
    events_ = events;
    reader_->start_reading(
        [this](char* data, std::size_t size) {
            if (events_ != nullptr) events_->on_transport_data(data, size);
        },
        [this](int status) {
            std::string message =
                status == UV_EOF
                    ? (close_requested_ ? "the connection was closed by the client" : "the agent closed the connection")
                    : std::string("reading from the agent failed: ") + uv_strerror(status);
            report_closed(Status(Errc::connection_closed, message));
        });
}

void FdTransport::write(std::string_view bytes, WriteCause cause) {
    if (close_requested_ || closed_) return;
    (writer_ ? *writer_ : *reader_).write(bytes, cause);
}

void FdTransport::close() {
    if (close_requested_ || closed_) return;
    close_requested_ = true;
    throttle_.release();
    if (writer_) {
        // The agent sees EOF on its input and may answer what is in flight; the read
        // side ends when it closes its output.
        writer_->close_after_writes();
    } else {
        // One bidirectional descriptor is not half-closed here: end the connection on the
        // next turn (never inside the call).
        deferred_.post(
            [this] { report_closed(Status(Errc::connection_closed, "the connection was closed by the client")); });
    }
}

void FdTransport::detach() { events_ = nullptr; }

void FdTransport::report_closed(Status why) {
    if (closed_) return;
    closed_ = true;
    reader_->close();
    if (writer_) writer_->close();
    if (stderr_) stderr_->close();
    if (stderr_collector_) {
        stderr_collector_->finish();
        AgentExit exit;  // no process is supervised here; only what it wrote to stderr
        exit.requested = close_requested_;
        exit.stderr_tail = stderr_collector_->tail();
        why = why.with_agent_exit(std::move(exit));
    }
    if (events_ != nullptr) {
        auto* events = events_;
        events_ = nullptr;
        events->on_transport_closed(why);
    }
}

}  // namespace acp::detail
