// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/http_transport.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <utility>

#include "support/utf8.hpp"
#include "transport/message_lines.hpp"
#include "transport/remote/curl_multi.hpp"
#include "transport/remote/remote_headers.hpp"
#include "transport/remote/remote_libraries.hpp"

namespace acp::detail {

namespace {

constexpr int kInternalError = -32603;

// Statuses that mean the connection is unusable or gone (the SDK's list).
bool closes_connection(long status) { return status == 401 || status == 403 || status == 404 || status == 410; }

bool is_reattach(const std::string& method) { return method == "session/load" || method == "session/resume"; }

// Requests whose answer names a new session, whose stream then opens.
bool creates_session(const std::string& method) { return method == "session/new" || method == "session/fork"; }

// Header names compare without case; ours are lower case.
bool is_transport_header(const std::string& name) {
    for (std::string_view own : {"content-type", "accept", "acp-connection-id", "acp-session-id"}) {
        if (name.size() != own.size()) continue;
        bool same = true;
        for (std::size_t i = 0; same && i < own.size(); ++i) {
            same = std::tolower(static_cast<unsigned char>(name[i])) == own[i];
        }
        if (same) return true;
    }
    return false;
}

// Text the agent's server sent, made fit for a status message: printable ASCII only,
// short (the whole body, as sent, goes into the error's data).
std::string printable_excerpt(const std::string& text) {
    std::string out;
    for (unsigned char c : text) {
        if (out.size() >= 200) {
            out += "...";
            break;
        }
        out.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : ' ');
    }
    return out;
}

// Replaces what is not UTF-8 (a body cut inside a character, or not text at all) with
// U+FFFD, so the error answer built from it passes the connection's UTF-8 check.
std::string valid_utf8(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    utf8_append_repaired(text, out);
    return out;
}

void append_capped(std::string& to, const char* data, std::size_t size, std::size_t cap) {
    if (to.size() < cap) to.append(data, std::min(size, cap - to.size()));
}

// Ids the agent made up go into the Acp-Session-Id and Acp-Connection-Id headers: one with
// a control character in it (a line break would forge headers) is never sent.
bool fits_in_header(const std::string& value) {
    if (value.empty() || value.size() > 1024) return false;
    for (unsigned char c : value) {
        if (c < 0x20 || c == 0x7f) return false;
    }
    return true;
}

Errc errc_of(int curl_result) {
    return curl_result == CURLE_OPERATION_TIMEDOUT ? Errc::timed_out : Errc::connection_closed;
}

std::string curl_reason(const Exchange& exchange, int curl_result) {
    return exchange.error[0] != '\0' ? std::string(exchange.error)
                                     : std::string(curl().easy_strerror(static_cast<CURLcode>(curl_result)));
}

}  // namespace

HttpTransport::HttpTransport(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options,
                             std::size_t max_message_bytes, Logger logger)
    : url_(std::move(url)),
      options_(options),
      max_message_bytes_(max_message_bytes),
      logger_(std::move(logger)),
      secrets_(header_secrets(options.headers)),
      deferred_(loop),
      multi_(CurlMulti::create(loop)) {
    multi_->on_cookies_dropped = [this](std::size_t dropped) {
        if (cookies_dropped_) return;  // said once: a server may do it with every answer
        cookies_dropped_ = true;
        logger_(LogLevel::warning, log_source::transport,
                "the agent's server at " + url_.redacted + " set more cookies than are kept; " +
                    std::to_string(dropped) + " dropped, and from now on all such are dropped without a word");
    };
}

std::string HttpTransport::excerpt(const std::string& text) const {
    // Redacted before it is cut: a token cut in two would slip through.
    return printable_excerpt(without_secrets(text, secrets_));
}

Result<std::unique_ptr<HttpTransport>> HttpTransport::connect(uv_loop_t* loop, RemoteUrl url,
                                                              const RemoteOptions& options,
                                                              std::size_t max_message_bytes, Logger logger) {
    if (Status valid = check_remote_headers(options.headers); !valid.ok()) return valid;
    return std::unique_ptr<HttpTransport>(
        new HttpTransport(loop, std::move(url), options, max_message_bytes, std::move(logger)));
}

HttpTransport::~HttpTransport() {
    events_ = nullptr;
    if (connection_stream_) connection_stream_->owner = nullptr;
    for (auto& entry : session_streams_) entry.second->owner = nullptr;
    multi_->shutdown();  // no callback of ours runs again
}

void HttpTransport::retire(EventStream& stream) {
    stream.owner = nullptr;
    multi_->cancel(stream.exchange);
    stream.exchange = nullptr;
}

void HttpTransport::start(TransportEvents* events) { events_ = events; }

std::unique_ptr<Exchange> HttpTransport::new_exchange(const std::string& session, bool event_stream) {
    auto exchange = std::make_unique<Exchange>();
    CURL* easy = exchange->easy;
    curl().easy_setopt(easy, CURLOPT_URL, url_.full.c_str());
    curl().easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    if (!options_.ca_file.empty()) curl().easy_setopt(easy, CURLOPT_CAINFO, options_.ca_file.c_str());
    if (options_.connect_timeout.count() > 0) {
        curl().easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
    }
    // The host's headers first; the transport's own are never overridden by them.
    for (const auto& [name, value] : options_.headers) {
        if (is_transport_header(name)) continue;
        // "Name;" is libcurl's way to send a header with an empty value.
        std::string line = name;
        line += value.empty() ? ";" : ": ";
        line += value;
        exchange->headers = curl().slist_append(exchange->headers, line.c_str());
    }
    if (event_stream) exchange->headers = curl().slist_append(exchange->headers, "Accept: text/event-stream");
    if (!connection_id_.empty()) {
        exchange->headers = curl().slist_append(exchange->headers, ("Acp-Connection-Id: " + connection_id_).c_str());
    }
    if (!session.empty()) {
        exchange->headers = curl().slist_append(exchange->headers, ("Acp-Session-Id: " + session).c_str());
    }
    return exchange;
}

// --- writing ---------------------------------------------------------------------------

void HttpTransport::write(std::string_view bytes, WriteCause cause) {
    if (close_requested_ || closed_) return;
    split_outgoing_lines(partial_out_, bytes, [this, cause](std::string json) {
        queued_bytes_ += json.size();
        if (cause == WriteCause::agent) queued_agent_bytes_ += json.size();
        MessageFacts facts = inspect_message(json);
        outgoing_.push_back(Outgoing{std::move(json), std::move(facts), cause});
    });
    throttle_.update(queued_agent_bytes_);
    pump();
}

std::string HttpTransport::session_of(const MessageFacts& facts) const {
    if (!facts.params_session.empty()) return facts.params_session;
    if (facts.is_response) {
        auto it = agent_request_sessions_.find(facts.id_key);
        if (it != agent_request_sessions_.end()) return it->second;
    }
    return {};
}

void HttpTransport::pump() {
    while (post_ == nullptr && !outgoing_.empty() && !closed_ && !close_requested_) {
        Outgoing& next = outgoing_.front();
        if (connection_id_.empty()) {
            if (next.facts.method != "initialize" || !next.facts.is_request) {
                fail_transport(
                    Status(Errc::protocol_error, "the first message to " + url_.redacted + " must be initialize"));
                return;
            }
            post({});
            return;
        }
        std::string session = session_of(next.facts);
        if (!session.empty() && !fits_in_header(session)) {
            Outgoing dropped = std::move(next);
            unqueue_front();
            drop_session_message(dropped, HttpFailure{0, {}, "the session id cannot be sent in an HTTP header"});
            continue;
        }
        if (!session.empty()) {
            if (next.facts.is_request && is_reattach(next.facts.method)) session_failures_.erase(session);
            auto failed = session_failures_.find(session);
            if (failed != session_failures_.end()) {
                HttpFailure failure = failed->second;
                Outgoing dropped = std::move(next);
                unqueue_front();
                drop_session_message(dropped, failure);
                continue;
            }
            if (!session_stream_ready(session)) return;  // pumped again when it opens or fails
        }
        post(session);
        return;
    }
    throttle_.update(queued_agent_bytes_);
}

void HttpTransport::post(const std::string& session) {
    Outgoing& message = outgoing_.front();
    if (!session.empty() && message.facts.is_request) {
        pending_session_requests_[message.facts.id_key] = PendingRequest{session, message.facts.id_json};
    }
    if (message.facts.is_request && creates_session(message.facts.method)) {
        session_creating_requests_.insert(message.facts.id_key);
    }
    auto exchange = new_exchange(session, false);
    exchange->headers = curl().slist_append(exchange->headers, "Content-Type: application/json");
    exchange->request_body = message.json;
    CURL* easy = exchange->easy;
    curl().easy_setopt(easy, CURLOPT_HTTPHEADER, exchange->headers);
    curl().easy_setopt(easy, CURLOPT_POSTFIELDS, exchange->request_body.data());
    curl().easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(exchange->request_body.size()));
    post_body_.clear();
    post_body_cut_ = false;
    std::size_t cap = connection_id_.empty() ? max_message_bytes_ : kMaxErrorBodyBytes;
    exchange->on_body = [this, cap](const char* data, std::size_t size) {
        append_capped(post_body_, data, size, cap);
        // Nothing past the cap is used: stop reading (a body may never end).
        if (post_body_.size() == cap) post_body_cut_ = true;
        return !post_body_cut_;
    };
    Exchange* raw = exchange.get();
    exchange->on_done = [this, session, raw](CURLcode result) { on_post_done(session, *raw, result); };
    post_ = multi_->start(std::move(exchange));
}

void HttpTransport::finish_post() {
    post_ = nullptr;
    if (!outgoing_.empty()) unqueue_front();
    throttle_.update(queued_agent_bytes_);
}

void HttpTransport::unqueue_front() {
    const Outgoing& first = outgoing_.front();
    queued_bytes_ -= first.json.size();
    if (first.cause == WriteCause::agent) queued_agent_bytes_ -= first.json.size();
    outgoing_.pop_front();
}

void HttpTransport::on_post_done(const std::string& session, Exchange& exchange, int curl_result) {
    if (outgoing_.empty()) return;
    Outgoing message = outgoing_.front();
    std::string body = std::move(post_body_);
    post_body_.clear();
    finish_post();

    // Reading stopped at the cap: the response is as complete as it needs to be.
    const bool cut = post_body_cut_ && curl_result == CURLE_WRITE_ERROR;
    if (cut && connection_id_.empty() && exchange.status == 200) {
        fail_transport(Status(Errc::connection_closed, "the answer to initialize from the agent at " + url_.redacted +
                                                           " is over the limit of " +
                                                           std::to_string(max_message_bytes_) + " bytes"));
        return;
    }
    if (curl_result != CURLE_OK && !cut) {
        std::string what = connection_id_.empty() ? "connecting to " : "sending to ";
        fail_transport(
            Status(errc_of(curl_result), what + url_.redacted + " failed: " + curl_reason(exchange, curl_result)));
        return;
    }
    if (connection_id_.empty()) {
        on_initialize_answer(exchange, body);
        pump();
        return;
    }
    long status = exchange.status;
    if (status >= 200 && status < 300) {
        if (message.facts.is_response) agent_request_sessions_.erase(message.facts.id_key);
        pump();
        return;
    }
    if (message.facts.is_request) session_creating_requests_.erase(message.facts.id_key);  // no answer will come
    HttpFailure failure{status, body, "the agent's server answered HTTP " + std::to_string(status)};
    bool still_pending = true;
    if (!session.empty() && message.facts.is_request)
        still_pending = pending_session_requests_.erase(message.facts.id_key) > 0;
    if (!session.empty() && status == 409) {
        fail_session(session, failure);
        drop_session_message(message, failure);
    } else if (!closes_connection(status) && message.facts.is_request) {
        // Only this request fails; the agent may still have taken it (a gateway's 502).
        if (still_pending) answer_with_error(message.facts.id_json, failure);
    } else {
        fail_transport(Status(Errc::connection_closed, url_.redacted + " answered HTTP " + std::to_string(status) +
                                                           (body.empty() ? "" : ": " + excerpt(body))));
        return;
    }
    pump();
}

void HttpTransport::on_initialize_answer(Exchange& exchange, std::string& body) {
    long status = exchange.status;
    auto refuse = [&](const std::string& why) {
        fail_transport(
            Status(Errc::connection_closed, "the agent at " + url_.redacted + " refused initialize: " + why));
    };
    if (status != 200) {
        refuse("HTTP " + std::to_string(status) + (body.empty() ? "" : ": " + excerpt(body)));
        return;
    }
    if (exchange.connection_id.empty()) {
        refuse("the answer has no Acp-Connection-Id header");
        return;
    }
    // It goes back in a header of every later request: a bare CR in it would forge headers.
    if (!fits_in_header(exchange.connection_id)) {
        refuse("its Acp-Connection-Id header holds control characters or is over 1024 bytes");
        return;
    }
    MessageFacts facts = inspect_message(body);
    if (!facts.is_response) {
        refuse("the answer is not a JSON-RPC response");
        return;
    }
    connection_id_ = exchange.connection_id;
    logger_(LogLevel::info, log_source::transport, "connected to " + url_.redacted + " (Streamable HTTP)");
    open_stream({});
    deliver(body);
}

void HttpTransport::drop_session_message(const Outgoing& message, const HttpFailure& failure) {
    if (message.facts.is_request) {
        answer_with_error(message.facts.id_json, failure);
    } else if (message.facts.is_response) {
        agent_request_sessions_.erase(message.facts.id_key);
    }
    // A notification for a session that is gone has nowhere to go.
}

void HttpTransport::answer_with_error(const std::string& id_json, const HttpFailure& failure) {
    rapidjson::StringBuffer text;
    rapidjson::Writer<rapidjson::StringBuffer> out(text);
    out.StartObject();
    out.Key("jsonrpc");
    out.String("2.0");
    out.Key("id");
    out.RawValue(id_json.data(), id_json.size(), rapidjson::kStringType);
    out.Key("error");
    out.StartObject();
    out.Key("code");
    out.Int(kInternalError);
    out.Key("message");
    out.String(failure.message);
    if (failure.status != 0) {
        out.Key("data");
        out.StartObject();
        out.Key("status");
        out.Int64(failure.status);
        out.Key("body");
        // The body as JSON when it is JSON, else as a string, as the SDK reports it; a
        // server that echoes the request's headers does not hand the host's back to it.
        const std::string body = without_secrets(failure.body, secrets_);
        rapidjson::Document parsed;
        parsed.Parse<rapidjson::kParseValidateEncodingFlag>(body.data(), body.size());
        if (!parsed.HasParseError()) {
            parsed.Accept(out);
        } else {
            out.String(valid_utf8(body));
        }
        out.EndObject();
    }
    out.EndObject();
    out.EndObject();
    std::string line(text.GetString(), text.GetSize());
    deliver(line);
}

// --- the agent's event streams ---------------------------------------------------------

bool HttpTransport::session_stream_ready(const std::string& session) {
    auto it = session_streams_.find(session);
    if (it == session_streams_.end()) {
        open_stream(session);
        return false;
    }
    return it->second->open;
}

void HttpTransport::open_stream(const std::string& session) {
    auto stream = std::make_shared<EventStream>();
    stream->owner = this;
    stream->session = session;
    std::shared_ptr<EventStream> raw = stream;
    if (session.empty()) {
        connection_stream_ = std::move(stream);
    } else {
        session_streams_[session] = std::move(stream);
    }
    auto exchange = new_exchange(session, true);
    curl().easy_setopt(exchange->easy, CURLOPT_HTTPHEADER, exchange->headers);
    Exchange* exchange_raw = exchange.get();
    exchange->on_headers = [this, raw, exchange_raw] {
        if (raw->owner == nullptr) return;
        raw->open = exchange_raw->status == 200;
        if (raw->open && read_paused_) multi_->set_receive_paused(exchange_raw, true);
        if (raw->open && !raw->session.empty()) pump();
    };
    exchange->on_body = [raw](const char* data, std::size_t size) {
        if (raw->owner == nullptr) return false;  // retired: the transfer ends
        if (raw->open) {
            raw->parser.feed(data, size, *raw);
            return true;
        }
        append_capped(raw->error_body, data, size, kMaxErrorBodyBytes);
        return raw->error_body.size() < kMaxErrorBodyBytes;  // a refusal's body may never end
    };
    exchange->on_done = [this, raw, exchange_raw](CURLcode result) {
        raw->exchange = nullptr;
        if (raw->owner == nullptr) return;
        on_stream_done(*raw, result, exchange_raw->status, curl_reason(*exchange_raw, result));
    };
    raw->exchange = multi_->start(std::move(exchange));
}

void HttpTransport::EventStream::on_sse_data(const char* data, std::size_t size) {
    if (owner == nullptr) return;
    if (passing_through) {
        owner->deliver_raw(data, size);
        return;
    }
    if (event.size() + size > owner->max_message_bytes_) {
        // Over the cap: the framer sees the whole line, refuses it and says so, as for a
        // process; nothing of it is held here.
        passing_through = true;
        owner->deliver_raw(event.data(), event.size());
        event.clear();
        event.shrink_to_fit();
        owner->deliver_raw(data, size);
        return;
    }
    event.append(data, size);
}

void HttpTransport::EventStream::on_sse_event_end() {
    if (owner == nullptr) return;
    if (passing_through) {
        passing_through = false;
        owner->deliver_raw("\n", 1);
        return;
    }
    std::string message = std::move(event);
    event = std::string();
    owner->on_inbound(*this, std::move(message));
}

void HttpTransport::on_inbound(EventStream& stream, std::string message) {
    if (may_carry_id(message)) {
        MessageFacts facts = inspect_message(message);
        if (facts.is_response) {
            pending_session_requests_.erase(facts.id_key);
            // A session the agent just created gets its stream before its first update.
            // Only then: a session named in any other answer would open one more
            // connection per answer, without end.
            bool created = session_creating_requests_.erase(facts.id_key) > 0;
            if (created && fits_in_header(facts.result_session) && session_streams_.count(facts.result_session) == 0 &&
                session_failures_.count(facts.result_session) == 0) {
                open_stream(facts.result_session);
            }
        } else if (facts.is_request && !stream.session.empty()) {
            agent_request_sessions_[facts.id_key] = stream.session;
        }
    }
    deliver(message);
}

void HttpTransport::on_stream_done(EventStream& stream, int curl_result, long status, const std::string& reason) {
    if (closed_) return;
    std::string session = stream.session;  // the stream may be erased below
    if (stream.open) {
        stream.parser.finish(stream);
        // The last event's host callback may have closed the transport, or destroyed its
        // client and with it this transport (which cleared every stream's owner): then
        // nothing of this is touched again. The stream itself lives in the callback.
        if (stream.owner == nullptr || closed_) return;
        if (curl_result != CURLE_OK) {
            fail_transport(
                Status(Errc::connection_closed, "the event stream from " + url_.redacted + " failed: " + reason));
            return;
        }
        if (session.empty()) {
            fail_transport(Status(Errc::connection_closed, "the agent at " + url_.redacted + " ended the connection"));
            return;
        }
        // Answers to this session's requests can no longer come; the next message for the
        // session opens its stream again.
        session_streams_.erase(session);
        fail_pending_requests(session, HttpFailure{0, {}, "the session's event stream from the agent closed"});
        pump();
        return;
    }
    if (curl_result != CURLE_OK && status == 0) {
        fail_transport(Status(errc_of(curl_result), "cannot reach " + url_.redacted + ": " + reason));
        return;
    }
    HttpFailure failure{status, stream.error_body,
                        "the agent's server refused the event stream: HTTP " + std::to_string(status)};
    if (!session.empty() && status == 409) {
        fail_session(session, failure);
        pump();
        return;
    }
    fail_transport(Status(Errc::connection_closed, url_.redacted + " refused the event stream" +
                                                       (session.empty() ? "" : " of a session") + ": HTTP " +
                                                       std::to_string(status) +
                                                       (failure.body.empty() ? "" : ": " + excerpt(failure.body))));
}

void HttpTransport::fail_session(const std::string& session, const HttpFailure& failure) {
    logger_(LogLevel::warning, log_source::transport,
            "the agent's server detached session " + excerpt(session) + " (HTTP " + std::to_string(failure.status) +
                "); its requests fail until it is resumed or loaded");
    session_failures_[session] = failure;
    auto it = session_streams_.find(session);
    if (it != session_streams_.end()) {
        retire(*it->second);
        session_streams_.erase(it);
    }
    fail_pending_requests(session, failure);
}

void HttpTransport::fail_pending_requests(const std::string& session, const HttpFailure& failure) {
    for (auto it = pending_session_requests_.begin(); it != pending_session_requests_.end();) {
        if (it->second.session == session) {
            std::string id_json = it->second.id_json;
            it = pending_session_requests_.erase(it);
            answer_with_error(id_json, failure);
        } else {
            ++it;
        }
    }
}

// --- handing messages to the connection ------------------------------------------------

void HttpTransport::deliver(std::string& line) {
    if (events_ == nullptr) return;
    flatten_line_breaks(line.data(), line.size());
    line.push_back('\n');
    events_->on_transport_data(line.data(), line.size());
}

void HttpTransport::deliver_raw(const char* data, std::size_t size) {
    if (events_ == nullptr || size == 0) return;
    scratch_.assign(data, size);
    if (size != 1 || data[0] != '\n') flatten_line_breaks(scratch_.data(), size);
    events_->on_transport_data(scratch_.data(), size);
}

// --- the end ---------------------------------------------------------------------------

void HttpTransport::send_delete() {
    if (connection_id_.empty()) return;
    auto exchange = new_exchange({}, false);
    curl().easy_setopt(exchange->easy, CURLOPT_HTTPHEADER, exchange->headers);
    curl().easy_setopt(exchange->easy, CURLOPT_CUSTOMREQUEST, "DELETE");
    curl().easy_setopt(exchange->easy, CURLOPT_TIMEOUT_MS, 2000L);
    connection_id_.clear();
    exchange->on_done = [this](CURLcode) {
        if (close_requested_) report_closed(Status(Errc::connection_closed, "the connection was closed by the client"));
    };
    multi_->start(std::move(exchange));
}

void HttpTransport::cancel_transfers() {
    multi_->cancel(post_);
    post_ = nullptr;
    if (connection_stream_) retire(*connection_stream_);
    for (auto& entry : session_streams_) retire(*entry.second);
    session_streams_.clear();
    outgoing_.clear();
    queued_bytes_ = queued_agent_bytes_ = 0;
}

void HttpTransport::close() {
    if (close_requested_ || closed_) return;
    close_requested_ = true;
    throttle_.release();
    cancel_transfers();
    if (!connection_id_.empty()) {
        send_delete();  // reports the close when the server answered (or in 2 s)
        return;
    }
    deferred_.post(
        [this] { report_closed(Status(Errc::connection_closed, "the connection was closed by the client")); });
}

void HttpTransport::fail_transport(Status why) {
    if (closed_) return;
    cancel_transfers();
    bool requested = close_requested_;
    close_requested_ = false;  // the DELETE below is a courtesy: nothing waits for it
    send_delete();
    close_requested_ = requested;
    report_closed(std::move(why));
}

void HttpTransport::report_closed(Status why) {
    if (closed_) return;
    closed_ = true;
    throttle_.release();
    if (events_ != nullptr) {
        auto* events = events_;
        events_ = nullptr;
        events->on_transport_closed(why);
    }
}

void HttpTransport::detach() { events_ = nullptr; }

void HttpTransport::set_write_limits(WriteLimits limits) { throttle_.configure(this, std::move(limits), logger_); }

void HttpTransport::pause_reading() {
    read_paused_ = true;
    if (connection_stream_ && connection_stream_->open) multi_->set_receive_paused(connection_stream_->exchange, true);
    for (auto& entry : session_streams_) {
        if (entry.second->open) multi_->set_receive_paused(entry.second->exchange, true);
    }
}

void HttpTransport::resume_reading() {
    read_paused_ = false;
    // Resuming can hand over held data at once; not inside the write that got us here.
    deferred_.post([this] {
        if (read_paused_) return;
        if (connection_stream_) multi_->set_receive_paused(connection_stream_->exchange, false);
        for (auto& entry : session_streams_) multi_->set_receive_paused(entry.second->exchange, false);
    });
}

}  // namespace acp::detail
