// SPDX-License-Identifier: Apache-2.0
// Streamable HTTP to a remote agent, as the TypeScript SDK's createHttpStream does it.
//
//   initialize   POSTed alone; the answer comes in the response body with the
//                connection's id (Acp-Connection-Id), and the connection's event stream
//                (an SSE GET) opens.
//   a message    POSTed with the connection id and, when it belongs to a session, the
//                session id (Acp-Session-Id); the session's own event stream is opened
//                first. Messages are POSTed one at a time, in order.
//   the agent's  messages arrive on the event streams; a session/new answer that names a
//                session opens that session's stream.
//
// Failures, as the SDK documents them: HTTP 409 for a session fails only that session's
// requests until session/resume or session/load reattaches it; a session stream that ends
// fails that session's requests in flight; 401, 403, 404, 410, network errors and failed
// notifications or responses close the transport; any other HTTP error fails only its
// request, with {status, body} (body cut to 8 KiB) as the error's data.
#pragma once

#include <uv.h>

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "acp/status.hpp"
#include "acp/transport_options.hpp"
#include "support/deferred_queue.hpp"
#include "support/logger.hpp"
#include "transport/read_throttle.hpp"
#include "transport/remote/message_facts.hpp"
#include "transport/remote/remote_url.hpp"
#include "transport/remote/sse_parser.hpp"
#include "transport/transport.hpp"

namespace acp::detail {

class CurlMulti;
struct Exchange;

class HttpTransport final : public Transport, private ReadSwitch {
public:
    static constexpr std::size_t kMaxErrorBodyBytes = 8 * 1024;

    static Result<std::unique_ptr<HttpTransport>> connect(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options,
                                                          std::size_t max_message_bytes, Logger logger);
    ~HttpTransport() override;

    void start(TransportEvents* events) override;
    void write(std::string_view bytes, WriteCause cause) override;
    void close() override;
    void detach() override;
    void set_write_limits(WriteLimits limits) override;
    std::size_t queued_bytes() const override { return queued_bytes_; }
    void hold_reading(bool held) override { throttle_.hold(held); }

private:
    struct Outgoing {
        std::string json;
        MessageFacts facts;
        WriteCause cause;
    };
    // One server-sent event stream: the connection's (session empty) or a session's.
    // Shared with its transfer's callbacks: a host's callback run from inside the stream's
    // own parse may close or destroy the transport, and the parse must not lose its ground.
    struct EventStream final : SseSink {
        HttpTransport* owner = nullptr;  // null once retired: nothing more is handed on
        std::string session;
        Exchange* exchange = nullptr;
        SseParser parser;
        std::string event;             // the current event's data, while under the size cap
        bool passing_through = false;  // over the cap: handed on as it comes, for the framer to refuse
        bool open = false;             // answered 200
        std::string error_body;        // a refusal's body, cut to kMaxErrorBodyBytes
        void on_sse_data(const char* data, std::size_t size) override;
        void on_sse_event_end() override;
    };
    struct PendingRequest {
        std::string session;
        std::string id_json;
    };
    struct HttpFailure {
        long status = 0;
        std::string body;
        std::string message;
    };

    HttpTransport(uv_loop_t* loop, RemoteUrl url, const RemoteOptions& options, std::size_t max_message_bytes,
                  Logger logger);
    std::unique_ptr<Exchange> new_exchange(const std::string& session, bool event_stream);
    std::string excerpt(const std::string& server_text) const;  // for a status or a log line
    void pump();
    void post(const std::string& session);
    void on_post_done(const std::string& session, Exchange& exchange, int curl_result);
    void on_initialize_answer(Exchange& exchange, std::string& body);
    void finish_post();
    void unqueue_front();  // the first queued message was sent or dropped
    std::string session_of(const MessageFacts& facts) const;
    bool session_stream_ready(const std::string& session);
    void open_stream(const std::string& session);
    void on_stream_done(EventStream& stream, int curl_result, long status, const std::string& reason);
    void on_inbound(EventStream& stream, std::string message);
    void fail_session(const std::string& session, const HttpFailure& failure);
    void fail_pending_requests(const std::string& session, const HttpFailure& failure);
    void drop_session_message(const Outgoing& message, const HttpFailure& failure);
    void answer_with_error(const std::string& id_json, const HttpFailure& failure);
    void deliver(std::string& line);  // a whole message, without its line break
    void deliver_raw(const char* data, std::size_t size);
    void fail_transport(Status why);
    void cancel_transfers();
    void retire(EventStream& stream);
    void send_delete();
    void report_closed(Status why);
    void pause_reading() override;
    void resume_reading() override;

    RemoteUrl url_;
    RemoteOptions options_;
    std::size_t max_message_bytes_;
    Logger logger_;
    std::vector<std::string> secrets_;  // the header values (remote_headers.hpp)
    DeferredQueue deferred_;
    std::shared_ptr<CurlMulti> multi_;
    TransportEvents* events_ = nullptr;

    std::string partial_out_;
    std::deque<Outgoing> outgoing_;
    std::size_t queued_bytes_ = 0;
    std::size_t queued_agent_bytes_ = 0;  // of those, what the agent caused: the write limits' count
    Exchange* post_ = nullptr;            // the POST in flight (one at a time)
    std::string post_body_;               // its response body, capped
    bool post_body_cut_ = false;          // the body reached the cap and reading it stopped
    ReadThrottle throttle_;
    bool read_paused_ = false;

    std::string connection_id_;
    std::shared_ptr<EventStream> connection_stream_;
    std::map<std::string, std::shared_ptr<EventStream>> session_streams_;
    std::map<std::string, HttpFailure> session_failures_;             // 409: until reattached
    std::map<std::string, PendingRequest> pending_session_requests_;  // by id key
    std::map<std::string, std::string> agent_request_sessions_;       // the agent's requests: id key -> session
    std::set<std::string> session_creating_requests_;                 // session/new, session/fork in flight

    std::string scratch_;  // a writable copy for the framer
    bool close_requested_ = false;
    bool closed_ = false;
    bool cookies_dropped_ = false;  // the warning about it was logged
};

}  // namespace acp::detail
