// SPDX-License-Identifier: Apache-2.0
#include "tools/bridge_carrier.hpp"

#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "platform/local_peer.hpp"
#include "platform/local_rendezvous.hpp"
#include "platform/native_path.hpp"
#include "platform/program_search.hpp"
#include "support/uv_handle.hpp"
#include "tools/carrier_secret.hpp"
#include "transport/line_framer.hpp"

namespace acp::detail {
// Generated at build time from the bridge program (cmake/embed_file.cmake).
extern const unsigned char kMcpBridgeImage[];
extern const std::size_t kMcpBridgeImageSize;
}  // namespace acp::detail

namespace acp::detail::tools {

namespace {

constexpr const char* kTokenVariable = "ACP_MCP_BRIDGE_TOKEN";
// A host that cannot execute from its runtime or temporary directory (mounted noexec)
// names an installed bridge here (`cmake --install` puts one in libexec/acp).
constexpr const char* kBridgeOverride = "ACP_MCP_BRIDGE";
constexpr const char* kBridgeName = "acp-mcp-bridge";
// An agent runs one bridge per session it opens with these tools: a few at once. Beyond,
// a bridge is refused (it exits), so spawning it in a loop costs nothing that lasts.
constexpr std::size_t kMaxConnections = 8;
// The token line: 64 hex digits and a newline, sent at once by the bridge.
constexpr std::size_t kMaxTokenLineBytes = 128;
constexpr uint64_t kTokenTimeoutMs = 10000;
// Answers waiting for an agent that does not read its bridge's stdout: beyond, closed.
constexpr std::size_t kMaxQueuedBytes = LineFramer::kDefaultMaxLineBytes;
constexpr std::size_t kReadBytes = std::size_t{64} * 1024;

}  // namespace

struct BridgeCarrier::Impl {
    struct Connection;

    Impl(uv_loop_t* loop_in, McpEndpoint& endpoint_in, Logger logger_in, std::string token_in)
        : loop(loop_in), endpoint(&endpoint_in), logger(std::move(logger_in)), token(std::move(token_in)) {}
    ~Impl();

    Status open();
    static void on_connection(uv_stream_t* server, int status);
    void log_once(unsigned bit, const std::string& message);

    uv_loop_t* loop;
    McpEndpoint* endpoint;
    Logger logger;
    std::string token;
    std::unique_ptr<LocalRendezvous> rendezvous;
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;
    UvHandlePtr<uv_pipe_t> listener;
    std::unordered_set<Connection*> connections;
    unsigned logged = 0;
};

// One bridge process's connection: authenticating until its token line, then an McpPeer.
struct BridgeCarrier::Impl::Connection final : McpPeer, LineSink {
    explicit Connection(Impl* owner) : impl(owner), buffer(new char[kReadBytes]) {}

    void send(std::string message, std::string_view in_reply_to) override;
    std::string describe() const override { return description; }

    void on_line(char* line, std::size_t size) override;
    void on_oversized_line(std::string_view head, std::size_t total_size) override;
    bool stopped() const override { return closed; }

    void start();
    void on_read(ssize_t nread);
    void take_token(char* data, std::size_t size);
    void close();
    static void handle_closed(uv_handle_t* handle);

    Impl* impl;  // null once the carrier is gone
    uv_pipe_t pipe{};
    uv_timer_t token_timer{};
    int open_handles = 0;
    std::unique_ptr<char[]> buffer;
    LineFramer framer;
    std::string token_line;
    bool authenticated = false;
    bool closed = false;
    std::string description = "stdio bridge";
};

namespace {

enum LogOnce : unsigned {
    kLogTooMany = 1,
    kLogForeignUser = 2,
    kLogWrongToken = 4,
    kLogNoToken = 8,
    kLogOversized = 16,
    kLogNotReading = 32,
};

}  // namespace

Status BridgeCarrier::Impl::open() {
    const char* override_path = std::getenv(kBridgeOverride);
    if (override_path != nullptr && *override_path != '\0') {
        if (!is_native_absolute(override_path) || !is_program_file(override_path)) {
            return Status(Errc::invalid_argument, std::string("tools over stdio: ") + kBridgeOverride +
                                                      " must name an executable by absolute path");
        }
        command = override_path;
    }
    auto made = LocalRendezvous::make(command.empty());
    if (!made) return Status(made.status().code(), "tools over stdio: " + made.status().message());
    rendezvous = std::move(*made);
    if (command.empty()) {
        // An embedded copy, written into the private directory: always the bridge of this
        // very libacp, wherever the library came from (installed, build tree, wheel, static).
        auto written = rendezvous->write_program(kBridgeName, kMcpBridgeImage, kMcpBridgeImageSize);
        if (!written) return Status(written.status().code(), "tools over stdio: " + written.status().message());
        command = std::move(*written);
    }
    const std::string& address = rendezvous->address();
    listener.reset(new uv_pipe_t);
    uv_pipe_init(loop, listener.get(), 0);
    listener->data = this;
    if (int rc = uv_pipe_bind(listener.get(), address.c_str()); rc != 0) {
        return Status(Errc::io_error, "tools over stdio: cannot listen at " + address + ": " + uv_strerror(rc));
    }
    if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener.get()), 16, &Impl::on_connection); rc != 0) {
        return Status(Errc::io_error, "tools over stdio: cannot listen at " + address + ": " + uv_strerror(rc));
    }
    args = {address};
    env = {{kTokenVariable, token}};
    return Status();
}

BridgeCarrier::Impl::~Impl() {
    // Every bridge still connected ends here: the endpoint hears it now, the bridge sees its
    // connection close and exits.
    for (Connection* connection : connections) {
        connection->impl = nullptr;
        if (connection->authenticated && endpoint != nullptr) endpoint->on_mcp_peer_closed(*connection);
        connection->close();
    }
    connections.clear();
    // The listener first: its socket goes before the directory holding it (rendezvous).
    listener.reset();
}

void BridgeCarrier::Impl::log_once(unsigned bit, const std::string& message) {
    if ((logged & bit) != 0) return;
    logged |= bit;
    logger(LogLevel::warning, log_source::transport, "tools over stdio: " + message + " (further ones are not logged)");
}

void BridgeCarrier::Impl::on_connection(uv_stream_t* server, int status) {
    auto* impl = static_cast<Impl*>(server->data);
    if (status < 0) return;
    auto* connection = new Connection(impl);
    uv_pipe_init(impl->loop, &connection->pipe, 0);
    uv_timer_init(impl->loop, &connection->token_timer);
    connection->pipe.data = connection;
    connection->token_timer.data = connection;
    connection->open_handles = 2;
    if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&connection->pipe)) != 0) {
        connection->impl = nullptr;
        connection->close();
        return;
    }
    const LocalPeer peer = local_peer(&connection->pipe);
    if (!peer.same_user) {
        impl->log_once(kLogForeignUser, "refused a connection from another user");
        connection->impl = nullptr;
        connection->close();
        return;
    }
    if (impl->connections.size() >= kMaxConnections) {
        impl->log_once(kLogTooMany, "refused a bridge: " + std::to_string(kMaxConnections) + " are connected already");
        connection->impl = nullptr;
        connection->close();
        return;
    }
    if (peer.pid != 0) connection->description = "stdio bridge (pid " + std::to_string(peer.pid) + ")";
    impl->connections.insert(connection);
    connection->start();
}

void BridgeCarrier::Impl::Connection::start() {
    uv_timer_start(
        &token_timer,
        [](uv_timer_t* timer) {
            auto* self = static_cast<Connection*>(timer->data);
            if (self->impl != nullptr) self->impl->log_once(kLogNoToken, "refused a bridge that sent no token");
            self->close();
        },
        kTokenTimeoutMs, 0);
    uv_read_start(
        reinterpret_cast<uv_stream_t*>(&pipe),
        [](uv_handle_t* handle, std::size_t, uv_buf_t* out) {
            auto* self = static_cast<Connection*>(handle->data);
            *out = uv_buf_init(self->buffer.get(), kReadBytes);
        },
        [](uv_stream_t* stream, ssize_t nread, const uv_buf_t*) {
            static_cast<Connection*>(stream->data)->on_read(nread);
        });
}

void BridgeCarrier::Impl::Connection::on_read(ssize_t nread) {
    if (closed) return;
    if (nread < 0) {
        close();
        return;
    }
    if (nread == 0) return;
    char* data = buffer.get();
    auto size = static_cast<std::size_t>(nread);
    if (!authenticated) {
        take_token(data, size);
        return;
    }
    framer.feed(data, size, *this);
}

void BridgeCarrier::Impl::Connection::take_token(char* data, std::size_t size) {
    const char* end = static_cast<const char*>(std::memchr(data, '\n', size));
    const std::size_t taken = end != nullptr ? static_cast<std::size_t>(end - data) : size;
    if (token_line.size() + taken > kMaxTokenLineBytes) {
        impl->log_once(kLogWrongToken, "refused a bridge with a wrong token");
        close();
        return;
    }
    token_line.append(data, taken);
    if (end == nullptr) return;
    const bool valid = secret_equals(token_line, impl->token);
    std::fill(token_line.begin(), token_line.end(), '\0');
    token_line.clear();
    if (!valid) {
        impl->log_once(kLogWrongToken, "refused a bridge with a wrong token");
        close();
        return;
    }
    authenticated = true;
    uv_timer_stop(&token_timer);
    // Messages the bridge relayed right behind its token.
    if (taken + 1 < size) framer.feed(data + taken + 1, size - taken - 1, *this);
}

void BridgeCarrier::Impl::Connection::on_line(char* line, std::size_t size) {
    if (closed || impl == nullptr || impl->endpoint == nullptr) return;
    // The endpoint may close the carrier from here: this connection then stops (stopped()).
    impl->endpoint->on_mcp_message(*this, std::string_view(line, size));
}

void BridgeCarrier::Impl::Connection::on_oversized_line(std::string_view, std::size_t total_size) {
    if (impl != nullptr) {
        impl->log_once(kLogOversized, "closed a bridge that sent a message of " + std::to_string(total_size) +
                                          " bytes (the limit is " + std::to_string(framer.max_line_bytes()) + ")");
    }
    close();
}

void BridgeCarrier::Impl::Connection::send(std::string message, std::string_view) {
    if (closed || !authenticated) return;
    auto* stream = reinterpret_cast<uv_stream_t*>(&pipe);
    if (uv_stream_get_write_queue_size(stream) > kMaxQueuedBytes) {
        if (impl != nullptr) impl->log_once(kLogNotReading, "closed a bridge whose agent does not read its answers");
        close();
        return;
    }
    struct Write {
        uv_write_t request;
        std::string data;
    };
    auto* write = new Write;
    write->data = std::move(message);
    write->data += '\n';
    write->request.data = this;
    uv_buf_t buf = uv_buf_init(write->data.data(), static_cast<unsigned>(write->data.size()));
    int rc = uv_write(&write->request, stream, &buf, 1, [](uv_write_t* request, int status) {
        auto* self = static_cast<Connection*>(request->data);
        delete reinterpret_cast<Write*>(request);
        if (status < 0) self->close();
    });
    if (rc != 0) {
        delete write;
        close();
    }
}

void BridgeCarrier::Impl::Connection::close() {
    if (closed) return;
    closed = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&pipe), &Connection::handle_closed);
    uv_close(reinterpret_cast<uv_handle_t*>(&token_timer), &Connection::handle_closed);
}

// The endpoint hears of a closed bridge here, a loop turn after it closed, never from
// inside one of its own calls into the carrier (send).
void BridgeCarrier::Impl::Connection::handle_closed(uv_handle_t* handle) {
    auto* self = static_cast<Connection*>(handle->data);
    if (handle == reinterpret_cast<uv_handle_t*>(&self->pipe) && self->impl != nullptr) {
        Impl* owner = self->impl;
        self->impl = nullptr;
        owner->connections.erase(self);
        if (self->authenticated && owner->endpoint != nullptr) owner->endpoint->on_mcp_peer_closed(*self);
    }
    if (--self->open_handles == 0) delete self;
}

Result<std::unique_ptr<BridgeCarrier>> BridgeCarrier::start(uv_loop_t* loop, McpEndpoint& endpoint, Logger logger) {
    Result<std::string> token = random_token();
    if (!token) return token.status();
    auto impl = std::make_unique<Impl>(loop, endpoint, std::move(logger), std::move(*token));
    if (Status opened = impl->open(); !opened) return opened;
    return std::unique_ptr<BridgeCarrier>(new BridgeCarrier(std::move(impl)));
}

BridgeCarrier::BridgeCarrier(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BridgeCarrier::~BridgeCarrier() = default;

const std::string& BridgeCarrier::command() const { return impl_->command; }
const std::vector<std::string>& BridgeCarrier::args() const { return impl_->args; }
const std::vector<std::pair<std::string, std::string>>& BridgeCarrier::env() const { return impl_->env; }

}  // namespace acp::detail::tools
