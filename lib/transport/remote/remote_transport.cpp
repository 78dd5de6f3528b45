// SPDX-License-Identifier: Apache-2.0
#include "transport/remote/remote_transport.hpp"

#include <utility>

#include "support/logger.hpp"
#include "transport/remote/remote_headers.hpp"
#include "transport/remote/remote_url.hpp"
#if ACP_WITH_REMOTE
#include "transport/remote/http_transport.hpp"
#include "transport/remote/remote_libraries.hpp"
#include "transport/remote/ws_transport.hpp"
#endif

namespace acp::detail {

Result<RemoteTransport> connect_remote(uv_loop_t* loop, const RemoteOptions& options, std::size_t max_message_bytes,
                                       LogSink host_log) {
    auto url = parse_remote_url(options.url);
    if (!url) return url.status();
    RemoteTransport out;
    out.label = "the agent at " + url.value().redacted;
    out.log = redacting_sink(std::move(host_log), header_secrets(options.headers));
    Logger logger(out.log);
#if ACP_WITH_REMOTE
    if (Status loaded = load_remote_libraries(); !loaded) {
        return Status(loaded.code(), "cannot reach " + out.label + ": " + loaded.message());
    }
    if (url.value().kind == RemoteKind::websocket) {
        auto ws = WsTransport::connect(loop, std::move(url.value()), options, std::move(logger));
        if (!ws) return ws.status();
        out.transport = std::move(ws.value());
    } else {
        auto http = HttpTransport::connect(loop, std::move(url.value()), options, max_message_bytes, std::move(logger));
        if (!http) return http.status();
        out.transport = std::move(http.value());
    }
    return out;
#else
    (void)loop;
    (void)max_message_bytes;
    (void)logger;
    return Status(Errc::unsupported, "cannot reach " + out.label +
                                         ": this libacp was built without remote transports (ACP_WITH_REMOTE=OFF)");
#endif
}

}  // namespace acp::detail
