// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/curl_multi.hpp"

#include <cctype>
#include <cstring>
#include <mutex>
#include <utility>

#include "transport/remote/remote_libraries.hpp"

namespace acp::detail {

namespace {

// The cookie jar is there for load-balancer affinity, a cookie or two. A server may set 50
// new cookies of 4 KiB with every answer (libcurl's own limits per response): beyond
// these, the newest are dropped.
constexpr std::size_t kMaxCookies = 50;
constexpr std::size_t kMaxCookieBytes = std::size_t{16} * 1024;

// Header lines start with names of any case; prefix is lower case.
bool starts_with_lower(std::string_view line, std::string_view prefix) {
    if (line.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(line[i])) != prefix[i]) return false;
    }
    return true;
}

void global_init() {
    static std::once_flag once;
    std::call_once(once, [] { curl().global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

// A socket libcurl asked to watch.
struct CurlMulti::Watch {
    uv_poll_t poll;
    CurlMulti* owner = nullptr;
    curl_socket_t fd = CURL_SOCKET_BAD;
};

Exchange::Exchange() : easy(curl().easy_init()) {}

Exchange::~Exchange() {
    if (easy != nullptr) curl().easy_cleanup(easy);
    if (headers != nullptr) curl().slist_free_all(headers);
}

std::shared_ptr<CurlMulti> CurlMulti::create(uv_loop_t* loop) {
    global_init();
    return std::shared_ptr<CurlMulti>(new CurlMulti(loop));
}

CurlMulti::CurlMulti(uv_loop_t* loop)
    : loop_(loop), multi_(curl().multi_init()), share_(curl().share_init()), timer_(new uv_timer_t) {
    uv_timer_init(loop, timer_.get());
    timer_->data = this;
    curl().multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlMulti::on_socket);
    curl().multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl().multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlMulti::on_timer);
    curl().multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    // Cookies the server sets (load-balancer affinity) go with every later request.
    curl().share_setopt(share_, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
    jar_ = curl().easy_init();
    curl().easy_setopt(jar_, CURLOPT_SHARE, share_);
    curl().easy_setopt(jar_, CURLOPT_COOKIEFILE, "");
}

CurlMulti::~CurlMulti() {
    for (auto& [easy, exchange] : exchanges_) {
        exchange->on_headers = nullptr;
        exchange->on_body = nullptr;
        exchange->on_done = nullptr;
        curl().multi_remove_handle(multi_, easy);
    }
    exchanges_.clear();
    curl().easy_cleanup(jar_);
    curl().multi_cleanup(multi_);
    curl().share_cleanup(share_);
    // Sockets libcurl did not say goodbye to: their handles must still be closed.
    for (Watch* watch : watches_) close_watch(watch);
    watches_.clear();
}

Exchange* CurlMulti::start(std::unique_ptr<Exchange> exchange) {
    Exchange* raw = exchange.get();
    CURL* easy = raw->easy;
    raw->multi = this;
    curl().easy_setopt(easy, CURLOPT_PRIVATE, raw);
    curl().easy_setopt(easy, CURLOPT_WRITEFUNCTION, &CurlMulti::on_write);
    curl().easy_setopt(easy, CURLOPT_WRITEDATA, raw);
    curl().easy_setopt(easy, CURLOPT_HEADERFUNCTION, &CurlMulti::on_header);
    curl().easy_setopt(easy, CURLOPT_HEADERDATA, raw);
    curl().easy_setopt(easy, CURLOPT_SHARE, share_);
    curl().easy_setopt(easy, CURLOPT_COOKIEFILE, "");  // the cookie engine, in memory only
    curl().easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl().easy_setopt(easy, CURLOPT_ERRORBUFFER, raw->error);
    exchanges_.emplace(easy, std::move(exchange));
    if (depth_ > 0) {
        to_start_.push_back(raw);
    } else {
        // Only added here: what completes is reported from the loop, never inside start().
        ++depth_;
        curl().multi_add_handle(multi_, easy);
        --depth_;
    }
    return raw;
}

void CurlMulti::cancel(Exchange* exchange) {
    if (exchange == nullptr || exchange->cancelled) return;
    exchange->cancelled = true;
    exchange->on_headers = nullptr;
    exchange->on_body = nullptr;
    exchange->on_done = nullptr;
    to_remove_.push_back(exchange);
    if (depth_ == 0) apply_queued();
}

void CurlMulti::set_receive_paused(Exchange* exchange, bool paused) {
    if (exchange == nullptr || exchange->cancelled || exchange->paused == paused) return;
    exchange->paused = paused;
    auto keep = shared_from_this();
    ++depth_;
    // Resuming may deliver what libcurl held back, through on_write, right here.
    curl().easy_pause(exchange->easy, paused ? CURLPAUSE_RECV : CURLPAUSE_CONT);
    --depth_;
    after_libcurl();
}

void CurlMulti::shutdown() {
    // cancel() may remove at once: not while walking the map.
    std::vector<Exchange*> all;
    for (auto& entry : exchanges_) all.push_back(entry.second.get());
    for (Exchange* exchange : all) cancel(exchange);
}

void CurlMulti::remove(Exchange* exchange) {
    auto it = exchanges_.find(exchange->easy);
    if (it == exchanges_.end()) return;
    curl().multi_remove_handle(multi_, exchange->easy);
    exchanges_.erase(it);
}

void CurlMulti::after_libcurl() {
    if (depth_ > 0) return;
    auto keep = shared_from_this();
    apply_queued();
    finish_transfers();
}

void CurlMulti::apply_queued() {
    while (!to_remove_.empty() || !to_start_.empty()) {
        std::vector<Exchange*> removing;
        removing.swap(to_remove_);
        for (Exchange* exchange : removing) {
            // One that was queued to start and cancelled before it did is dropped too.
            for (auto& queued : to_start_) {
                if (queued == exchange) queued = nullptr;
            }
            remove(exchange);
        }
        std::vector<Exchange*> starting;
        starting.swap(to_start_);
        ++depth_;
        for (Exchange* exchange : starting) {
            if (exchange != nullptr) curl().multi_add_handle(multi_, exchange->easy);
        }
        --depth_;
    }
}

void CurlMulti::finish_transfers() {
    int left = 0;
    while (CURLMsg* message = curl().multi_info_read(multi_, &left)) {
        if (message->msg != CURLMSG_DONE) continue;
        CURL* easy = message->easy_handle;
        CURLcode result = message->data.result;
        auto it = exchanges_.find(easy);
        if (it == exchanges_.end()) continue;
        std::unique_ptr<Exchange> exchange = std::move(it->second);
        exchanges_.erase(it);
        curl().multi_remove_handle(multi_, easy);
        if (exchange->status == 0) curl().easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &exchange->status);
        auto done = std::move(exchange->on_done);
        if (!exchange->cancelled && done) done(result);  // may start, cancel or shut down
    }
    if (cookies_set_) trim_cookies();
}

void CurlMulti::trim_cookies() {
    cookies_set_ = false;
    curl_slist* cookies = nullptr;
    if (curl().easy_getinfo(jar_, CURLINFO_COOKIELIST, &cookies) != CURLE_OK || cookies == nullptr) return;
    // The oldest first (libcurl lists them in the order they were set): the affinity
    // cookie of the initialize answer stays.
    std::vector<std::string> kept;
    std::size_t kept_bytes = 0;
    std::size_t dropped = 0;
    for (curl_slist* cookie = cookies; cookie != nullptr; cookie = cookie->next) {
        std::size_t size = std::strlen(cookie->data);
        if (dropped == 0 && kept.size() < kMaxCookies && kept_bytes + size <= kMaxCookieBytes) {
            kept.emplace_back(cookie->data);
            kept_bytes += size;
        } else {
            ++dropped;
        }
    }
    curl().slist_free_all(cookies);
    if (dropped == 0) return;
    curl().easy_setopt(jar_, CURLOPT_COOKIELIST, "ALL");
    for (const auto& line : kept) curl().easy_setopt(jar_, CURLOPT_COOKIELIST, line.c_str());
    if (on_cookies_dropped) on_cookies_dropped(dropped);
}

void CurlMulti::socket_action(curl_socket_t fd, int events) {
    auto keep = shared_from_this();
    int running = 0;
    ++depth_;
    curl().multi_socket_action(multi_, fd, events, &running);
    --depth_;
    after_libcurl();
}

int CurlMulti::on_socket(CURL* /*easy*/, curl_socket_t fd, int what, void* self_ptr, void* watch_ptr) {
    auto* self = static_cast<CurlMulti*>(self_ptr);
    auto* watch = static_cast<Watch*>(watch_ptr);
    if (what == CURL_POLL_REMOVE) {
        if (watch != nullptr) {
            curl().multi_assign(self->multi_, fd, nullptr);
            self->watches_.erase(watch);
            close_watch(watch);
        }
        return 0;
    }
    if (watch == nullptr) {
        watch = new Watch;
        watch->owner = self;
        watch->fd = fd;
        watch->poll.data = watch;
        uv_poll_init_socket(self->loop_, &watch->poll, fd);
        curl().multi_assign(self->multi_, fd, watch);
        self->watches_.insert(watch);
    }
    int events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= UV_READABLE;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= UV_WRITABLE;
    uv_poll_start(&watch->poll, events, [](uv_poll_t* poll, int status, int ready) {
        auto* w = static_cast<Watch*>(poll->data);
        int flags = 0;
        if (status < 0) flags |= CURL_CSELECT_ERR;
        if ((ready & UV_READABLE) != 0) flags |= CURL_CSELECT_IN;
        if ((ready & UV_WRITABLE) != 0) flags |= CURL_CSELECT_OUT;
        w->owner->socket_action(w->fd, flags);
    });
    return 0;
}

void CurlMulti::close_watch(Watch* watch) {
    uv_close(reinterpret_cast<uv_handle_t*>(&watch->poll),
             [](uv_handle_t* handle) { delete static_cast<Watch*>(handle->data); });
}

int CurlMulti::on_timer(CURLM* /*multi*/, long timeout_ms, void* self_ptr) {
    auto* self = static_cast<CurlMulti*>(self_ptr);
    if (timeout_ms < 0) {
        uv_timer_stop(self->timer_.get());
        return 0;
    }
    // Even a 0 timeout is taken on the next loop turn: libcurl may not be re-entered here.
    uv_timer_start(
        self->timer_.get(),
        [](uv_timer_t* timer) { static_cast<CurlMulti*>(timer->data)->socket_action(CURL_SOCKET_TIMEOUT, 0); },
        static_cast<uint64_t>(timeout_ms), 0);
    return 0;
}

std::size_t CurlMulti::on_write(char* data, std::size_t size, std::size_t count, void* exchange_ptr) {
    auto* exchange = static_cast<Exchange*>(exchange_ptr);
    std::size_t bytes = size * count;
    if (exchange->cancelled) return 0;  // aborts the transfer
    if (!exchange->on_body) return bytes;
    // A copy runs: the callback may cancel its own exchange, which drops the original.
    auto on_body = exchange->on_body;
    if (!on_body(data, bytes)) return 0;
    return bytes;
}

std::size_t CurlMulti::on_header(char* data, std::size_t size, std::size_t count, void* exchange_ptr) {
    auto* exchange = static_cast<Exchange*>(exchange_ptr);
    std::size_t bytes = size * count;
    if (exchange->cancelled) return 0;
    std::string_view line(data, bytes);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) {  // the end of a header block
        long status = 0;
        curl().easy_getinfo(exchange->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status >= 200 || status == 0) {  // not an interim 1xx
            exchange->status = status;
            if (exchange->on_headers) {
                auto on_headers = exchange->on_headers;  // as in on_write
                on_headers();
            }
        }
        return bytes;
    }
    if (exchange->on_header_line) {
        auto on_header_line = exchange->on_header_line;  // as in on_write
        on_header_line(line);
        if (exchange->cancelled) return 0;
    }
    static constexpr std::string_view kSetCookie = "set-cookie:";
    if (line.size() > kSetCookie.size() && starts_with_lower(line, kSetCookie)) {
        exchange->multi->cookies_set_ = true;
    }
    static constexpr std::string_view kConnectionId = "acp-connection-id:";
    if (line.size() > kConnectionId.size() && starts_with_lower(line, kConnectionId)) {
        std::string_view value = line.substr(kConnectionId.size());
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
        exchange->connection_id = std::string(value);
    }
    return bytes;
}

}  // namespace acp::detail
