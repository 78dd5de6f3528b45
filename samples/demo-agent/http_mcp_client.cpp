// SPDX-License-Identifier: Apache-2.0
#include "http_mcp_client.hpp"

#include <strings.h>

#include <map>

#include "transport/remote/remote_libraries.hpp"
#include "transport/remote/sse_parser.hpp"

namespace demo {

using acp::detail::curl;
using acp::detail::Exchange;

namespace {

constexpr long kConnectTimeoutMs = 10000;
constexpr long kDeleteTimeoutMs = 5000;
constexpr std::size_t kMaxSessionIdBytes = 1024;

bool starts_with_nocase(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && strncasecmp(text.data(), prefix.data(), prefix.size()) == 0;
}

// Headers of the transport itself: an entry's header never replaces them.
bool is_transport_header(const std::string& name) {
    for (const char* own : {"content-type", "content-length", "accept", "host", "expect", "transfer-encoding",
                            "mcp-session-id", "mcp-protocol-version"}) {
        if (strcasecmp(name.c_str(), own) == 0) return true;
    }
    return false;
}

bool fits_in_header(const std::string& text) {
    return text.find_first_of(std::string("\r\n\0", 3)) == std::string::npos;
}

}  // namespace

// The response to one POST: JSON (one message) or an event stream (one message per event).
struct HttpMcpClient::Post final : acp::detail::SseSink {
    HttpMcpClient* owner = nullptr;
    uint64_t id = 0;             // the request's, 0 for a notification or response
    std::function<void()> done;  // runs when the exchange ended, however
    bool event_stream = false;
    bool too_large = false;        // a message over kMaxMcpMessageBytes was dropped
    bool event_too_large = false;  // the current event is being dropped
    std::string body;              // the JSON body, or the current event's data
    acp::detail::SseParser parser;

    void on_sse_data(const char* data, std::size_t size) override {
        if (event_too_large || body.size() + size > kMaxMcpMessageBytes) {
            event_too_large = too_large = true;
            body.clear();
            return;
        }
        body.append(data, size);
    }
    void on_sse_event_end() override {
        std::string message;
        message.swap(body);
        if (!event_too_large) owner->receive(std::move(message));
        event_too_large = false;
    }
};

HttpMcpClient::HttpMcpClient(std::shared_ptr<acp::detail::CurlMulti> multi, std::string name, std::string url,
                             std::vector<std::pair<std::string, std::string>> headers)
    : McpClient(std::move(name)), multi_(std::move(multi)), url_(std::move(url)), headers_(std::move(headers)) {}

HttpMcpClient::~HttpMcpClient() {
    for (auto& [exchange, id] : in_flight_) multi_->cancel(exchange);
    if (session_id_.empty()) return;
    // The server may forget the session now; nobody waits for its answer.
    auto exchange = new_exchange();
    curl().easy_setopt(exchange->easy, CURLOPT_CUSTOMREQUEST, "DELETE");
    curl().easy_setopt(exchange->easy, CURLOPT_TIMEOUT_MS, kDeleteTimeoutMs);
    multi_->start(std::move(exchange));
}

std::unique_ptr<Exchange> HttpMcpClient::new_exchange() {
    auto exchange = std::make_unique<Exchange>();
    CURL* easy = exchange->easy;
    curl().easy_setopt(easy, CURLOPT_URL, url_.c_str());
    curl().easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl().easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, kConnectTimeoutMs);
    auto add = [&exchange](const std::string& line) {
        exchange->headers = curl().slist_append(exchange->headers, line.c_str());
    };
    for (const auto& [name, value] : headers_) {
        if (name.empty() || is_transport_header(name) || !fits_in_header(name) || !fits_in_header(value)) continue;
        add(value.empty() ? name + ";" : name + ": " + value);  // "Name;": libcurl's empty value
    }
    add("Content-Type: application/json");
    add("Accept: application/json, text/event-stream");
    add("Expect:");  // no 100-continue round trip
    if (!protocol_version().empty()) add("MCP-Protocol-Version: " + protocol_version());
    if (!session_id_.empty()) add("Mcp-Session-Id: " + session_id_);
    curl().easy_setopt(easy, CURLOPT_HTTPHEADER, exchange->headers);
    return exchange;
}

Exchange* HttpMcpClient::post(uint64_t id, const std::string& message, std::function<void()> done) {
    auto exchange = new_exchange();
    exchange->request_body = message;
    curl().easy_setopt(exchange->easy, CURLOPT_POSTFIELDS, exchange->request_body.c_str());
    curl().easy_setopt(exchange->easy, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(exchange->request_body.size()));
    auto post = std::make_shared<Post>();
    post->owner = this;
    post->id = id;
    post->done = std::move(done);
    Exchange* raw = exchange.get();
    exchange->on_header_line = [this](std::string_view line) { on_header_line(line); };
    exchange->on_headers = [post, raw] {
        char* type = nullptr;
        curl().easy_getinfo(raw->easy, CURLINFO_CONTENT_TYPE, &type);
        post->event_stream = type != nullptr && starts_with_nocase(type, "text/event-stream");
    };
    exchange->on_body = [post](const char* data, std::size_t size) {
        if (post->event_stream) {
            post->parser.feed(data, size, *post);
            return true;
        }
        if (post->body.size() + size > kMaxMcpMessageBytes) {
            post->too_large = true;
            return false;  // aborts the transfer
        }
        post->body.append(data, size);
        return true;
    };
    exchange->on_done = [this, post, raw](CURLcode result) { on_done(*post, *raw, result); };
    in_flight_.emplace(raw, id);
    return multi_->start(std::move(exchange));
}

void HttpMcpClient::send(uint64_t id, const std::string& message) { post(id, message, nullptr); }

// Requests wait for it: a later POST may overtake it on another connection.
void HttpMcpClient::send_initialized(const std::string& message, std::function<void()> sent) {
    post(0, message, std::move(sent));
}

void HttpMcpClient::abandon(uint64_t id) {
    for (auto it = in_flight_.begin(); it != in_flight_.end(); ++it) {
        if (it->second != id) continue;
        multi_->cancel(it->first);
        in_flight_.erase(it);
        return;
    }
}

void HttpMcpClient::on_header_line(std::string_view line) {
    static constexpr std::string_view kSessionId = "mcp-session-id:";
    if (!session_id_.empty() || !starts_with_nocase(line, kSessionId)) return;
    std::string_view value = line.substr(kSessionId.size());
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    // MCP: visible ASCII only. Anything else is not sent back.
    if (value.empty() || value.size() > kMaxSessionIdBytes) return;
    for (char c : value) {
        if (c < 0x21 || c > 0x7E) return;
    }
    session_id_ = std::string(value);
}

void HttpMcpClient::on_done(Post& post, Exchange& exchange, CURLcode result) {
    in_flight_.erase(&exchange);
    if (post.event_stream) {
        post.parser.finish(post);
    } else if (!post.too_large && !post.body.empty()) {
        std::string body;
        body.swap(post.body);
        receive(std::move(body));  // an error status may carry a JSON-RPC error
    }
    std::string why;
    if (post.too_large) {
        why = "the MCP server " + name() + " sent a message over " + std::to_string(kMaxMcpMessageBytes) + " bytes";
    } else if (result != CURLE_OK) {
        why = "cannot reach the MCP server " + name() + ": " +
              (exchange.error[0] != '\0' ? std::string(exchange.error) : curl().easy_strerror(result));
    } else if (exchange.status < 200 || exchange.status > 299) {
        why = "the MCP server " + name() + " answered HTTP " + std::to_string(exchange.status);
    } else {
        why = "the MCP server " + name() + " sent no answer";
    }
    if (post.done) {
        if (result != CURLE_OK || exchange.status < 200 || exchange.status > 299) return fail_all(why);
        return post.done();
    }
    if (post.id != 0 && waiting_for(post.id)) fail(post.id, why);
}

}  // namespace demo
