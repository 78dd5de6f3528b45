// SPDX-License-Identifier: Apache-2.0
// The writing half of ConnectionCore: requests, notifications, answers, batches, timeouts.
#include "jsonrpc/connection_core.hpp"

#include <utility>

#include "jsonrpc/traffic_redaction.hpp"
#include "support/uv_handle.hpp"

namespace acp::detail {

namespace {
// Ids of requests this side gave up on (cancelled, timed out), so a late response is
// recognised instead of being reported as unknown. Bounded: the oldest are forgotten.
constexpr std::size_t kRememberedAbandonedIds = 1024;
}  // namespace

int64_t ConnectionCore::send_request(std::string_view method, const WriteFn& write_params, ReplyHandler handler,
                                     RequestOptions options) {
    const int64_t id = next_id_++;
    if (closed_) {
        complete_later(std::move(handler), close_status_);
        return id;
    }
    Status written = write_message([&] {
        writer_.Key("id");
        writer_.Int64(id);
        writer_.Key("method");
        write_string(writer_, method);
        writer_.Key("params");
        write_params_or_empty(write_params);
    });
    if (!written) {
        complete_later(std::move(handler), Status(Errc::internal, "request " + std::string(method) +
                                                                      " was not sent: " + written.message()));
        return id;
    }
    Pending& pending = pending_[id];
    pending.handler = std::move(handler);
    pending.method = std::string(method);
    if (options.timeout.count() > 0) {
        pending.timer = new uv_timer_t{};
        uv_timer_init(loop_, pending.timer);
        pending.timer->data = new TimerTarget{weak_from_this(), id};
        uv_timer_start(pending.timer, &ConnectionCore::on_request_timeout,
                       static_cast<uint64_t>(options.timeout.count()), 0);
    }
    send_message(WriteCause::host);
    return id;
}

void ConnectionCore::send_notification(std::string_view method, const WriteFn& write_params) {
    if (closed_) {
        logger_(LogLevel::debug, log_source::jsonrpc,
                "notification " + std::string(method) + " not sent: the connection is closed");
        return;
    }
    Status written = write_message([&] {
        writer_.Key("method");
        write_string(writer_, method);
        writer_.Key("params");
        write_params_or_empty(write_params);
    });
    if (!written) {
        logger_(LogLevel::error, log_source::jsonrpc,
                "notification " + std::string(method) + " not sent: " + written.message());
        return;
    }
    send_message(WriteCause::host);
}

bool ConnectionCore::cancel_request(int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end()) return false;
    Pending pending = std::move(it->second);
    pending_.erase(it);
    discard_timer(pending.timer);
    remember_abandoned(id);
    send_cancel_notification(id);
    complete_later(std::move(pending.handler), Status(Errc::cancelled, "request " + pending.method + " was cancelled"));
    return true;
}

bool ConnectionCore::withdraw_request(int64_t id) {
    auto it = pending_.find(id);
    if (it == pending_.end() || it->second.withdrawn) return false;
    it->second.withdrawn = true;
    send_cancel_notification(id);
    return true;
}

void ConnectionCore::abandon() {
    owner_gone_ = true;
    output_timer_.reset();
    for (auto& entry : pending_) discard_timer(entry.second.timer);
    pending_.clear();
    if (transport_) {
        transport_->detach();
        transport_->close();
    }
}

void ConnectionCore::answer(ResponderState& state, bool is_error, int code, std::string_view message,
                            const WriteFn& write) {
    incoming_.erase(state.id);
    if (closed_) {
        logger_(LogLevel::debug, log_source::jsonrpc,
                "answer to " + state.method + " not sent: the connection is closed");
        return;
    }
    Status written = write_message([&] {
        writer_.Key("id");
        state.id.write(writer_);
        if (is_error) {
            write_error_member(code, message, write);
        } else {
            writer_.Key("result");
            write_params_or_empty(write);
        }
    });
    if (!written) {
        // The request is still owed an answer: say what went wrong.
        logger_(LogLevel::error, log_source::jsonrpc,
                "answer to " + state.method + " " + state.id.to_string() + " not written: " + written.message());
        (void)write_message([&] {
            writer_.Key("id");
            state.id.write(writer_);
            write_error_member(rpc_code::internal_error, "Internal error: the client could not write its answer",
                               nullptr);
        });
    }
    if (state.batch) {
        add_to_batch(state.batch);
    } else {
        send_message(WriteCause::agent);
    }
}

void ConnectionCore::discard_timer(uv_timer_t* timer) {
    if (timer == nullptr) return;
    delete static_cast<TimerTarget*>(timer->data);
    timer->data = nullptr;
    close_and_delete(timer);
}

void ConnectionCore::complete_later(ReplyHandler handler, Status status) {
    deferred_.post([this, handler = std::move(handler), status = std::move(status)] {
        if (!owner_gone_) run_host_callback(logger_, "reply handler", [&] { handler(Reply{status, nullptr}); });
    });
}

void ConnectionCore::write_params_or_empty(const WriteFn& write) {
    if (write) {
        write(writer_);
    } else {
        writer_.StartObject();
        writer_.EndObject();
    }
}

void ConnectionCore::write_error_member(int code, std::string_view message, const WriteFn& write_data) {
    writer_.Key("error");
    writer_.StartObject();
    writer_.Key("code");
    writer_.Int(code);
    writer_.Key("message");
    write_string(writer_, message);
    if (write_data) {
        writer_.Key("data");
        write_data(writer_);
    }
    writer_.EndObject();
}

void ConnectionCore::observe(Direction direction, std::string_view line) {
    if (!observer || owner_gone_) return;
    std::string redacted;
    std::string_view shown = line;
    if (redact && contains_secrets(line)) {
        redacted = redact_secrets(line);
        shown = redacted;
    }
    run_host_callback(logger_, "traffic observer",
                      [&] { observer(direction, shown, std::chrono::system_clock::now()); });
}

void ConnectionCore::send_message(WriteCause cause) {
    std::string_view line(out_.GetString(), out_.GetSize());
    observe(Direction::outgoing, line);
    out_.Put('\n');
    transport_->write(std::string_view(out_.GetString(), out_.GetSize()), cause);
}

void ConnectionCore::on_output_paused(bool paused, std::size_t agent_bytes) {
    if (!paused || queued_output_timeout_.count() == 0 || close_requested_ || closed_) {
        if (output_timer_) uv_timer_stop(output_timer_.get());
        return;
    }
    paused_agent_bytes_ = agent_bytes;
    if (!output_timer_) {
        output_timer_.reset(new uv_timer_t{});
        uv_timer_init(loop_, output_timer_.get());
        output_timer_->data = this;  // the timer closes with the core
    }
    uv_timer_start(
        output_timer_.get(),
        [](uv_timer_t* timer) { static_cast<ConnectionCore*>(timer->data)->give_up_on_unread_output(); },
        static_cast<uint64_t>(queued_output_timeout_.count()), 0);
}

void ConnectionCore::give_up_on_unread_output() {
    auto keep_alive = shared_from_this();
    std::string why = "the agent did not read its input: " + std::to_string(paused_agent_bytes_) +
                      " bytes of answers to its requests waited for it and reading from it stayed paused for " +
                      std::to_string(queued_output_timeout_.count()) +
                      " ms, so the client closed the connection (ClientOptions::queued_output_timeout)";
    logger_(LogLevel::error, log_source::jsonrpc, why);
    close_reason_ = Status(Errc::connection_closed, std::move(why));
    close();
}

void ConnectionCore::send_error(const std::optional<RequestId>& id, int code, std::string_view message,
                                const std::shared_ptr<Batch>& batch, const WriteFn& write_data) {
    if (closed_) return;
    (void)write_message([&] {
        writer_.Key("id");
        if (id) {
            id->write(writer_);
        } else {
            writer_.Null();
        }
        write_error_member(code, message, write_data);
    });
    if (batch) {
        add_to_batch(batch);
    } else {
        send_message(WriteCause::agent);
    }
}

void ConnectionCore::send_cancel_notification(int64_t id) {
    send_notification(kCancelRequestMethod, [id](JsonWriter& w) {
        w.StartObject();
        w.Key("requestId");
        w.Int64(id);
        w.EndObject();
    });
}

void ConnectionCore::add_to_batch(const std::shared_ptr<Batch>& batch) {
    batch->responses.emplace_back(out_.GetString(), out_.GetSize());
    maybe_send_batch(batch);
}

void ConnectionCore::maybe_send_batch(const std::shared_ptr<Batch>& batch) {
    if (!batch->sealed || batch->unanswered > 0 || batch->responses.empty() || closed_) return;
    out_.Clear();
    out_.Put('[');
    for (std::size_t i = 0; i < batch->responses.size(); ++i) {
        if (i > 0) out_.Put(',');
        for (char c : batch->responses[i]) out_.Put(c);
    }
    out_.Put(']');
    batch->responses.clear();
    send_message(WriteCause::agent);
}

void ConnectionCore::remember_abandoned(int64_t id) {
    abandoned_ids_.insert(id);
    abandoned_order_.push_back(id);
    if (abandoned_order_.size() > kRememberedAbandonedIds) {
        abandoned_ids_.erase(abandoned_order_.front());
        abandoned_order_.pop_front();
    }
}

void ConnectionCore::complete(int64_t id, const Reply& reply) {
    auto it = pending_.find(id);
    if (it == pending_.end() || owner_gone_) return;
    Pending pending = std::move(it->second);
    pending_.erase(it);
    discard_timer(pending.timer);
    run_host_callback(logger_, "reply handler for " + pending.method, [&] { pending.handler(reply); });
}

void ConnectionCore::on_request_timeout(uv_timer_t* timer) {
    auto* target = static_cast<TimerTarget*>(timer->data);
    auto core = target->core.lock();
    const int64_t id = target->id;
    if (!core) return;
    auto it = core->pending_.find(id);
    if (it == core->pending_.end()) return;
    const std::string method = it->second.method;
    core->remember_abandoned(id);
    core->send_cancel_notification(id);
    core->complete(id, Reply{Status(Errc::timed_out, "request " + method + " timed out"), nullptr});
}

}  // namespace acp::detail
