// SPDX-License-Identifier: Apache-2.0
#include "transport/pipe_stream.hpp"

#include <utility>

#include "platform/broken_pipe.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

namespace {

constexpr std::size_t kReadBufferBytes = 64 * 1024;

}  // namespace

struct PipeStream::WriteRequest {
    uv_write_t req{};
    std::string bytes;
};

PipeStream::PipeStream(uv_loop_t* loop) : pipe_(new uv_pipe_t{}) {
    ignore_broken_pipe_signal();
    uv_pipe_init(loop, pipe_, 0);
    pipe_->data = this;
}

PipeStream::~PipeStream() { close(); }

int PipeStream::open(int fd) { return uv_pipe_open(pipe_, fd); }

void PipeStream::start_reading(DataFn on_data, EndFn on_end) {
    on_data_ = std::move(on_data);
    on_end_ = std::move(on_end);
    if (!read_buffer_) read_buffer_.reset(new char[kReadBufferBytes]);
    reading_ = true;
    if (paused_) return;
    int rc = uv_read_start(reinterpret_cast<uv_stream_t*>(pipe_), &PipeStream::on_alloc, &PipeStream::on_read);
    if (rc != 0 && on_end_) {
        auto end = std::move(on_end_);
        end(rc);
    }
}

void PipeStream::pause_reading() {
    if (paused_) return;
    paused_ = true;
    if (reading_ && !closed_) uv_read_stop(reinterpret_cast<uv_stream_t*>(pipe_));
}

void PipeStream::resume_reading() {
    if (!paused_) return;
    paused_ = false;
    if (!reading_ || closed_ || !on_end_) return;  // not started, or the stream already ended
    int rc = uv_read_start(reinterpret_cast<uv_stream_t*>(pipe_), &PipeStream::on_alloc, &PipeStream::on_read);
    if (rc != 0) {
        auto end = std::move(on_end_);
        end(rc);
    }
}

void PipeStream::report_queue() {
    if (on_queue_change_) on_queue_change_(queued_agent_bytes());
}

void PipeStream::on_alloc(uv_handle_t* handle, std::size_t, uv_buf_t* buf) {
    auto* self = static_cast<PipeStream*>(handle->data);
    if (self == nullptr) {
        *buf = uv_buf_init(nullptr, 0);
        return;
    }
    *buf = uv_buf_init(self->read_buffer_.get(), static_cast<unsigned>(kReadBufferBytes));
}

void PipeStream::on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buf) {
    auto* self = static_cast<PipeStream*>(stream->data);
    if (self == nullptr || nread == 0) return;
    if (nread > 0) {
        if (self->on_data_) self->on_data_(buf->base, static_cast<std::size_t>(nread));
        return;
    }
    uv_read_stop(stream);
    self->reading_ = false;
    if (self->on_end_) {
        auto end = std::move(self->on_end_);
        end(static_cast<int>(nread));
    }
}

void PipeStream::write(std::string_view bytes, WriteCause cause) {
    if (closed_ || write_failed_ || close_when_flushed_ || bytes.empty()) return;
    outbox_.append(bytes.data(), bytes.size());
    if (cause == WriteCause::agent) outbox_agent_bytes_ += bytes.size();
    if (!writing_) flush();
    report_queue();
}

void PipeStream::flush() {
    auto* request = new WriteRequest;
    request->bytes.swap(outbox_);
    in_flight_bytes_ = request->bytes.size();
    in_flight_agent_bytes_ = outbox_agent_bytes_;
    outbox_agent_bytes_ = 0;
    request->req.data = pipe_;
    uv_buf_t buf = uv_buf_init(&request->bytes[0], static_cast<unsigned>(request->bytes.size()));
    writing_ = true;
    int rc = uv_write(&request->req, reinterpret_cast<uv_stream_t*>(pipe_), &buf, 1, &PipeStream::on_written);
    if (rc != 0) {
        delete request;
        writing_ = false;
        in_flight_bytes_ = 0;
        in_flight_agent_bytes_ = 0;
        write_failed_ = true;
        if (on_write_error_) on_write_error_(rc);
    }
}

void PipeStream::on_written(uv_write_t* req, int status) {
    auto* request = reinterpret_cast<WriteRequest*>(req);
    auto* pipe = static_cast<uv_pipe_t*>(req->data);
    delete request;
    auto* self = static_cast<PipeStream*>(pipe->data);
    if (self == nullptr) return;
    self->writing_ = false;
    self->in_flight_bytes_ = 0;
    self->in_flight_agent_bytes_ = 0;
    if (status != 0) {
        self->write_failed_ = true;
        self->outbox_.clear();
        self->outbox_agent_bytes_ = 0;
        if (status != UV_ECANCELED && self->on_write_error_) self->on_write_error_(status);
    } else if (!self->outbox_.empty()) {
        self->flush();
        self->report_queue();
        return;
    }
    if (self->close_when_flushed_) {
        self->close();
        return;
    }
    self->report_queue();
}

void PipeStream::close_after_writes() {
    if (closed_) return;
    close_when_flushed_ = true;
    if (!writing_) close();
}

void PipeStream::close() {
    if (closed_) return;
    closed_ = true;
    outbox_.clear();
    in_flight_bytes_ = 0;
    outbox_agent_bytes_ = in_flight_agent_bytes_ = 0;
    // Callbacks libuv still delivers (a cancelled write) find no owner and do nothing.
    pipe_->data = nullptr;
    close_and_delete(pipe_);
}

}  // namespace acp::detail
