// SPDX-License-Identifier: Apache-2.0
// One libuv pipe, read continuously and written with coalesced, ordered writes.
//
// Shared by every transport that moves bytes over a file descriptor. The handle lives
// on the heap and is freed in its close callback, so a PipeStream can be destroyed at
// any time, even with a write in flight.
#pragma once

#include <uv.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "transport/read_throttle.hpp"

namespace acp::detail {

class PipeStream final : public ReadSwitch {
public:
    using DataFn = std::function<void(char* data, std::size_t size)>;
    using EndFn = std::function<void(int uv_status)>;  // UV_EOF on a clean end
    using WriteErrorFn = std::function<void(int uv_status)>;
    using QueueFn = std::function<void(std::size_t agent_bytes)>;

    explicit PipeStream(uv_loop_t* loop);
    ~PipeStream();
    PipeStream(const PipeStream&) = delete;
    PipeStream& operator=(const PipeStream&) = delete;

    // For uv_spawn's stdio container: the child's end is created by libuv.
    uv_pipe_t* handle() { return pipe_; }
    // Adopts an open descriptor (the pipe takes ownership). Returns a libuv status.
    int open(int fd);

    void start_reading(DataFn on_data, EndFn on_end);
    void on_write_error(WriteErrorFn fn) { on_write_error_ = std::move(fn); }
    // Told the bytes the agent caused (WriteCause::agent) not yet written, queued and in
    // flight, whenever the queue changes: what the write limits bound.
    void on_queue_change(QueueFn fn) { on_queue_change_ = std::move(fn); }
    std::size_t queued_bytes() const { return outbox_.size() + in_flight_bytes_; }
    std::size_t queued_agent_bytes() const { return outbox_agent_bytes_ + in_flight_agent_bytes_; }

    // Backpressure: stop and restart reading without losing the callbacks. Idempotent.
    void pause_reading() override;
    void resume_reading() override;
    bool reading_paused() const { return paused_; }

    void write(std::string_view bytes, WriteCause cause);
    // Closes after what is queued has been written (or failed).
    void close_after_writes();
    // Closes now; queued bytes are dropped.
    void close();
    bool is_closed() const { return closed_; }

private:
    struct WriteRequest;
    void flush();
    void report_queue();
    static void on_alloc(uv_handle_t* handle, std::size_t suggested, uv_buf_t* buf);
    static void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf);
    static void on_written(uv_write_t* req, int status);

    uv_pipe_t* pipe_;  // freed by libuv's close callback, not by us
    DataFn on_data_;
    EndFn on_end_;
    WriteErrorFn on_write_error_;
    QueueFn on_queue_change_;
    std::string outbox_;  // bytes waiting for the write in flight to finish
    std::size_t in_flight_bytes_ = 0;
    // Of those, the agent's: a write completes whole, so counting per buffer is exact.
    std::size_t outbox_agent_bytes_ = 0;
    std::size_t in_flight_agent_bytes_ = 0;
    bool reading_ = false;
    bool paused_ = false;
    bool writing_ = false;
    bool close_when_flushed_ = false;
    bool write_failed_ = false;
    bool closed_ = false;
    std::unique_ptr<char[]> read_buffer_;
};

}  // namespace acp::detail
