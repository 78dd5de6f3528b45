// SPDX-License-Identifier: Apache-2.0
#include "tools/http_carrier.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>
#include <sys/socket.h>

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "jsonrpc/json.hpp"
#include "support/uv_handle.hpp"
#include "tools/carrier_secret.hpp"
#include "tools/microhttpd_library.hpp"
#include "tools/microhttpd_watch.hpp"
#include "transport/line_framer.hpp"

namespace acp::detail::tools {

namespace {

const MicroHttpdLibrary& mhd() { return microhttpd(); }

constexpr const char* kPath = "/mcp";
// One message per POST, as long as a line may be on every other carrier.
constexpr std::size_t kMaxBodyBytes = LineFramer::kDefaultMaxLineBytes;
// All bodies being received at once: beyond, a request gets 413 instead of memory.
constexpr std::size_t kMaxBodyBytesInFlight = 2 * kMaxBodyBytes;
// Each request waiting for its answer holds a connection (HTTP/1.1 has one request in
// flight per connection): this bounds them, and the endpoint bounds its calls below it.
constexpr unsigned kMaxConnections = 128;
constexpr unsigned kIdleTimeoutSeconds = 60;
// Agents re-initialize when they reconnect and rarely DELETE: the least recently used
// session without a request in flight makes room for a new one.
constexpr std::size_t kMaxSessions = 16;
// Progress notifications waiting for a reader that does not read: beyond this, dropped
// (the final answer never is).
constexpr std::size_t kMaxStreamBacklogBytes = std::size_t{1024} * 1024;
constexpr std::size_t kStreamBlockBytes = std::size_t{16} * 1024;

// What the carrier needs to know of a POSTed message: its kind, its id (to route the
// answer) and whether it starts a session. A SAX pass: the whole body is checked for
// well-formed JSON without building a tree of it.
struct Envelope {
    bool object = false;
    std::optional<std::string> method;
    bool has_id = false;
    std::optional<std::string> id;  // canonical JSON text; absent when not a string or integer
    bool has_result_or_error = false;

    bool is_request() const { return method.has_value() && id.has_value(); }
    bool is_notification() const { return method.has_value() && !has_id; }
    bool is_response() const { return !method.has_value() && id.has_value() && has_result_or_error; }
};

std::string canonical_string(const char* text, std::size_t size) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.String(text, static_cast<rapidjson::SizeType>(size));
    return std::string(buffer.GetString(), buffer.GetSize());
}

class EnvelopeReader : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EnvelopeReader> {
public:
    explicit EnvelopeReader(Envelope& out) : out_(out) {}

    bool Default() { return member_value(std::nullopt); }
    bool Int(int value) { return member_value(std::to_string(value)); }
    bool Uint(unsigned value) { return member_value(std::to_string(value)); }
    bool Int64(int64_t value) { return member_value(std::to_string(value)); }
    bool Uint64(uint64_t value) { return member_value(std::to_string(value)); }
    bool String(const char* text, rapidjson::SizeType size, bool) {
        if (depth_ == 1 && key_ == "method") out_.method.emplace(text, size);
        return member_value(canonical_string(text, size));
    }
    bool Key(const char* text, rapidjson::SizeType size, bool) {
        if (depth_ == 1) {
            key_.assign(text, size);
            if (key_ == "id") out_.has_id = true;
            if (key_ == "result" || key_ == "error") out_.has_result_or_error = true;
        }
        return true;
    }
    bool StartObject() {
        if (depth_ == 0) out_.object = true;
        return member_value(std::nullopt), ++depth_, true;
    }
    bool EndObject(rapidjson::SizeType) { return --depth_, true; }
    bool StartArray() { return member_value(std::nullopt), ++depth_, true; }
    bool EndArray(rapidjson::SizeType) { return --depth_, true; }

private:
    bool member_value(std::optional<std::string> id_text) {
        if (depth_ == 1 && key_ == "id") out_.id = std::move(id_text);
        if (depth_ == 1) key_.clear();
        return true;
    }

    Envelope& out_;
    int depth_ = 0;
    std::string key_;
};

// Empty when the body is not well-formed JSON.
std::optional<Envelope> read_envelope(std::string_view body) {
    Envelope envelope;
    EnvelopeReader handler(envelope);
    rapidjson::MemoryStream stream(body.data(), body.size());
    rapidjson::Reader reader;
    auto parsed = reader.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(stream, handler);
    if (parsed.IsError()) return std::nullopt;
    return envelope;
}

// The same canonical text for an id the endpoint names (in_reply_to), so that 1 and 1,
// "a" and "\u0061" meet.
std::optional<std::string> canonical_id(std::string_view json) {
    rapidjson::Document document;
    document.Parse(json.data(), json.size());
    if (document.HasParseError()) return std::nullopt;
    if (document.IsString()) return canonical_string(document.GetString(), document.GetStringLength());
    if (document.IsInt64()) return std::to_string(document.GetInt64());
    if (document.IsUint64()) return std::to_string(document.GetUint64());
    return std::nullopt;
}

// Whether a message the endpoint sends is a response (ends its request's exchange) rather
// than a notification. Stops at the first top-level member that tells.
class ResponseProbe : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ResponseProbe> {
public:
    bool Default() { return true; }
    bool Key(const char* text, rapidjson::SizeType size, bool) {
        if (depth_ != 1) return true;
        std::string_view key(text, size);
        if (key == "method") verdict = false;
        if (key == "result" || key == "error") verdict = true;
        return !verdict.has_value();
    }
    bool StartObject() { return ++depth_, true; }
    bool EndObject(rapidjson::SizeType) { return --depth_, true; }
    bool StartArray() { return ++depth_, true; }
    bool EndArray(rapidjson::SizeType) { return --depth_, true; }

    std::optional<bool> verdict;

private:
    int depth_ = 0;
};

bool is_response(std::string_view message) {
    ResponseProbe probe;
    rapidjson::MemoryStream stream(message.data(), message.size());
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseIterativeFlag>(stream, probe);
    return probe.verdict.value_or(false);
}

// One server-sent event carrying a message; a line break inside it (there is none in
// compact JSON) would start a new data line, which the reader joins back.
void append_event(std::string& stream, std::string_view message) {
    stream += "event: message\n";
    while (true) {
        std::size_t end = message.find('\n');
        stream += "data: ";
        stream.append(message.substr(0, end));
        stream += '\n';
        if (end == std::string_view::npos) break;
        message.remove_prefix(end + 1);
    }
    stream += '\n';
}

std::string rpc_error_body(int code, std::string_view message) {
    rapidjson::StringBuffer buffer;
    JsonWriter writer(buffer);
    writer.StartObject();
    writer.Key("jsonrpc");
    writer.String("2.0");
    writer.Key("error");
    writer.StartObject();
    writer.Key("code");
    writer.Int(code);
    writer.Key("message");
    write_string(writer, message);
    writer.EndObject();
    writer.Key("id");
    writer.Null();
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

bool is_loopback(const sockaddr* address) {
    if (address == nullptr) return false;
    if (address->sa_family == AF_INET) {
        const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (address->sa_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
        if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr)) return true;
        return IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && v6->sin6_addr.s6_addr[12] == 127;
    }
    return false;
}

// Why a request was refused before it reached the endpoint; each is logged once.
enum class Refusal : unsigned { not_loopback = 1, foreign_origin = 2, no_token = 4, wrong_token = 8 };

}  // namespace

struct HttpCarrier::Impl {
    struct Exchange;
    struct Session;

    Impl(uv_loop_t* loop_in, McpEndpoint& endpoint_in, Logger logger_in, std::string token_in)
        : loop(loop_in), endpoint(&endpoint_in), logger(std::move(logger_in)), token(std::move(token_in)) {}

    Status listen(HttpPolling polling);
    // Ends everything: the endpoint hears every session close now; the daemon stops now,
    // or once the MHD_run this was called from returns. Deletes this.
    void close();

    // libmicrohttpd's callbacks.
    static MHD_Result on_request(void* self, MHD_Connection* connection, const char* url, const char* method,
                                 const char* version, const char* upload, std::size_t* upload_size, void** context);
    static void on_completed(void* self, MHD_Connection* connection, void** context, MHD_RequestTerminationCode why);
    static void on_connection(void* self, MHD_Connection* connection, void** socket_context,
                              MHD_ConnectionNotificationCode what);
    static ssize_t read_stream(void* exchange, uint64_t position, char* buffer, std::size_t max);

    MHD_Result begin(Exchange& exchange, const char* method);
    MHD_Result take_body(Exchange& exchange, const char* upload, std::size_t* upload_size);
    MHD_Result dispatch(Exchange& exchange);
    MHD_Result answer_when_ready(Exchange& exchange);
    MHD_Result end_session_request(Exchange& exchange);
    std::optional<Refusal> check_caller(MHD_Connection* connection) const;
    void log_refusal(Refusal why);
    MHD_Result respond(Exchange& exchange, unsigned status, std::string_view body, const char* content_type,
                       const std::vector<std::pair<const char*, std::string>>& headers = {});
    MHD_Result respond_error(Exchange& exchange, unsigned status, int code, std::string_view message,
                             const std::vector<std::pair<const char*, std::string>>& headers = {});
    std::string header(MHD_Connection* connection, const char* name) const;
    Session* find_session(const std::string& id);
    Result<Session*> open_session();
    void end_session(Session& session);
    void release_body(Exchange& exchange);

    void deliver(Session& session, std::string message, std::string_view in_reply_to);
    void wake(Exchange& exchange);
    static void run_daemon(void* self) { static_cast<Impl*>(self)->run(); }
    void run();
    void rearm();
    void stop_daemon();

    uv_loop_t* loop;
    McpEndpoint* endpoint;  // null once closing: it is never called again
    Logger logger;
    std::string token;
    std::string url;
    std::vector<std::string> own_origins;
    MHD_Daemon* daemon = nullptr;
    std::unique_ptr<DaemonWatch> watch;
    std::unordered_map<std::string, std::unique_ptr<Session>> sessions;
    std::unordered_set<Exchange*> exchanges;
    std::size_t body_bytes_in_flight = 0;
    uint64_t use_clock = 0;
    int run_depth = 0;
    bool closing = false;
    bool delete_after_run = false;
    unsigned refusals_logged = 0;
    bool unwatchable_logged = false;
    bool undeliverable_logged = false;
    bool backlog_logged = false;
};

// One HTTP request, from its first header to the end of its response.
struct HttpCarrier::Impl::Exchange {
    Impl* impl = nullptr;
    MHD_Connection* connection = nullptr;
    std::string body;
    std::size_t counted_bytes = 0;  // of body, in the carrier's bytes in flight
    bool too_large = false;
    bool responded = false;  // a response is queued
    bool dispatched = false;
    bool suspended = false;
    // While the request waits for its answer: the session and the id it is filed under.
    Session* session = nullptr;
    std::string id_key;
    std::string new_session_id;  // set on an initialize request: sent with the answer
    bool answered = false;       // the endpoint sent the response
    bool aborted = false;        // the session or the carrier ended first
    unsigned abort_status = 404;
    std::string json_answer;  // the response, when nothing came before it
    std::string stream;       // events not yet written (the response as an event stream)
    std::size_t stream_read = 0;
    bool streaming = false;  // the event-stream response is queued
};

// One MCP session (initialize to DELETE): one McpPeer for the endpoint.
struct HttpCarrier::Impl::Session final : McpPeer {
    Session(Impl* owner, std::string session_id, std::string description)
        : impl(owner), id(std::move(session_id)), description_(std::move(description)) {}

    void send(std::string message, std::string_view in_reply_to) override;
    std::string describe() const override { return description_; }

    Impl* impl;
    std::string id;
    std::unordered_map<std::string, Exchange*> pending;  // by canonical request id
    uint64_t last_used = 0;

private:
    std::string description_;
};

void HttpCarrier::Impl::Session::send(std::string message, std::string_view in_reply_to) {
    impl->deliver(*this, std::move(message), in_reply_to);
}

Status HttpCarrier::Impl::listen(HttpPolling polling) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = 0;  // the OS picks
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // External polling, the daemon's descriptors watched on the client's loop; suspending
    // lets a request wait for an answer that comes later without a thread.
    watch = std::make_unique<DaemonWatch>(loop, polling, &Impl::run_daemon, this);
    daemon = mhd().start_daemon(watch->start_flags() | MHD_ALLOW_SUSPEND_RESUME, 0, nullptr, nullptr, &Impl::on_request,
                                this, MHD_OPTION_SOCK_ADDR, reinterpret_cast<sockaddr*>(&address),
                                MHD_OPTION_CONNECTION_LIMIT, kMaxConnections, MHD_OPTION_CONNECTION_TIMEOUT,
                                kIdleTimeoutSeconds, MHD_OPTION_NOTIFY_COMPLETED, &Impl::on_completed, this,
                                MHD_OPTION_NOTIFY_CONNECTION, &Impl::on_connection, this, MHD_OPTION_END);
    if (daemon == nullptr) return Status(Errc::io_error, "tools over HTTP: cannot listen on 127.0.0.1");
    const MHD_DaemonInfo* port_info = mhd().get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (port_info == nullptr || port_info->port == 0) {
        return Status(Errc::io_error, "tools over HTTP: the HTTP server has no port");
    }
    const std::string host = "127.0.0.1:" + std::to_string(port_info->port);
    url = "http://" + host + kPath;
    own_origins = {"http://" + host, "http://localhost:" + std::to_string(port_info->port)};

    return watch->rearm(daemon);
}

// Called before the daemon closes a connection's socket: its watch goes first.
void HttpCarrier::Impl::on_connection(void* self, MHD_Connection* connection, void**,
                                      MHD_ConnectionNotificationCode what) {
    auto* impl = static_cast<Impl*>(self);
    if (what != MHD_CONNECTION_NOTIFY_CLOSED || !impl->watch) return;
    const MHD_ConnectionInfo* info = mhd().get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != nullptr) impl->watch->forget(info->connect_fd);
}

void HttpCarrier::Impl::run() {
    ++run_depth;
    mhd().run(daemon);
    --run_depth;
    if (closing) {
        if (delete_after_run && run_depth == 0) {
            stop_daemon();
            delete this;
        }
        return;
    }
    rearm();
}

void HttpCarrier::Impl::rearm() {
    // Only without epoll, in a process with descriptors past FD_SETSIZE: libmicrohttpd
    // refuses such connections itself, and what was watched stays watched.
    if (Status watched = watch->rearm(daemon); !watched && !unwatchable_logged) {
        unwatchable_logged = true;
        logger(LogLevel::warning, log_source::transport, watched.message() + " (further ones are not logged)");
    }
}

void HttpCarrier::Impl::close() {
    if (closing) return;
    // Every session ends first, while the endpoint is still there to hear it; after that it
    // is never called again (it may be gone as soon as this returns).
    while (!sessions.empty()) end_session(*sessions.begin()->second);
    closing = true;
    endpoint = nullptr;
    watch.reset();
    if (run_depth > 0) {
        delete_after_run = true;
        return;
    }
    stop_daemon();
    delete this;
}

void HttpCarrier::Impl::stop_daemon() {
    if (daemon == nullptr) return;
    // libmicrohttpd must not be stopped with suspended connections: resumed, they get
    // one last pass (closing: refused) and the stop closes them all.
    for (Exchange* exchange : exchanges) {
        exchange->aborted = true;
        exchange->abort_status = MHD_HTTP_SERVICE_UNAVAILABLE;
        if (exchange->suspended) {
            exchange->suspended = false;
            mhd().resume_connection(exchange->connection);
        }
    }
    ++run_depth;
    mhd().run(daemon);
    mhd().stop_daemon(daemon);
    --run_depth;
    daemon = nullptr;
}

MHD_Result HttpCarrier::Impl::on_request(void* self, MHD_Connection* connection, const char* url_path,
                                         const char* method, const char*, const char* upload, std::size_t* upload_size,
                                         void** context) {
    auto* impl = static_cast<Impl*>(self);
    auto* exchange = static_cast<Exchange*>(*context);
    if (exchange == nullptr) {
        exchange = new Exchange;
        exchange->impl = impl;
        exchange->connection = connection;
        impl->exchanges.insert(exchange);
        *context = exchange;
        if (impl->closing) return impl->respond_error(*exchange, MHD_HTTP_SERVICE_UNAVAILABLE, -32000, "closing");
        if (auto refusal = impl->check_caller(connection)) {
            impl->log_refusal(*refusal);
            // The connection goes with the refusal: a stranger keeps no slot open.
            const bool unauthenticated = *refusal == Refusal::no_token || *refusal == Refusal::wrong_token;
            if (unauthenticated) {
                return impl->respond_error(*exchange, MHD_HTTP_UNAUTHORIZED, -32001, "Unauthorized",
                                           {{"WWW-Authenticate", "Bearer"}, {"Connection", "close"}});
            }
            return impl->respond_error(*exchange, MHD_HTTP_FORBIDDEN, -32001, "Forbidden", {{"Connection", "close"}});
        }
        if (std::strcmp(url_path, kPath) != 0) {
            return impl->respond_error(*exchange, MHD_HTTP_NOT_FOUND, -32001, "Not Found");
        }
        return impl->begin(*exchange, method);
    }
    if (exchange->responded) {
        *upload_size = 0;  // the rest of a body already answered: discarded
        return MHD_YES;
    }
    if (*upload_size > 0) return impl->take_body(*exchange, upload, upload_size);
    if (impl->closing) return impl->respond_error(*exchange, MHD_HTTP_SERVICE_UNAVAILABLE, -32000, "closing");
    if (!exchange->dispatched) return impl->dispatch(*exchange);
    return impl->answer_when_ready(*exchange);
}

MHD_Result HttpCarrier::Impl::begin(Exchange& exchange, const char* method) {
    if (std::strcmp(method, "POST") == 0) {
        // A declared length over the cap is refused before a byte of it is read.
        std::string length = header(exchange.connection, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (!length.empty() && std::strtoull(length.c_str(), nullptr, 10) > kMaxBodyBytes) {
            return respond_error(exchange, MHD_HTTP_CONTENT_TOO_LARGE, -32600, "message too large");
        }
        return MHD_YES;
    }
    if (std::strcmp(method, "DELETE") == 0) return end_session_request(exchange);
    // No standalone server-to-client stream: every message this server sends answers a
    // request, on that request's response.
    return respond_error(exchange, MHD_HTTP_METHOD_NOT_ALLOWED, -32000, "Method Not Allowed",
                         {{"Allow", "POST, DELETE"}});
}

MHD_Result HttpCarrier::Impl::take_body(Exchange& exchange, const char* upload, std::size_t* upload_size) {
    const std::size_t size = *upload_size;
    *upload_size = 0;
    if (exchange.too_large) return MHD_YES;
    if (exchange.body.size() + size > kMaxBodyBytes || body_bytes_in_flight + size > kMaxBodyBytesInFlight) {
        exchange.too_large = true;
        release_body(exchange);
        return MHD_YES;
    }
    exchange.body.append(upload, size);
    exchange.counted_bytes += size;
    body_bytes_in_flight += size;
    return MHD_YES;
}

void HttpCarrier::Impl::release_body(Exchange& exchange) {
    body_bytes_in_flight -= exchange.counted_bytes;
    exchange.counted_bytes = 0;
    std::string().swap(exchange.body);
}

MHD_Result HttpCarrier::Impl::dispatch(Exchange& exchange) {
    exchange.dispatched = true;
    if (exchange.too_large) return respond_error(exchange, MHD_HTTP_CONTENT_TOO_LARGE, -32600, "message too large");
    std::optional<Envelope> envelope = read_envelope(exchange.body);
    if (!envelope) {
        release_body(exchange);
        return respond_error(exchange, MHD_HTTP_BAD_REQUEST, -32700, "Parse error");
    }
    const bool request = envelope->is_request();
    if (!envelope->object || !(request || envelope->is_notification() || envelope->is_response())) {
        release_body(exchange);
        return respond_error(exchange, MHD_HTTP_BAD_REQUEST, -32600, "Invalid Request: one JSON-RPC message per POST");
    }

    Session* session = nullptr;
    if (request && *envelope->method == "initialize") {
        Result<Session*> opened = open_session();
        if (!opened) {
            release_body(exchange);
            return respond_error(exchange, MHD_HTTP_SERVICE_UNAVAILABLE, -32000, opened.status().message());
        }
        session = *opened;
        exchange.new_session_id = session->id;
    } else {
        std::string id = header(exchange.connection, "Mcp-Session-Id");
        if (id.empty()) {
            release_body(exchange);
            return respond_error(exchange, MHD_HTTP_BAD_REQUEST, -32000,
                                 "Bad Request: Mcp-Session-Id header is required");
        }
        session = find_session(id);
        if (session == nullptr) {
            release_body(exchange);
            return respond_error(exchange, MHD_HTTP_NOT_FOUND, -32001, "Session not found");
        }
    }
    session->last_used = ++use_clock;
    if (request) {
        if (session->pending.count(*envelope->id) != 0) {
            release_body(exchange);
            return respond_error(exchange, MHD_HTTP_CONFLICT, -32600, "a request with this id is in flight");
        }
        exchange.session = session;
        exchange.id_key = *envelope->id;
        session->pending.emplace(exchange.id_key, &exchange);
    }

    endpoint->on_mcp_message(*session, exchange.body);
    release_body(exchange);
    if (closing) return respond_error(exchange, MHD_HTTP_SERVICE_UNAVAILABLE, -32000, "closing");
    if (!request) return respond(exchange, MHD_HTTP_ACCEPTED, {}, nullptr);
    return answer_when_ready(exchange);
}

MHD_Result HttpCarrier::Impl::answer_when_ready(Exchange& exchange) {
    if (exchange.aborted) {
        return respond_error(exchange, exchange.abort_status, -32001,
                             exchange.abort_status == MHD_HTTP_NOT_FOUND ? "Session not found" : "closing");
    }
    std::vector<std::pair<const char*, std::string>> headers;
    if (!exchange.new_session_id.empty()) headers.emplace_back("Mcp-Session-Id", exchange.new_session_id);
    if (exchange.stream.empty() && exchange.answered) {
        return respond(exchange, MHD_HTTP_OK, exchange.json_answer, "application/json", headers);
    }
    if (!exchange.stream.empty()) {
        MHD_Response* response = mhd().create_response_from_callback(MHD_SIZE_UNKNOWN, kStreamBlockBytes,
                                                                     &Impl::read_stream, &exchange, nullptr);
        if (response == nullptr) return MHD_NO;
        mhd().add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
        mhd().add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
        for (const auto& [name, value] : headers) mhd().add_response_header(response, name, value.c_str());
        MHD_Result queued = mhd().queue_response(exchange.connection, MHD_HTTP_OK, response);
        mhd().destroy_response(response);
        exchange.responded = true;
        exchange.streaming = true;
        return queued;
    }
    // Nothing yet: the connection sleeps until the endpoint sends (wake).
    exchange.suspended = true;
    mhd().suspend_connection(exchange.connection);
    return MHD_YES;
}

ssize_t HttpCarrier::Impl::read_stream(void* context, uint64_t, char* buffer, std::size_t max) {
    auto& exchange = *static_cast<Exchange*>(context);
    const std::size_t available = exchange.stream.size() - exchange.stream_read;
    if (available > 0) {
        const std::size_t n = std::min(max, available);
        std::memcpy(buffer, exchange.stream.data() + exchange.stream_read, n);
        exchange.stream_read += n;
        if (exchange.stream_read == exchange.stream.size()) {
            exchange.stream.clear();
            exchange.stream_read = 0;
        }
        return static_cast<ssize_t>(n);
    }
    if (exchange.answered || exchange.aborted) return MHD_CONTENT_READER_END_OF_STREAM;
    exchange.suspended = true;
    mhd().suspend_connection(exchange.connection);
    return 0;
}

void HttpCarrier::Impl::on_completed(void* self, MHD_Connection*, void** context, MHD_RequestTerminationCode) {
    auto* impl = static_cast<Impl*>(self);
    auto* exchange = static_cast<Exchange*>(*context);
    if (exchange == nullptr) return;
    *context = nullptr;
    if (exchange->session != nullptr) {
        auto found = exchange->session->pending.find(exchange->id_key);
        if (found != exchange->session->pending.end() && found->second == exchange)
            exchange->session->pending.erase(found);
    }
    impl->release_body(*exchange);
    impl->exchanges.erase(exchange);
    delete exchange;
}

MHD_Result HttpCarrier::Impl::end_session_request(Exchange& exchange) {
    std::string id = header(exchange.connection, "Mcp-Session-Id");
    if (id.empty()) {
        return respond_error(exchange, MHD_HTTP_BAD_REQUEST, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    Session* session = find_session(id);
    if (session == nullptr) return respond_error(exchange, MHD_HTTP_NOT_FOUND, -32001, "Session not found");
    end_session(*session);
    if (closing) return respond_error(exchange, MHD_HTTP_SERVICE_UNAVAILABLE, -32000, "closing");
    return respond(exchange, MHD_HTTP_OK, {}, nullptr);
}

auto HttpCarrier::Impl::find_session(const std::string& id) -> Session* {
    auto found = sessions.find(id);
    return found == sessions.end() ? nullptr : found->second.get();
}

auto HttpCarrier::Impl::open_session() -> Result<Session*> {
    if (sessions.size() >= kMaxSessions) {
        Session* oldest = nullptr;
        for (auto& [id, session] : sessions) {
            if (session->pending.empty() && (oldest == nullptr || session->last_used < oldest->last_used)) {
                oldest = session.get();
            }
        }
        if (oldest == nullptr) return Status(Errc::unsupported, "too many MCP sessions with requests in flight");
        end_session(*oldest);
        if (closing) return Status(Errc::connection_closed, "closing");
    }
    Result<std::string> id = random_token();
    if (!id) return id.status();
    auto session = std::make_unique<Session>(this, *id, "MCP over HTTP (" + url + ")");
    Session* raw = session.get();
    sessions.emplace(*id, std::move(session));
    return raw;
}

void HttpCarrier::Impl::end_session(Session& session) {
    // Requests still waiting get 404 (the session is gone) instead of an answer.
    for (auto& [id, exchange] : session.pending) {
        exchange->session = nullptr;
        exchange->aborted = true;
        exchange->abort_status = MHD_HTTP_NOT_FOUND;
        wake(*exchange);
    }
    session.pending.clear();
    std::unique_ptr<Session> owned = std::move(sessions[session.id]);
    sessions.erase(session.id);
    if (endpoint != nullptr) endpoint->on_mcp_peer_closed(*owned);
}

void HttpCarrier::Impl::deliver(Session& session, std::string message, std::string_view in_reply_to) {
    std::optional<std::string> key = in_reply_to.empty() ? std::nullopt : canonical_id(in_reply_to);
    auto found = key ? session.pending.find(*key) : session.pending.end();
    if (found == session.pending.end()) {
        // No request of this session waits for it: its client gave up, or the message
        // belongs to no request and there is no standalone stream to carry it.
        if (!undeliverable_logged) {
            undeliverable_logged = true;
            logger(LogLevel::debug, log_source::transport,
                   "MCP over HTTP: a message for no waiting request was dropped (further ones are not logged)");
        }
        return;
    }
    Exchange& exchange = *found->second;
    if (is_response(message)) {
        session.pending.erase(found);
        exchange.session = nullptr;
        exchange.answered = true;
        if (exchange.streaming || !exchange.stream.empty()) {
            append_event(exchange.stream, message);
        } else {
            exchange.json_answer = std::move(message);
        }
    } else if (exchange.stream.size() - exchange.stream_read > kMaxStreamBacklogBytes) {
        if (!backlog_logged) {
            backlog_logged = true;
            logger(LogLevel::warning, log_source::transport,
                   "MCP over HTTP: the agent does not read its event stream; notifications dropped");
        }
        return;
    } else {
        append_event(exchange.stream, message);
    }
    wake(exchange);
}

void HttpCarrier::Impl::wake(Exchange& exchange) {
    if (!exchange.suspended) return;
    exchange.suspended = false;
    mhd().resume_connection(exchange.connection);
    // libmicrohttpd takes a resumed connection up on its next run.
    if (watch) watch->wake_soon();
}

std::optional<Refusal> HttpCarrier::Impl::check_caller(MHD_Connection* connection) const {
    const MHD_ConnectionInfo* info = mhd().get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == nullptr || !is_loopback(info->client_addr)) return Refusal::not_loopback;
    // A browser page of another origin (DNS rebinding) must not reach the tools.
    const char* origin = mhd().lookup_connection_value(connection, MHD_HEADER_KIND, "Origin");
    if (origin != nullptr && std::find(own_origins.begin(), own_origins.end(), origin) == own_origins.end()) {
        return Refusal::foreign_origin;
    }
    const char* authorization = mhd().lookup_connection_value(connection, MHD_HEADER_KIND, "Authorization");
    if (authorization == nullptr) return Refusal::no_token;
    std::string_view presented(authorization);
    constexpr std::string_view kScheme = "bearer ";
    if (presented.size() < kScheme.size() || strncasecmp(presented.data(), kScheme.data(), kScheme.size()) != 0) {
        return Refusal::wrong_token;
    }
    presented.remove_prefix(kScheme.size());
    if (!secret_equals(presented, token)) return Refusal::wrong_token;
    return std::nullopt;
}

void HttpCarrier::Impl::log_refusal(Refusal why) {
    const auto bit = static_cast<unsigned>(why);
    if ((refusals_logged & bit) != 0) return;
    refusals_logged |= bit;
    const char* what = why == Refusal::not_loopback     ? "not from loopback"
                       : why == Refusal::foreign_origin ? "from a foreign Origin"
                       : why == Refusal::no_token       ? "without the bearer token"
                                                        : "with a wrong bearer token";
    logger(LogLevel::warning, log_source::transport,
           std::string("MCP over HTTP: refused a request ") + what + " (further ones are not logged)");
}

std::string HttpCarrier::Impl::header(MHD_Connection* connection, const char* name) const {
    const char* value = mhd().lookup_connection_value(connection, MHD_HEADER_KIND, name);
    return value != nullptr ? std::string(value) : std::string();
}

MHD_Result HttpCarrier::Impl::respond(Exchange& exchange, unsigned status, std::string_view body,
                                      const char* content_type,
                                      const std::vector<std::pair<const char*, std::string>>& headers) {
    MHD_Response* response =
        mhd().create_response_from_buffer(body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
    if (response == nullptr) return MHD_NO;
    if (content_type != nullptr) mhd().add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    for (const auto& [name, value] : headers) mhd().add_response_header(response, name, value.c_str());
    MHD_Result queued = mhd().queue_response(exchange.connection, status, response);
    mhd().destroy_response(response);
    exchange.responded = true;
    return queued;
}

MHD_Result HttpCarrier::Impl::respond_error(Exchange& exchange, unsigned status, int code, std::string_view message,
                                            const std::vector<std::pair<const char*, std::string>>& headers) {
    return respond(exchange, status, rpc_error_body(code, message), "application/json", headers);
}

Result<std::unique_ptr<HttpCarrier>> HttpCarrier::start(uv_loop_t* loop, McpEndpoint& endpoint, Logger logger,
                                                        HttpPolling polling) {
    if (Status loaded = load_microhttpd(); !loaded) return loaded;
    Result<std::string> token = random_token();
    if (!token) return token.status();
    auto impl = std::make_unique<Impl>(loop, endpoint, std::move(logger), std::move(*token));
    if (Status listening = impl->listen(polling); !listening) {
        impl.release()->close();
        return listening;
    }
    return std::unique_ptr<HttpCarrier>(new HttpCarrier(std::move(impl)));
}

HttpCarrier::HttpCarrier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpCarrier::~HttpCarrier() {
    if (impl_) impl_.release()->close();
}

const std::string& HttpCarrier::url() const { return impl_->url; }
const std::string& HttpCarrier::bearer_token() const { return impl_->token; }

}  // namespace acp::detail::tools
